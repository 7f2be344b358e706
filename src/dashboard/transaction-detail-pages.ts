import type { FastifyInstance } from "fastify";
import type { ForBusiness } from "../core/actor.js";
import { checkForm, labelled } from "../core/form-fields.js";
import { check } from "../core/validation.js";
import { refundInput } from "../payouts/refunds.js";
import { actingFor } from "./business-scope.js";
import { HELD_NOTICES } from "./held-pages.js";
import { type DashboardDependencies, type Form, page } from "./kit.js";
import { confirmMoney, ledToSetUp } from "./money-gate.js";
import { koboToNairaText, nairaToKobo } from "./money-pages.js";
import { formReference } from "./payout-pages.js";
import { refusal, signedIn } from "./sign-in.js";

/**
 * One of the business's transactions (issue 28, item 8): its figures, its `payment.received`
 * event with the event's deliveries, its refunds, an operator's blocks on it (issue 46), and a
 * refund to its payer (in full or in part, the user's two-factor code asked when they have it
 * on): the API's refund, sent with a reference made when the form was drawn, so a form sent
 * twice refunds once.
 */
export function transactionDetailPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/transactions/:id", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { id } = request.params as { id: string };
    const { found, held, refused } = request.query as { found?: string; held?: string; refused?: string };
    const notice =
      found === "recovered"
        ? "Found at the bank and credited now: its notification never came. Your webhooks get its payment.received."
        : found === "recorded"
          ? "This payment was already here."
          : (HELD_NOTICES[held ?? ""] ?? undefined);
    const shown = { ...(await data(forBusiness, session.userId, id, {})), notice };
    return page(reply, "transaction", refused ? { ...shown, heldError: refused.slice(0, 300) } : shown);
  });

  pages.post("/transactions/:id/refund", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    let refundId: string;
    try {
      // Both fields at once, in the words of their labels; then the API's own parse.
      const fields = checkForm(form, {
        amount: { label: "Amount", check: nairaToKobo },
        reason: {
          label: "Reason",
          optional: true,
          check: (value: string) =>
            labelled("Reason", "reason", () => check(refundInput, { reason: value.trim() }).reason),
        },
      });
      const input = check(refundInput, {
        amount: fields.amount,
        ...(fields.reason !== undefined ? { reason: fields.reason } : {}),
      });
      // The form sent again (a double click, a reload) shows the refund it made, asking no second code.
      const made = await deps.refunds.made(forBusiness, id, input, form.reference || undefined);
      if (made) return reply.redirect(`/dashboard/payouts/${made.id}`, 303);
      await confirmMoney(deps, request, form.code, "refund");
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
      const led = ledToSetUp(reply, error);
      if (led) return led;
      return refusal(reply, error, "transaction", await data(forBusiness, session.userId, id, form));
    }
    return reply.redirect(`/dashboard/payouts/${refundId}`, 303);
  });

  async function data(forBusiness: ForBusiness, userId: string, id: string, form: Form) {
    const transaction = await deps.collections.getTransaction(forBusiness, id);
    const [refunds, user, event, endpoints, blocks] = await Promise.all([
      deps.payoutListing.refundsOf(forBusiness, transaction.id),
      deps.users.getUser(userId),
      deps.events.ofTransaction(forBusiness, transaction),
      deps.webhooks.list(forBusiness),
      deps.creditBlocks.ofCredit(forBusiness.businessId, transaction.id),
    ]);
    // What an operator's standing block holds of it is not the business's to refund (issue 46).
    const blocked = blocks.filter((b) => b.state === "blocked").reduce((sum, b) => sum + b.amount, 0);
    const left = transaction.amount - transaction.refundedAmount - blocked;
    return {
      title: `Payment from ${transaction.payer.name}`,
      transaction,
      event,
      urls: Object.fromEntries(endpoints.map((endpoint) => [endpoint.id, endpoint.url])),
      refunds,
      blocks,
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
