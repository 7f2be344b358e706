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

/** A business signed up and confirmed by its owner, as the domain calls it (`ForBusiness`). */
export async function signedUpBusiness(
  services: { signUps: SignUps },
  input: SignUpInput,
): Promise<{ owner: User; business: { businessId: string; businessName: string } }> {
  const owner = await signedUpOwner(services, input);
  return { owner, business: { businessId: owner.businessId as string, businessName: input.businessName } };
}
