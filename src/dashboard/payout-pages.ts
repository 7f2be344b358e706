import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { z } from "zod";
import type { ForBusiness } from "../core/actor.js";
import type { PayoutInput } from "../core/api-types.js";
import { asFieldRefusal, checkForm, digitsField, labelled } from "../core/form-fields.js";
import { check } from "../core/validation.js";
import { isAppError } from "../errors.js";
import { PAYOUT_FIELDS, payoutInput, payoutQuery } from "../payouts/validation.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, doneRedirect, type Form, page } from "./kit.js";
import { confirmMoney, ledToSetUp } from "./money-gate.js";
import { ACCOUNT_FIELDS, filtersOf, nairaToKobo, PAGE_SIZE } from "./money-pages.js";
import { refusal, signedIn } from "./sign-in.js";

/**
 * A reference for a form that moves money, made when the form is drawn: sent twice (a double
 * click, a reload), it names one payout, and the second answer is the first one's.
 */
export const formReference = (): string => `dash_${randomBytes(12).toString("hex")}`;

/**
 * The business's payouts: the list, one payout, and sending one from the dashboard (the details,
 * then a review with the account's name from the bank and the fee, then the confirmation with
 * the user's two-factor code when they have it on); and the owner's switch for payouts through
 * the API. A dashboard payout is the API's payout (limits, balance, hold), not gated by the switch.
 */
export function payoutPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/payouts", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const data = await listData(forBusiness, session.userId, { filters: filtersOf(request.query), form: {} });
    if (data.refused) return refusal(reply, data.refused, "payouts", data);
    return page(reply, "payouts", data);
  });

  // The details of a payout to send, checked and named: the review the user confirms.
  pages.post("/payouts/review", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    try {
      return page(reply, "payout-review", await review(forBusiness, session.userId, form));
    } catch (error) {
      return refusal(
        reply,
        error,
        "payouts",
        await listData(forBusiness, session.userId, { filters: {}, form }),
      );
    }
  });

  pages.post("/payouts", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    let payoutId: string;
    try {
      const input = orderOf(form);
      // The review sent again (a double click, a reload) shows the payout it made: its code was
      // spent on the first send, and asking again would count a right person's wrong guess.
      const made = await deps.payouts.made(forBusiness, input);
      if (made) return reply.redirect(`/dashboard/payouts/${made.id}`, 303);
      await deps.payoutSettings.preview(forBusiness.businessId, input.amount);
      await confirmMoney(deps, request, form.code, "payout");
      const payout = await deps.payouts.create(forBusiness, input, { channel: "dashboard" });
      payoutId = payout.id;
      await deps.users.record(session.actor, forBusiness.businessId, "payout.sent", {
        payoutId,
        amount: payout.amount,
        reference: payout.reference,
      });
    } catch (error) {
      if (!isAppError(error) || error.statusCode >= 500) throw error;
      const led = ledToSetUp(reply, error);
      if (led) return led;
      // The review again, with what to fix: a wrong code, a limit, the balance.
      const again = await review(forBusiness, session.userId, form).catch(() => undefined);
      if (again) return refusal(reply, error, "payout-review", again);
      return refusal(
        reply,
        error,
        "payouts",
        await listData(forBusiness, session.userId, { filters: {}, form }),
      );
    }
    return reply.redirect(`/dashboard/payouts/${payoutId}`, 303);
  });

  pages.get("/payouts/:id", async (request, reply) => {
    const forBusiness = await actingFor(deps.businesses, signedIn(request).businessId);
    const { id } = request.params as { id: string };
    const payout = await deps.payoutListing.get(forBusiness, id);
    return page(reply, "payout", { title: `Payout to ${payout.accountName}`, payout });
  });

  // The owner's switch for POST /payouts: on asks for the two-factor code; off never does.
  pages.post("/payouts/api", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    const on = form.apiPayouts === "on";
    try {
      if (on) await confirmMoney(deps, request, form.code, "payouts.api_enabled");
      await deps.payoutSettings.setApiPayouts(forBusiness.businessId, on);
      await deps.users.record(session.actor, forBusiness.businessId, `payouts.api_${on ? "on" : "off"}`, {});
    } catch (error) {
      const led = ledToSetUp(reply, error);
      if (led) return led;
      return refusal(reply, error, "payouts", {
        ...(await listData(forBusiness, session.userId, { filters: {}, form: {} })),
        switchError: true,
      });
    }
    return doneRedirect(reply, "/dashboard/payouts", on ? "api-on" : "api-off");
  });

  /**
   * The form's payout: every field checked by the API's rule, refused in the words of its label
   * (all at once), its amount in naira as kobo; then the API's own parse.
   */
  function orderOf(form: Form): PayoutInput {
    const byRule = (label: string, apiName: keyof typeof PAYOUT_FIELDS) => (value: string) =>
      labelled(label, apiName, () => check(PAYOUT_FIELDS[apiName] as z.ZodType<unknown>, value.trim()));
    const values = checkForm(form, {
      bankCode: { label: "Bank", check: byRule("Bank", "bankCode") },
      accountNumber: { label: "Account number", check: digitsField("Account number", 10) },
      amount: { label: "Amount", check: nairaToKobo },
      narration: { label: "Narration", optional: true, check: byRule("Narration", "narration") },
      reference: { label: "Your reference", optional: true, check: byRule("Your reference", "reference") },
    });
    return check(payoutInput, {
      amount: values.amount,
      bankCode: values.bankCode,
      accountNumber: values.accountNumber,
      ...(values.narration !== undefined ? { narration: values.narration } : {}),
      ...(values.reference !== undefined ? { reference: values.reference } : {}),
    });
  }

  async function review(forBusiness: ForBusiness, userId: string, form: Form) {
    const input = orderOf(form);
    // The limits and the balance first, in naira beside the amount: nothing is asked of the bank,
    // nor any code spent, for a payout that cannot be made.
    const { fee, charges } = await deps.payoutSettings.preview(forBusiness.businessId, input.amount);
    const destination = await deps.banks.resolve(input).catch((error: unknown) => {
      throw asFieldRefusal(error, ACCOUNT_FIELDS);
    });
    const user = await deps.users.getUser(userId);
    return {
      title: "Review the payout",
      destination,
      amount: input.amount,
      fee,
      // VAT and stamp duty on their own lines, as the hold takes them (issue 46, item 4).
      charges,
      total: input.amount + fee + charges.reduce((sum, line) => sum + line.amount, 0),
      narration: input.narration ?? "",
      reference: input.reference ?? formReference(),
      // What the form said, as typed, to send again unchanged.
      typedAmount: form.amount ?? "",
      needsCode: user.totpEnabled,
      balance: await deps.collections.balance(forBusiness),
    };
  }

  /** The list page's data: the balance, the terms, the send form, and a page of payouts (or why not). */
  async function listData(
    forBusiness: ForBusiness,
    userId: string,
    { filters, form }: { filters: Record<string, string>; form: Form },
  ) {
    const [balance, terms, fees, user, banks] = await Promise.all([
      deps.collections.balance(forBusiness),
      deps.payoutSettings.terms(forBusiness.businessId),
      deps.payoutSettings.feeTiers(forBusiness.businessId),
      deps.users.getUser(userId),
      // The bank's list fills the form's choices; unreachable, the form says so.
      deps.banks.list().catch(() => undefined),
    ]);
    const view = {
      title: "Payouts",
      filters,
      form,
      balance,
      terms,
      feeTiers: fees.tiers,
      banks,
      needsCode: user.totpEnabled,
      sandboxPayees: deps.sandbox ? deps.banks.sandboxPayoutAccounts() : [],
    };
    try {
      const query = check(payoutQuery, { ...filters, limit: `${PAGE_SIZE}` });
      return { ...view, ...(await deps.payoutListing.list(forBusiness, query)), refused: undefined };
    } catch (error) {
      if (!isAppError(error) || error.statusCode >= 500) throw error;
      return { ...view, items: [], pagination: undefined, refused: error };
    }
  }
}
