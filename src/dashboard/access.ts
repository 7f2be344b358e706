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

/** Signing in, out and recovering a password: the same routes on both surfaces, before sign-in. */
export const SIGN_IN_ROUTES = [
  "GET /login",
  "POST /login",
  "GET /login/code",
  "POST /login/code",
  "POST /logout",
  "GET /forgot",
  "POST /forgot",
  "GET /reset",
  "POST /reset",
] as const;

/** A signed-in person's own password and two-factor: the same routes on both surfaces. */
export const OWN_SECURITY_ROUTES = [
  "GET /security",
  "POST /security/password",
  "POST /security/totp/start",
  "POST /security/totp/confirm",
  "POST /security/recovery-codes",
  "POST /security/totp/disable",
] as const;

/** Each of `routes` with one rule, for spreading into a table. */
export const every = <T>(routes: readonly string[], rule: T): Record<string, T> =>
  Object.fromEntries(routes.map((route) => [route, rule]));

/** Every route of the business dashboard, by "METHOD /path" under /dashboard. */
export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  "GET /": "public",
  "GET /signup": "public",
  "POST /signup": "public",
  "GET /confirm": "public",
  "POST /confirm": "public",
  "GET /join": "public",
  "POST /join": "public",
  ...every(SIGN_IN_ROUTES, "public"),
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
  "POST /accounts/:number/sandbox-transfer": "collections",
  "GET /accounts/new": "accounts",
  "POST /accounts/new": "accounts",
  "POST /accounts/:number/deactivate": "accounts",
  "POST /accounts/:number/reactivate": "accounts",
  "POST /accounts/:number/payers": "collections",
  "GET /transactions": "read",
  "GET /transactions/export": "read",
  "POST /transactions/find": "collections",
  "GET /transactions/:id": "read",
  "POST /transactions/:id/refund": "money",
  "POST /transactions/:id/accept": "money",
  "POST /transactions/:id/return": "money",
  "GET /payouts": "read",
  "GET /payouts/export": "read",
  "POST /payouts/review": "money",
  "POST /payouts": "money",
  "GET /payouts/:id": "read",
  "POST /payouts/api": "money",
  "GET /settlements": "read",
  "GET /charges": "read",
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
  ...every(OWN_SECURITY_ROUTES, "read"),
  "GET /team": "read",
  "POST /team/invitations": "members",
  "POST /team/invitations/:id/revoke": "members",
  "POST /team/members/:id/role": "members",
  "POST /team/members/:id/remove": "members",
  "POST /team/owner": "ownership",
  "POST /team/two-factor": "ownership",
};

/** The rule of a route in `table`, by its method and its path under the prefix (HEAD is GET's). */
export function ruleOf<T>(table: Readonly<Record<string, T>>, method: string, path: string): T | undefined {
  return table[`${method === "HEAD" ? "GET" : method} ${path === "" ? "/" : path}`];
}

type PreHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Holds every route registered on `pages` after it to `table` (named `tableName` in the error):
 * a route missing from it is an error at start-up; a rule other than "public" gets `check(rule)`
 * first, before the route's own preHandlers.
 */
export function enforceTable<T extends string>(
  pages: FastifyInstance,
  table: Readonly<Record<string, T>>,
  tableName: string,
  check: (rule: Exclude<T, "public">) => PreHandler,
): void {
  pages.addHook("onRoute", (route: RouteOptions & { routePath?: string; prefix?: string }) => {
    const path = route.routePath ?? route.url.slice((route.prefix ?? "").length);
    for (const method of [route.method].flat()) {
      const rule = ruleOf(table, method, path);
      if (rule === undefined) throw new Error(`route ${method} ${path} is not in ${tableName}`);
      if (rule === "public") continue;
      const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
      route.preHandler = [check(rule as Exclude<T, "public">), ...own];
    }
  });
}

/** Holds every route of the business dashboard registered after it to ROUTE_ACCESS. */
export function enforceAccess(pages: FastifyInstance): void {
  enforceTable(pages, ROUTE_ACCESS, "ROUTE_ACCESS (dashboard/access.ts)", permitted);
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
