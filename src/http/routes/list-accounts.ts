import type { FastifyInstance } from "fastify";
import type { AccountService } from "../../accounts/account-service.js";
import { callerOf } from "../authenticate.js";

/** GET /account/list?page&limit: the caller's accounts, newest first. */
export function listAccountsRoute(app: FastifyInstance, accounts: AccountService): void {
  app.get("/account/list", async (request) => {
    const { items, pagination } = await accounts.list(
      callerOf(request),
      request.query as Record<string, unknown>,
    );
    return { status: "success", data: items, pagination };
  });
}
