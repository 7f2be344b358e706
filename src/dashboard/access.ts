import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { may, type Permission, ROLE_LABELS } from "../businesses/roles.js";
import { AppError, ErrorCode } from "../errors.js";
import { BUSINESS_SURFACE } from "./business-scope.js";
import { guard } from "./sign-in.js";

// Who may open each page and send each form of the business dashboard (issue 28, item 3), in
// one table a reviewer reads at once. Every route registered under /dashboard must be named
// here: one that is not stops the service at start-up, so no page is ever left open by being
// forgotten. "public" pages are the ones before sign-in; every other route needs a member,
// fully signed in, whose role (read with the session, on every request) grants its permission.

/** A route's rule: open to anyone, or a permission of businesses/roles.ts. */
export type Access = "public" | Permission;

/** Every route of the business dashboard, by "METHOD /path" under /dashboard. */
export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  "GET /": "public",
  "GET /signup": "public",
  "POST /signup": "public",
  "GET /confirm": "public",
  "POST /confirm": "public",
  "GET /join": "public",
  "POST /join": "public",
  "GET /login": "public",
  "POST /login": "public",
  "GET /login/code": "public",
  "POST /login/code": "public",
  "POST /logout": "public",
  "GET /forgot": "public",
  "POST /forgot": "public",
  "GET /reset": "public",
  "POST /reset": "public",
  "GET /home": "read",
  "POST /time-zone": "business",
  "GET /verification": "read",
  "POST /verification": "business",
  "GET /keys": "read",
  "POST /keys": "keys",
  "GET /keys/:id/revoke": "keys",
  "POST /keys/:id/:action": "keys",
  "GET /accounts": "read",
  "GET /accounts/:number": "read",
  "POST /accounts/:number/sandbox-transfer": "accounts",
  "GET /accounts/new": "accounts",
  "POST /accounts/new": "accounts",
  "POST /accounts/:number/deactivate": "accounts",
  "POST /accounts/:number/reactivate": "accounts",
  "GET /transactions": "read",
  "GET /transactions/export": "read",
  "POST /transactions/find": "accounts",
  "GET /transactions/:id": "read",
  "POST /transactions/:id/refund": "money",
  "GET /payouts": "read",
  "POST /payouts/review": "money",
  "POST /payouts": "money",
  "GET /payouts/:id": "read",
  "POST /payouts/api": "money",
  "GET /settlements": "read",
  "POST /settlements/account/review": "money",
  "POST /settlements/account": "money",
  "POST /settlements/schedule": "money",
  "POST /settlements/run": "money",
  "GET /settlements/:id": "read",
  "GET /webhooks": "read",
  "POST /webhooks": "webhooks",
  "GET /webhooks/:id/edit": "webhooks",
  "POST /webhooks/:id/edit": "webhooks",
  "POST /webhooks/:id/:action": "webhooks",
  "GET /events/:id": "read",
  "POST /events/:id/redeliver": "webhooks",
  // A member's own password and two-factor: everyone's own.
  "GET /security": "read",
  "POST /security/password": "read",
  "POST /security/totp/start": "read",
  "POST /security/totp/confirm": "read",
  "POST /security/recovery-codes": "read",
  "POST /security/totp/disable": "read",
  "GET /team": "read",
  "POST /team/invitations": "members",
  "POST /team/invitations/:id/revoke": "members",
  "POST /team/members/:id/role": "members",
  "POST /team/members/:id/remove": "members",
  "POST /team/owner": "ownership",
};

/** The rule of a route, by its method and its path under the prefix (HEAD is GET's). */
export function accessOf(method: string, path: string): Access | undefined {
  return ROUTE_ACCESS[`${method === "HEAD" ? "GET" : method} ${path === "" ? "/" : path}`];
}

/**
 * Holds every route registered on `pages` after it (the business dashboard) to the table: a
 * route missing from it is an error at start-up; a non-public one gets the check first.
 */
export function enforceAccess(pages: FastifyInstance): void {
  pages.addHook("onRoute", (route: RouteOptions & { routePath?: string; prefix?: string }) => {
    const path = route.routePath ?? route.url.slice((route.prefix ?? "").length);
    for (const method of [route.method].flat()) {
      const access = accessOf(method, path);
      if (access === undefined) {
        throw new Error(`dashboard route ${method} ${path} is not in ROUTE_ACCESS (dashboard/access.ts)`);
      }
      if (access === "public") continue;
      const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
      route.preHandler = [permitted(access), ...own];
    }
  });
}

const signedInAsMember = guard(BUSINESS_SURFACE);

/** A preHandler: a signed-in member whose role grants `permission`, or the sign-in page, or a 403. */
function permitted(permission: Permission) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    await signedInAsMember(request, reply);
    if (reply.sent) return reply;
    const role = request.session?.memberRole;
    if (!may(role, permission)) {
      const as = role ? ` as ${ROLE_LABELS[role].toLowerCase()}` : "";
      throw new AppError(
        ErrorCode.FORBIDDEN,
        403,
        `Your role${as} does not allow this. Your business's owner or an admin can change your role on the Team page.`,
      );
    }
  };
}
