import type { SignUpInput, SignUps } from "../../src/businesses/sign-ups.js";
import type { User } from "../../src/businesses/users.js";

/**
 * A business and its owner as a confirmed sign-up makes them: the sign-up recorded, then its
 * link used (the token `begin` returns is what the mail would carry; mail is tested on its own).
 */
export async function signedUpOwner(services: { signUps: SignUps }, input: SignUpInput): Promise<User> {
  const started = await services.signUps.begin(input);
  if (!started.token) throw new Error(`${input.email} already has an account`);
  return services.signUps.confirm(started.token);
}
