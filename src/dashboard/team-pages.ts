import type { FastifyInstance, FastifyRequest } from "fastify";
import { INVITATION_DAYS } from "../businesses/invitations.js";
import {
  ASSIGNABLE_ROLES,
  MEMBER_ROLES,
  may,
  mayAssign,
  PERMISSIONS,
  ROLE_LABELS,
} from "../businesses/roles.js";
import { checkForm, emailField } from "../core/form-fields.js";
import { MAIL_QUEUED_WORDS } from "../mail/mailer.js";
import { ownBusiness } from "./business-scope.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { refusal, signedIn } from "./sign-in.js";

// The Team page (issue 28, item 3): the members and their roles, open invitations, inviting,
// changing a role, removing a member (confirmed), and the owner handing the business over. What
// a role may do is checked on the server (dashboard/access.ts, and again by Team itself).

const NOTICES: Record<string, string> = {
  invited: `The invitation is mailed. Its link works once, for ${INVITATION_DAYS} days.`,
  "invited-queued": `The invitation is ${MAIL_QUEUED_WORDS}. Its link works once, for ${INVITATION_DAYS} days.`,
  revoked: "The invitation is revoked: its link no longer works.",
  role: "The role is changed. It applies from their next click.",
  removed: "The member is removed, and signed out everywhere.",
  owner: "The business is handed over. You are an admin now.",
  "two-factor-required":
    "Two-factor sign-in is required: a member without it sets it up at their next page, before anything else.",
  "two-factor-optional": "Two-factor sign-in is no longer required of every member.",
};

/** What each permission means, in the table of roles on the page. */
const PERMISSION_LABELS: Record<(typeof PERMISSIONS)[number], string> = {
  read: "See everything, and manage their own sign-in",
  keys: "API keys",
  webhooks: "Webhooks and redelivery",
  accounts: "Issue, deactivate and reactivate accounts",
  collections: "Find a payment at the bank; who may pay into an account; the sandbox's simulated transfer",
  money: "Payouts, refunds and settlements",
  business: "The business's details for verification",
  members: "Invite, change and remove members",
  ownership: "Hand the business over",
};

export function teamPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/team", async (request, reply) =>
    page(reply, "team", { ...(await teamData(request)), done: doneNotice(request.query, NOTICES) }),
  );

  pages.post("/team/invitations", async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    let mailQueued = false;
    try {
      const { email } = checkForm(form, {
        email: { label: "Their email", check: emailField("Their email") },
      });
      // Mailed or queued, said as it is (issue 44): the page waits a few seconds for the mail.
      ({ queued: mailQueued } = await deps.mailing(() =>
        deps.invitations.invite(ownBusiness(session.businessId), session.userId, email, form.role),
      ));
    } catch (error) {
      return refusal(reply, error, "team", { ...(await teamData(request)), invite: form });
    }
    return doneRedirect(reply, "/dashboard/team", mailQueued ? "invited-queued" : "invited");
  });

  pages.post("/team/invitations/:id/revoke", async (request, reply) => {
    const session = signedIn(request);
    const { id } = request.params as { id: string };
    await deps.invitations.revoke(ownBusiness(session.businessId), session.userId, id);
    return doneRedirect(reply, "/dashboard/team", "revoked");
  });

  pages.post("/team/members/:id/role", async (request, reply) => {
    const session = signedIn(request);
    const { id } = request.params as { id: string };
    try {
      await deps.team.changeRole(
        ownBusiness(session.businessId),
        session.userId,
        id,
        (request.body as Form).role,
      );
    } catch (error) {
      return refusal(reply, error, "team", await teamData(request));
    }
    return doneRedirect(reply, "/dashboard/team", "role");
  });

  pages.post("/team/members/:id/remove", async (request, reply) => {
    const session = signedIn(request);
    const { id } = request.params as { id: string };
    if ((request.body as Form).confirm !== "yes") {
      return page(
        reply,
        "team",
        {
          ...(await teamData(request)),
          error: "Tick the box to confirm the removal: it signs them out at once.",
        },
        400,
      );
    }
    try {
      await deps.team.remove(ownBusiness(session.businessId), session.userId, id);
    } catch (error) {
      return refusal(reply, error, "team", await teamData(request));
    }
    return doneRedirect(reply, "/dashboard/team", "removed");
  });

  // The owner requires two-factor sign-in of every member, or stops requiring it.
  pages.post("/team/two-factor", async (request, reply) => {
    const session = signedIn(request);
    const required = (request.body as Form).required === "yes";
    try {
      await deps.team.requireTwoFactor(ownBusiness(session.businessId), session.userId, required);
    } catch (error) {
      return refusal(reply, error, "team", { ...(await teamData(request)), twoFactorError: true });
    }
    return doneRedirect(reply, "/dashboard/team", required ? "two-factor-required" : "two-factor-optional");
  });

  pages.post("/team/owner", async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    try {
      await deps.team.transferOwnership(
        ownBusiness(session.businessId),
        session.userId,
        form.member ?? "",
        form.password ?? "",
        form.code ?? "",
      );
    } catch (error) {
      return refusal(reply, error, "team", { ...(await teamData(request)), transferError: true });
    }
    return doneRedirect(reply, "/dashboard/team", "owner");
  });

  async function teamData(request: FastifyRequest) {
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    const [business, members, invitations, twoFactorRequired] = await Promise.all([
      deps.businesses.getBusiness(businessId),
      deps.team.members(businessId),
      deps.invitations.open(businessId),
      deps.team.twoFactorRequired(businessId),
    ]);
    const grants = PERMISSIONS.map((permission) => ({
      label: PERMISSION_LABELS[permission],
      roles: MEMBER_ROLES.map((role) => may(role, permission)),
    }));
    return {
      title: "Team",
      business,
      members,
      invitations,
      twoFactorRequired,
      me: session.userId,
      roles: ROLE_LABELS,
      allRoles: MEMBER_ROLES,
      // What this member may give: a role that moves money is the owner's to grant (roles.ts).
      assignable: ASSIGNABLE_ROLES.filter((role) => mayAssign(session.memberRole, role)),
      grants,
      invite: { email: "", role: "developer" },
    };
  }
}
