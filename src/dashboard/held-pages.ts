import type { FastifyInstance, FastifyReply } from "fastify";
import { isAppError } from "../errors.js";
import { actingFor } from "./business-scope.js";
import type { DashboardDependencies } from "./kit.js";
import { signedIn } from "./sign-in.js";

// A business's held credits in the dashboard (issue 46, item 6): the payment's page shows one held
// (its state, why) with Accept and Return to payer; each is the API's decision
// (POST /transactions/{id}/accept and /return), audited, and the page comes back with what it did.

/** What the payment's page says after a decision on it (`?held=`), or after a refusal. */
export const HELD_NOTICES: Record<string, string> = {
  accepted: "Accepted: the payment is in your available balance, its fee taken now.",
  returned: "Returned: a refund of the whole amount is on its way to the payer, from your held balance.",
};

export function heldPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.post("/transactions/:id/accept", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { id } = request.params as { id: string };
    try {
      await deps.heldCredits.accept(forBusiness, session.actor, id);
      await deps.users.record(session.actor, forBusiness.businessId, "held.accepted", { transactionId: id });
    } catch (error) {
      return refused(reply, id, error);
    }
    return reply.redirect(`/dashboard/transactions/${id}?held=accepted`, 303);
  });

  pages.post("/transactions/:id/return", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { id } = request.params as { id: string };
    try {
      const refund = await deps.refunds.returnHeld(forBusiness, session.actor, id, { channel: "dashboard" });
      await deps.users.record(session.actor, forBusiness.businessId, "held.returned", {
        transactionId: id,
        payoutId: refund.id,
      });
    } catch (error) {
      return refused(reply, id, error);
    }
    return reply.redirect(`/dashboard/transactions/${id}?held=returned`, 303);
  });
}

/** A refusal (not held any more, the payer's account not named): back to the payment, with its words. */
function refused(reply: FastifyReply, id: string, error: unknown) {
  // Not this business's payment (or no such one): the dashboard's own 404, as every page answers it.
  if (!isAppError(error) || error.statusCode >= 500 || error.statusCode === 404) throw error;
  return reply.redirect(`/dashboard/transactions/${id}?refused=${encodeURIComponent(error.message)}`, 303);
}
