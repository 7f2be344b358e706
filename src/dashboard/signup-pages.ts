import type { FastifyInstance } from "fastify";
import { INVITATION_DAYS } from "../businesses/invitations.js";
import { ROLE_LABELS } from "../businesses/roles.js";
import { SIGN_UP_LINK_HOURS } from "../businesses/sign-ups.js";
import { BUSINESS_SURFACE } from "./business-scope.js";
import { type DashboardDependencies, type Form, linkToken, page } from "./kit.js";
import { refusal, signInThrottle, startSession } from "./sign-in.js";

// How people come to the dashboard (issue 28, items 2 and 3): sign-up, whose answer is the same
// whether or not the email has an account, then the mailed link, which makes the business and
// signs its owner in; or an invitation's link, where a member chooses their password. A link
// opens a page with a button (mail scanners fetch links: a GET changes nothing).

export function signUpPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const throttle = signInThrottle(pages, deps);
  const signUpView = { title: "Create your account", hours: SIGN_UP_LINK_HOURS };
  const signUpThrottle = signInThrottle(pages, deps, (request) => {
    const form = (request.body as Form | undefined) ?? {};
    return {
      view: "sign-up",
      data: { ...signUpView, form: { businessName: form.businessName, email: form.email } },
    };
  });

  pages.get("/signup", async (_request, reply) => page(reply, "sign-up", { ...signUpView, form: {} }));

  pages.post("/signup", { preHandler: signUpThrottle }, async (request, reply) => {
    const form = request.body as Form;
    try {
      await deps.signUps.request({
        businessName: form.businessName ?? "",
        email: form.email ?? "",
        password: form.password ?? "",
      });
    } catch (error) {
      return refusal(reply, error, "sign-up", {
        ...signUpView,
        form: { businessName: form.businessName ?? "", email: form.email ?? "" },
      });
    }
    return reply.redirect("/dashboard/signup?sent=1", 303);
  });

  pages.get("/confirm", async (request, reply) => {
    const token = linkToken(request.query);
    const pending = token === "" ? undefined : await deps.signUps.pending(token);
    return page(
      reply,
      "confirm-email",
      { ...signUpView, title: "Confirm your email", token, pending },
      pending ? 200 : 410,
    );
  });

  pages.post("/confirm", { preHandler: throttle }, async (request, reply) => {
    const token = (request.body as Form).token ?? "";
    try {
      const owner = await deps.signUps.confirm(token);
      return startSession(request, reply, deps, BUSINESS_SURFACE, owner, {
        firstSignIn: true,
        to: "/dashboard/verification",
      });
    } catch (error) {
      return refusal(reply, error, "confirm-email", { ...signUpView, title: "Confirm your email", token });
    }
  });

  const joinView = { title: "Join your team", days: INVITATION_DAYS, roles: ROLE_LABELS };

  pages.get("/join", async (request, reply) => {
    const token = linkToken(request.query);
    const invitation = token === "" ? undefined : await deps.invitations.pending(token);
    return page(reply, "join", { ...joinView, token, invitation }, invitation ? 200 : 410);
  });

  pages.post("/join", { preHandler: throttle }, async (request, reply) => {
    const form = request.body as Form;
    const token = form.token ?? "";
    const invitation = await deps.invitations.pending(token);
    const again = (error: string) => page(reply, "join", { ...joinView, token, invitation, error }, 400);
    if (invitation && form.password !== form.confirm) return again("The two passwords are not the same");
    try {
      const member = await deps.invitations.accept(token, form.password ?? "");
      return startSession(request, reply, deps, BUSINESS_SURFACE, member, { firstSignIn: true });
    } catch (error) {
      return refusal(reply, error, "join", { ...joinView, token, invitation });
    }
  });
}
