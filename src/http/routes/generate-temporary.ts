import type { FastifyInstance } from "fastify";
import type { AccountService } from "../../accounts/account-service.js";
import { callerOf } from "../authenticate.js";
import { receivedBody } from "../request-body.js";

/** POST /account/generate/temporary: always creates a new account (201). */
export function generateTemporaryRoute(app: FastifyInstance, accounts: AccountService): void {
  app.post("/account/generate/temporary", async (request, reply) => {
    const body = receivedBody(request)?.object() ?? {};
    const account = await accounts.generateTemporary(callerOf(request), body);
    return reply.code(201).send({ status: "success", data: account });
  });
}
