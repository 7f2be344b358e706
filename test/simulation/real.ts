import assert from "node:assert/strict";
import { transactionQuery } from "../../src/collections/validation.js";
import type { Services } from "../../src/compose/services.js";
import { check } from "../../src/core/validation.js";
import { AppError } from "../../src/errors.js";
import { payoutQuery } from "../../src/payouts/validation.js";
import { SANDBOX_PAYEES } from "../../src/providers/bank-directory.js";
import { Model, type ModelAccount, type Outcome, type SentNotification } from "./model.js";

// The real side of the simulation: the services (an injected clock, the embedded bank), how a
// notification is sent to them, and the comparison of everything they hold with the model.

export interface Real {
  services: Services;
  setClock(ms: number): void;
  /** Unique per simulation run: keeps emails and session ids apart between runs. */
  run: string;
}

let sessions = 0;
export const nextSession = (real: Real) => `sim-${real.run}-${++sessions}`;
export const forBusiness = (model: Model, index: number) => {
  const business = model.businesses[index % model.businesses.length];
  if (!business) throw new Error("no business");
  return { businessId: business.id, businessName: business.name };
};
export const current = (account: ModelAccount) => account.numbers.at(-1) as string;

/** How often each outcome and step occurred, so a run can show (and check) what it exercised. */
export const tally = new Map<string, number>();
export const count = (what: string) => tally.set(what, (tally.get(what) ?? 0) + 1);

/** Receives a notification on the real service: what happened, as the model names it. */
export async function send(real: Real, notification: SentNotification): Promise<Outcome> {
  const outcome = await receive(real, notification);
  count(outcome);
  return outcome;
}

/**
 * Who paid: a sandbox account whose refunds succeed, or (every third session) one whose refunds
 * fail (a dormant account): chosen by the session id, so the model knows it too.
 */
export function payerOf(sessionId: string) {
  const outcome = Number(sessionId.split("-").at(-1)) % 3 === 0 ? "failed" : "successful";
  const payee = SANDBOX_PAYEES.find((p) => p.outcome === outcome) as (typeof SANDBOX_PAYEES)[number];
  return { payee, outcome: outcome as "failed" | "successful" };
}

async function receive(real: Real, notification: SentNotification): Promise<Outcome> {
  const { payee } = payerOf(notification.sessionId);
  try {
    const { duplicate, transaction } = await real.services.collections.receive({
      ...notification,
      payer: {
        name: "Sim Payer",
        accountNumber: payee.accountNumber,
        bankName: payee.bankName,
        bankCode: payee.bankCode,
      },
      narration: "",
      paidAt: new Date().toISOString(),
    });
    if (duplicate) return "duplicate";
    return transaction.status === "held" ? "held" : "credited";
  } catch (error) {
    if (error instanceof AppError) return error.code as Outcome;
    throw error;
  }
}

/** Every account, balance and statement of the run's businesses, against the model. */
export async function compare(model: Model, real: Real): Promise<void> {
  const { lifecycle, collections } = real.services;
  for (const account of model.accounts) {
    const detail = await lifecycle.get(forBusiness(model, account.businessIndex), current(account));
    assert.deepEqual(
      {
        status: detail.status,
        totalReceived: detail.totalReceived,
        expectedAmount: detail.expectedAmount,
        amountPolicy: detail.amountPolicy,
        amountPaid: detail.amountPaid,
        amountOutstanding: detail.amountOutstanding,
        paymentStatus: detail.paymentStatus,
        tier: detail.tier,
      },
      {
        status: model.status(account),
        totalReceived: account.received,
        expectedAmount: account.expected,
        amountPolicy: account.policy,
        ...model.progress(account),
        tier: account.tier,
      },
      `account ${current(account)}`,
    );
  }
  for (const [index, business] of model.businesses.entries()) {
    const who = forBusiness(model, index);
    assert.deepEqual(await collections.balance(who), {
      available: business.available,
      pending: business.pending,
      held: business.held,
      totalReceived: business.received,
      totalPaidOut: business.paidOut,
      totalFees: business.fees,
      // The charges' liability accounts hold what the model charged (issue 46).
      totalVat: business.vat,
      totalStampDuty: business.stampDuty,
      currency: "NGN",
    });
    // Money is conserved: what came in is available, pending, held (issue 46), paid out, or earned as
    // fees, VAT and stamp duty.
    assert.equal(
      business.received,
      business.available +
        business.pending +
        business.held +
        business.paidOut +
        business.fees +
        business.vat +
        business.stampDuty,
      `${business.name}: conservation`,
    );
    const payouts = await real.services.payoutListing.list(who, check(payoutQuery, { limit: "100" }));
    // Payouts made at one frozen instant list in id order: compared as a set.
    const ordered = (rows: Array<Array<number | string>>) => rows.map((row) => row.join(" ")).sort();
    assert.deepEqual(
      ordered(payouts.items.map((p) => [p.amount, p.fee, JSON.stringify(p.charges), p.status])),
      ordered(
        business.payouts
          .slice(-100)
          .map((p) => [p.amount, p.fee, JSON.stringify(Model.lines(p.vat, p.stampDuty)), p.status]),
      ),
      `${business.name}: payouts`,
    );
    const page = await collections.listTransactions(
      who,
      check(transactionQuery, { limit: "100", timeField: "createdAt" }),
    );
    assert.equal(page.pagination.total, business.transactions.length, `${business.name}: transactions`);
    assert.deepEqual(
      page.items
        .map((t) => ({
          sessionId: t.sessionId,
          accountNumber: t.accountNumber,
          amount: t.amount,
          fee: t.fee,
          charges: t.charges,
          balanceAfter: t.balanceAfter,
        }))
        .reverse(),
      business.transactions.slice(-100),
      `${business.name}: statement`,
    );
  }
}
