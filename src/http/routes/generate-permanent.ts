import type { FastifyInstance } from "fastify";
import type { AccountService, GeneratedPermanent } from "../../accounts/account-service.js";
import { callerOf } from "../authenticate.js";
import { receivedBody } from "../request-body.js";
import { answerOnce } from "../request-guard.js";

/** POST /account/generate: 201 when the account was created, 200 when an existing one was re-issued. */
export function generatePermanentRoute(app: FastifyInstance, accounts: AccountService): void {
  app.post("/account/generate", async (request, reply) => {
    const body = receivedBody(request)?.object() ?? {};
    return answerOnce<GeneratedPermanent>(
      request,
      reply,
      () => accounts.generatePermanent(callerOf(request), body),
      ({ created, account }) => ({
        statusCode: created ? 201 : 200,
        body: { status: "success", data: account },
      }),
    );
  });
}
