import type { FastifyInstance } from "fastify";
import type { ForBusiness } from "../core/actor.js";
import { check } from "../core/validation.js";
import { refundInput } from "../payouts/refunds.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, type Form, page } from "./kit.js";
import { koboToNairaText, nairaToKobo } from "./money-pages.js";
import { formReference } from "./payout-pages.js";
import { refusal, signedIn } from "./sign-in.js";

/**
 * One of the business's transactions, its refunds, and a refund to its payer (in full or in
 * part, the user's two-factor code asked when they have it on): the API's refund, sent with a
 * reference made when the form was drawn, so a form sent twice refunds once.
 */
export function transactionPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/transactions/:id", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { id } = request.params as { id: string };
    const { found } = request.query as { found?: string };
    const notice =
      found === "recovered"
        ? "Found at the bank and credited now: its notification never came. Your webhooks get its payment.received."
        : found === "recorded"
          ? "This payment was already here."
          : undefined;
    return page(reply, "transaction", { ...(await data(forBusiness, session.userId, id, {})), notice });
  });

  pages.post("/transactions/:id/refund", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    let refundId: string;
    try {
      const input = check(refundInput, {
        amount: nairaToKobo(form.amount ?? ""),
        ...(form.reason?.trim() ? { reason: form.reason.trim() } : {}),
      });
      await deps.secondFactor.confirmWithCode(session.userId, form.code, "refund");
      const refund = await deps.refunds.refund(forBusiness, id, input, {
        channel: "dashboard",
        ...(form.reference ? { reference: form.reference } : {}),
      });
      refundId = refund.id;
      await deps.users.record(session.actor, forBusiness.businessId, "refund.sent", {
        payoutId: refund.id,
        transactionId: id,
        amount: refund.amount,
      });
    } catch (error) {
      return refusal(reply, error, "transaction", await data(forBusiness, session.userId, id, form));
    }
    return reply.redirect(`/dashboard/payouts/${refundId}`, 303);
  });

  async function data(forBusiness: ForBusiness, userId: string, id: string, form: Form) {
    const transaction = await deps.collections.getTransaction(forBusiness, id);
    const [refunds, user] = await Promise.all([
      deps.payoutListing.refundsOf(forBusiness, transaction.id),
      deps.users.getUser(userId),
    ]);
    const left = transaction.amount - transaction.refundedAmount;
    return {
      title: `Payment from ${transaction.payer.name}`,
      transaction,
      refunds,
      left,
      needsCode: user.totpEnabled,
      form: {
        amount: form.amount ?? (left > 0 ? koboToNairaText(left) : ""),
        reason: form.reason ?? "",
        // Sent again after a refusal, the form keeps its reference: still one refund.
        reference: form.reference || formReference(),
      },
    };
  }
}
