import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import type { Operators } from "../../src/businesses/operators.js";
import type { SecondFactor } from "../../src/businesses/second-factor.js";
import { totpCode } from "../../src/businesses/totp.js";
import type { UserService } from "../../src/businesses/user-service.js";
import { CLI } from "../../src/core/actor.js";
import { pageClient } from "./page-client.js";

const STEP_MS = 30_000;

/**
 * Turns two-factor sign-in on for a user as the Security page does (a first code, the
 * password), with the code of the step before `now`, so that the step of `now` and the next
 * one are left for signing in and one money action: the secret.
 */
export async function enrolAuthenticator(
  secondFactor: SecondFactor,
  userId: string,
  password: string,
  now: () => number = Date.now,
): Promise<string> {
  const { secret } = await secondFactor.beginTotp(userId);
  await secondFactor.confirmTotp(userId, totpCode(secret, now() - STEP_MS), password);
  return secret;
}

/** Signs in at `base` with the password, then the authenticator's code for `now`: the client. */
export async function signInWithCode(
  app: FastifyInstance,
  base: "/dashboard" | "/admin",
  email: string,
  password: string,
  secret: string,
  now: () => number = Date.now,
) {
  const client = pageClient(app);
  const first = await client.signIn(base, email, password);
  assert.equal(first.headers.location, `${base}/login/code`, first.body);
  const step = await client.get(`${base}/login/code`);
  const verified = await client.post(`${base}/login/code`, {
    _csrf: step.token ?? "",
    code: totpCode(secret, now()),
  });
  assert.equal(verified.statusCode, 303, verified.body);
  return client;
}

/**
 * An operator as `vas operator create` makes one (an admin unless `role` says otherwise), who has
 * set up two-factor sign-in, as every operator must before anything else, and signed in.
 */
export async function signedInOperator(
  services: { users: UserService; secondFactor: SecondFactor; operators: Operators; app?: never },
  app: FastifyInstance,
  email: string,
  password: string,
  options: { role?: "admin" | "reviewer"; now?: () => number } = {},
) {
  const user = await services.users.createOperator(email, password);
  if (options.role === "reviewer") await services.operators.setRole(CLI, user.id, "reviewer");
  const secret = await enrolAuthenticator(services.secondFactor, user.id, password, options.now);
  const client = await signInWithCode(app, "/admin", email, password, secret, options.now);
  return { client, id: user.id, secret };
}

/**
 * Turns two-factor sign-in on from the Security page of `base`, as a person does (Set up, then
 * the app's first code and the password), with the code for `now`: the secret.
 */
export async function setUpFromSecurityPage(
  client: ReturnType<typeof pageClient>,
  base: "/dashboard" | "/admin",
  secondFactor: SecondFactor,
  userId: string,
  password: string,
  now: () => number = Date.now,
): Promise<string> {
  const security = await client.get(`${base}/security`);
  await client.post(`${base}/security/totp/start`, { _csrf: security.token ?? "" });
  const secret = (await secondFactor.pendingTotp(userId))?.secret ?? "";
  const on = await client.post(`${base}/security/totp/confirm`, {
    _csrf: security.token ?? "",
    code: totpCode(secret, now()),
    password,
  });
  assert.equal(on.statusCode, 303, on.body);
  assert.equal(on.headers.location, `${base}/security?done=totp-on`);
  return secret;
}
