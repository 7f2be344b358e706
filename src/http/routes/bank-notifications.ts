import type { FastifyInstance, FastifyRequest } from "fastify";
import type { BankNotifications, SignedNotification } from "../../collections/bank-notifications.js";
import { isAppError } from "../../errors.js";
import type { PayoutNotifications } from "../../payouts/payout-notifications.js";
import { NOTIFICATION_ACK } from "../../providers/bank-protocol.js";
import { failureGuard } from "../rate-limit.js";
import { receivedBody } from "../request-body.js";

/** Where the bank posts its payment notifications (PROVIDER=http only). */
export const BANK_NOTIFICATIONS_PATH = "/api/v1/bank/notifications";
/** Where the bank posts its transfers out's status notifications (PROVIDER=http only). */
export const BANK_PAYOUT_NOTIFICATIONS_PATH = "/api/v1/bank/payout-notifications";

/**
 * POST /api/v1/bank/notifications: the bank's signed payment notifications, outside the API
 * key's scope (the bank's signature is the authentication). Recorded, or recorded already:
 * 200 with the bank's acknowledgement. Refused: the `fail` envelope with a 4xx (the bank
 * reverses the transfer, except on a 401 or a 429, which it retries) or a 503 (it retries).
 *
 * A body that cannot be the bank's (not a JSON object, or a signature that does not verify)
 * counts against its sender's address: past `badSignaturesPerMinute` in a minute, the address
 * gets 429 before anything else is done, and such refusals are logged once a minute per address
 * with a count, never one line each (nor their "request completed" lines).
 */
export function bankNotificationsRoute(
  app: FastifyInstance,
  notifications: BankNotifications,
  payoutNotifications: PayoutNotifications,
  badSignaturesPerMinute: number,
): void {
  // A scope of its own: the rate-limit plugin's counters exist once the app's plugins load.
  app.register(async (scope) => {
    const forged = failureGuard(scope, {
      name: "bank-bad-signature",
      perMinute: badSignaturesPerMinute,
      message: "bank notifications without a valid signature refused",
    });
    /** A notification route: the signature first (failures counted), then the rest, refusals logged. */
    const signedRoute = (
      path: string,
      authenticate: (body: unknown) => SignedNotification,
      handle: (signed: SignedNotification, request: FastifyRequest) => Promise<void>,
    ) =>
      scope.post(path, { onRequest: forged.check }, async (request, reply) => {
        let signed: SignedNotification;
        try {
          signed = authenticate(receivedBody(request)?.object());
        } catch (error) {
          await forged.fail(request);
          throw error;
        }
        try {
          await handle(signed, request);
          return reply.code(200).send(NOTIFICATION_ACK);
        } catch (error) {
          // Signed by the bank: each refusal is worth its own line (it reverses or retries).
          if (isAppError(error) && error.statusCode < 500) {
            request.log.warn({ code: error.code, reason: error.message }, "bank notification refused");
          }
          throw error;
        }
      });
    signedRoute(
      BANK_NOTIFICATIONS_PATH,
      (body) => notifications.authenticate(body),
      async (signed, request) => {
        const received = await notifications.record(signed);
        request.log.info(
          {
            transactionId: received.transaction.id,
            sessionId: received.transaction.sessionId,
            duplicate: received.duplicate,
          },
          "bank notification recorded",
        );
      },
    );
    // A transfer out settled or came back: the same checks, then the status applied once.
    signedRoute(
      BANK_PAYOUT_NOTIFICATIONS_PATH,
      (body) => payoutNotifications.authenticate(body),
      async (signed, request) => {
        const payout = await payoutNotifications.record(signed);
        request.log.info({ payoutId: payout.id, status: payout.status }, "payout notification applied");
      },
    );
  });
}
