import type { FastifyInstance } from "fastify";
import type { AccountService } from "../../accounts/account-service.js";
import { callerOf } from "../authenticate.js";
import { receivedBody } from "../request-body.js";

/** POST /account/generate: 201 when the account was created, 200 when an existing one was re-issued. */
export function generatePermanentRoute(app: FastifyInstance, accounts: AccountService): void {
  app.post("/account/generate", async (request, reply) => {
    const body = receivedBody(request)?.object() ?? {};
    const { created, account } = await accounts.generatePermanent(callerOf(request), body);
    return reply.code(created ? 201 : 200).send({ status: "success", data: account });
  });
}
