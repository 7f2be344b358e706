import type { PayoutStatus } from "../core/api-types.js";
import type { After, TimeWindow } from "../core/time-window.js";
import type { PayoutRecord } from "../ledger/ledger-records.js";
import type { BankDebit } from "../providers/bank-statement.js";
import { payoutsByIds, unseenPayouts } from "../storage/reconciliation-repository.js";
import { record, tally } from "./report.js";
import { PAGE, type Run } from "./run.js";

// A day's payouts against the bank's transfers out (issue 27): each status compared, a final one
// the ledger has not heard applied as the tracker would, and what cannot be followed reported.

/** The ledger may move a payout from its status to the bank's (the tracker would, on its next pass). */
const CATCHES_UP: ReadonlySet<string> = new Set([
  "pending>successful",
  "pending>failed",
  "pending>reversed",
  "successful>reversed",
]);

/** The statement's transfers out against the payouts. */
export async function compareDebits(run: Run, debits: BankDebit[]) {
  const ids = debits.map((debit) => debit.reference);
  const payouts = new Map((await payoutsByIds(run.deps.storage.db, ids)).map((p) => [p.id, p]));
  for (const debit of debits) await comparePayout(run, payouts.get(debit.reference), debit);
}

/**
 * Payouts made in the window that the statement lacked, asked of the bank by reference (one the
 * bank took just after midnight is in its next day's statement, and found here by its query).
 */
export async function payoutsOnly(run: Run, runId: string, window: TimeWindow) {
  let after: After | undefined;
  for (;;) {
    const rows = await unseenPayouts(run.deps.storage.db, runId, window, after, PAGE);
    for (const payout of rows) {
      const state = await run.deps.bank.queryTransfer(payout.id);
      // The query says where it stands, not how much: amounts are compared on the statement.
      const debit = state && { ...state, amount: Number(payout.amount), at: payout.created_at };
      await comparePayout(run, payout, debit);
    }
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) return;
    after = { time: last.created_at, id: last.id };
  }
}

async function comparePayout(
  { deps, found }: Run,
  payout: PayoutRecord | undefined,
  debit: BankDebit | undefined,
) {
  const mismatch = (
    amount: number,
    ledgerStatus: PayoutStatus | null,
    bankStatus: PayoutStatus | null,
    note: string,
  ) =>
    record(found.payoutStatusMismatch, amount, {
      payoutId: payout?.id ?? debit?.reference ?? "",
      businessId: payout?.business_id ?? null,
      amount,
      ledgerStatus,
      bankStatus,
      note,
    });
  if (!payout) {
    if (debit)
      mismatch(
        debit.amount,
        null,
        debit.status,
        "the bank sent money out under a reference the ledger has no payout for",
      );
    return;
  }
  const amount = Number(payout.amount);
  if (!debit) {
    // Refused by the bank before it took it (failed), or not sent yet (pending): nothing at the bank is right.
    if (payout.status === "successful" || payout.status === "reversed") {
      mismatch(amount, payout.status, null, "the ledger paid this out; the bank has no such transfer");
    }
    return;
  }
  if (debit.amount !== amount) {
    mismatch(
      amount,
      payout.status,
      debit.status,
      `the bank sent ${debit.amount} kobo, the ledger held ${amount}`,
    );
    return;
  }
  if (payout.status !== debit.status && CATCHES_UP.has(`${payout.status}>${debit.status}`)) {
    // The bank's notification of it is late or lost: applied now, as the tracker would.
    await deps.applyBankState({
      reference: payout.id,
      status: debit.status,
      reason: debit.reason,
      sessionId: debit.sessionId,
      code: debit.code,
    });
    tally(found.payoutsMatched, amount);
    return;
  }
  if (payout.status !== debit.status) {
    mismatch(
      amount,
      payout.status,
      debit.status,
      `the ledger has it ${payout.status}, the bank ${debit.status}`,
    );
    return;
  }
  tally(found.payoutsMatched, amount);
}
