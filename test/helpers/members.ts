import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import type { SignUpInput, SignUps } from "../../src/businesses/sign-ups.js";
import type { User } from "../../src/businesses/users.js";
import { lastMail, linkIn, pathOf } from "./mail-files.js";
import { pageClient } from "./page-client.js";

type Client = ReturnType<typeof pageClient>;
type MailBox = Parameters<typeof lastMail>[0];

/** Opens an invitation's link in a new browser and joins with a password: the page and the answer. */
export async function joinByLink(app: FastifyInstance, link: string, password: string) {
  const client = pageClient(app);
  const page = await client.get(pathOf(link));
  const joined = await client.post("/dashboard/join", {
    _csrf: page.token ?? "",
    token: new URL(link).searchParams.get("token") ?? "",
    password,
    confirm: password,
  });
  return { client, page, joined };
}

/** Invites `email` as `role` from `inviter`'s Team page; the invitee joins from the mailed link, signed in. */
export async function invitedMember(
  app: FastifyInstance,
  mail: MailBox,
  inviter: Client,
  invitee: { email: string; role: string; password: string },
): Promise<Client> {
  const team = await inviter.get("/dashboard/team");
  const invited = await inviter.post("/dashboard/team/invitations", {
    _csrf: team.token ?? "",
    email: invitee.email,
    role: invitee.role,
  });
  assert.equal(invited.statusCode, 303, invited.body);
  assert.equal(invited.headers.location, "/dashboard/team?done=invited");
  const link = linkIn(await lastMail(mail, invitee.email, /^Join /), "http");
  const { client, joined } = await joinByLink(app, link, invitee.password);
  assert.equal(joined.statusCode, 303, joined.body);
  assert.equal(joined.headers.location, "/dashboard/home");
  return client;
}

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
