import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { OPERATOR_ROLE_LABELS } from "../businesses/operators.js";
import { AppError, ErrorCode } from "../errors.js";
import { enforceTable, every, OWN_SECURITY_ROUTES, SIGN_IN_ROUTES } from "./access.js";
import { guard, type Surface } from "./sign-in.js";

// Who may open each page and send each form of the operator console (issue 43, item 4), in one
// table beside the dashboard's (access.ts): every route registered under /admin must be named
// here, or the service does not start. "operator" is any signed-in operator (a reviewer reads
// everything and decides what is in review); "admin" is what changes money, access or the
// operators. The role is read with the session on every request; the domain checks the moves
// that matter again (a business's status: businesses/verification.ts; the operators:
// businesses/operators.ts).

export const ADMIN_SURFACE: Surface = {
  role: "operator",
  base: "/admin",
  home: "/admin/businesses?status=in_progress",
  name: "operator console",
};

/** A console route's rule: open to anyone, any operator, or an admin operator. */
export type ConsoleAccess = "public" | "operator" | "admin";

/** Every route of the console, by "METHOD /path" under /admin. */
export const CONSOLE_ACCESS: Readonly<Record<string, ConsoleAccess>> = {
  "GET /": "public",
  ...every(SIGN_IN_ROUTES, "public"),
  "GET /businesses": "operator",
  "GET /businesses/:id": "operator",
  // approve, reject and suspend: a reviewer's for a business in review; the domain refuses a
  // reviewer any move out of `completed` (verification.ts).
  "POST /businesses/:id/:action": "operator",
  "POST /businesses/:id/payout-terms": "admin",
  "POST /businesses/:id/collection-fee": "admin",
  "POST /businesses/:id/users/:userId/reset-two-factor": "admin",
  "GET /payouts": "operator",
  "GET /payouts/:id": "operator",
  "GET /reconciliation": "operator",
  "POST /reconciliation": "operator",
  "GET /reconciliation/:id": "operator",
  "GET /deadlines": "operator",
  // Blocks on disputed credits (issue 46, item 7): read by any operator, moved by an admin (money).
  "GET /blocks": "operator",
  "POST /blocks": "admin",
  "POST /blocks/:id/:action": "admin",
  "GET /charges": "operator",
  "POST /charges": "admin",
  "GET /accounts": "operator",
  "GET /transactions": "operator",
  "GET /operators": "admin",
  "POST /operators": "admin",
  "POST /operators/:id/role": "admin",
  "POST /operators/:id/disable": "admin",
  "POST /operators/:id/enable": "admin",
  // An operator's own password and two-factor.
  ...every(OWN_SECURITY_ROUTES, "operator"),
};

/** Holds every console route registered on `pages` after it to CONSOLE_ACCESS. */
export function enforceConsoleAccess(pages: FastifyInstance): void {
  const signedInOperator = guard(ADMIN_SURFACE);
  enforceTable(pages, CONSOLE_ACCESS, "CONSOLE_ACCESS (dashboard/console-access.ts)", (rule) =>
    rule === "admin" ? adminOnly(signedInOperator) : signedInOperator,
  );
}

/** A preHandler: a signed-in operator who is an admin, or the sign-in page, or a 403 page. */
function adminOnly(signedInOperator: ReturnType<typeof guard>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    await signedInOperator(request, reply);
    if (reply.sent) return reply;
    const role = request.session?.operatorRole;
    if (role !== "admin") {
      throw new AppError(
        ErrorCode.FORBIDDEN,
        403,
        `Your role${role ? ` as ${OPERATOR_ROLE_LABELS[role].toLowerCase()}` : ""} does not allow this: it is an admin's. An admin can change your role under Operators.`,
      );
    }
  };
}
