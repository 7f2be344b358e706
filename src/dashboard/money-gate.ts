import type { FastifyReply, FastifyRequest } from "fastify";
import { TwoFactorSetupNeeded } from "../businesses/money-factor.js";
import { type DashboardDependencies, localTime } from "./kit.js";
import { signedIn } from "./sign-in.js";

// Money moves from a page only with a code from the member's authenticator (issue 43, item 3):
// the rule is SecondFactor's; this is how the pages ask it and where they lead a member who
// has no authenticator yet.

/** The acting member's code for `action`, or the refusal (no authenticator, its cool-off, a wrong code). */
export function confirmMoney(
  deps: DashboardDependencies,
  request: FastifyRequest,
  code: string | undefined,
  action: string,
): Promise<void> {
  return deps.secondFactor.confirmWithCode(signedIn(request).userId, code, action, localTime(request));
}

/** A member refused for having no authenticator is led to set one up (the page says why); otherwise undefined. */
export function ledToSetUp(reply: FastifyReply, error: unknown): FastifyReply | undefined {
  return error instanceof TwoFactorSetupNeeded
    ? reply.redirect("/dashboard/security?setup=money", 303)
    : undefined;
}
