import type { FastifyInstance } from "fastify";
import type { BankNotifications } from "../../collections/bank-notifications.js";
import { isAppError } from "../../errors.js";
import { NOTIFICATION_ACK } from "../../providers/bank-protocol.js";
import { receivedBody } from "../request-body.js";

/** Where the bank posts its payment notifications (PROVIDER=http only). */
export const BANK_NOTIFICATIONS_PATH = "/api/v1/bank/notifications";

/**
 * POST /api/v1/bank/notifications: the bank's signed payment notifications, outside the API
 * key's scope (the bank's signature is the authentication). Recorded, or recorded already:
 * 200 with the bank's acknowledgement. Refused: the `fail` envelope with a 4xx (the bank
 * reverses the transfer, except on a 401, which it retries) or a 503 (it retries).
 */
export function bankNotificationsRoute(app: FastifyInstance, notifications: BankNotifications): void {
  app.post(BANK_NOTIFICATIONS_PATH, async (request, reply) => {
    try {
      const received = await notifications.receive(receivedBody(request)?.object());
      request.log.info(
        {
          transactionId: received.transaction.id,
          sessionId: received.transaction.sessionId,
          duplicate: received.duplicate,
        },
        "bank notification recorded",
      );
      return reply.code(200).send(NOTIFICATION_ACK);
    } catch (error) {
      if (isAppError(error) && error.statusCode < 500) {
        request.log.warn({ code: error.code, reason: error.message }, "bank notification refused");
      }
      throw error;
    }
  });
}
