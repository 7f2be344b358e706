import type { FastifyInstance } from "fastify";
import type { AccountService, TemporaryAccount } from "../../accounts/account-service.js";
import { callerOf } from "../authenticate.js";
import { receivedBody } from "../request-body.js";
import { answerOnce } from "../request-guard.js";

/** POST /account/generate/temporary: always creates a new account (201). */
export function generateTemporaryRoute(app: FastifyInstance, accounts: AccountService): void {
  app.post("/account/generate/temporary", async (request, reply) => {
    const body = receivedBody(request)?.object() ?? {};
    return answerOnce<TemporaryAccount>(
      request,
      reply,
      () => accounts.generateTemporary(callerOf(request), body),
      (account) => ({ statusCode: 201, body: { status: "success", data: account } }),
    );
  });
}
