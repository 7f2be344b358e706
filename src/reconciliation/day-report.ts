import { randomUUID } from "node:crypto";
import type { CollectionService } from "../collections/collection-service.js";
import type { PayoutStatus } from "../core/api-types.js";
import { type BankDebit, type BankStatement, statementPages } from "../providers/bank-statement.js";
import type { BankPayoutState, PayoutRail } from "../providers/payout-rail.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import type { Storage } from "../storage/database.js";
import {
  type After,
  conflictsIn,
  forgetSeen,
  insertReport,
  ledgerTotals,
  markSeen,
  type PayoutRow,
  payoutsByIds,
  type TimeWindow,
  transactionsBySession,
  unseenPayouts,
  unseenTransactions,
} from "../storage/reconciliation-repository.js";
import type { TransactionRow } from "../storage/transaction-repository.js";
import { alike, bankSide, ingestCredit, ledgerSide } from "./ingest.js";
import {
  discrepancyCount,
  emptyCategories,
  type ReconciliationReport,
  type ReportCategories,
  record,
  type Tally,
  tally,
} from "./report.js";

// One day's reconciliation (issue 27): the bank's statement of the window, page by page, against
// the ledger; then the ledger's side of the window for what the statement lacked (read in SQL
// against what this run saw, never the whole day in memory); then the conflicts kept. A credit
// the ledger lacks is ingested on the way (recovered); a final payout status the ledger has not
// heard yet is applied through the tracker's path. The report is stored, never changed.

export interface DayReportDeps {
  storage: Storage;
  bank: BankStatement & Pick<PayoutRail, "queryTransfer">;
  collections: CollectionService;
  /** Applies a transfer out's state as the bank reports it (the tracker's path). */
  applyBankState: (state: BankPayoutState) => Promise<unknown>;
}

/** Rows of the ledger read at a time for what the bank lacked. */
const PAGE = 500;

/** The ledger may move a payout from its status to the bank's (the tracker would, on its next pass). */
const CATCHES_UP: ReadonlySet<string> = new Set([
  "pending>successful",
  "pending>failed",
  "pending>reversed",
  "successful>reversed",
]);

export async function reconcileDay(
  deps: DayReportDeps,
  run: { date: string; trigger: ReconciliationReport["trigger"]; window: TimeWindow; now: () => string },
): Promise<ReconciliationReport> {
  const runId = `rcn_${randomUUID().replaceAll("-", "")}`;
  const db = deps.storage.db;
  const found = emptyCategories();
  const bankTotal: Tally = { count: 0, amount: 0 };
  const statementWindow = { from: Date.parse(run.window.from), to: Date.parse(run.window.to) };
  try {
    for await (const page of statementPages(deps.bank, statementWindow)) {
      for (const credit of page.credits) tally(bankTotal, credit.amount);
      await compareCredits(deps, found, page.credits);
      await markSeen(
        db,
        runId,
        "credit",
        page.credits.map((credit) => credit.sessionId),
      );
      await compareDebits(deps, found, page.debits);
      await markSeen(
        db,
        runId,
        "debit",
        page.debits.map((debit) => debit.reference),
      );
    }
    await ledgerOnly(deps, found, runId, run.window);
    await payoutsOnly(deps, found, runId, run.window);
    for (const conflict of await conflictsIn(db, run.window)) {
      record(found.mismatched, Number(conflict.amount), {
        sessionId: conflict.session_id,
        businessId: conflict.business_id,
        transactionId: conflict.transaction_id,
        ledger: {
          accountNumber: conflict.recorded_account_number,
          amount: Number(conflict.recorded_amount),
          currency: conflict.recorded_currency,
          paidAt: conflict.value_at,
        },
        bank: {
          accountNumber: conflict.account_number,
          amount: Number(conflict.amount),
          currency: conflict.currency,
          paidAt: conflict.value_at,
        },
        note: `a notification with other details came at ${conflict.first_seen_at.slice(0, 19).replace("T", " ")} UTC and was kept as a conflict; the first recording stands`,
      });
    }
    const report: ReconciliationReport = {
      id: runId,
      date: run.date,
      trigger: run.trigger,
      window: run.window,
      ...found,
      ledgerTotal: await ledgerTotals(db, run.window),
      bankTotal,
      discrepancies: discrepancyCount(found),
      createdAt: run.now(),
    };
    await insertReport(db, {
      id: report.id,
      date: report.date,
      trigger: report.trigger,
      window_from: report.window.from,
      window_to: report.window.to,
      discrepancies: report.discrepancies,
      summary: JSON.stringify(summaryOf(report)),
      items: JSON.stringify(itemsOf(report)),
      created_at: report.createdAt,
    });
    return report;
  } finally {
    await forgetSeen(db, runId);
  }
}

/** The statement's credits against the ledger: alike, other, or missing (then ingested). */
async function compareCredits(deps: DayReportDeps, found: ReportCategories, credits: TransferNotification[]) {
  const recorded = new Map(
    (
      await transactionsBySession(
        deps.storage.db,
        credits.map((credit) => credit.sessionId),
      )
    ).map((row) => [row.session_id, row]),
  );
  for (const credit of credits) {
    const row = recorded.get(credit.sessionId);
    if (row) {
      compareOne(found, credit, row);
      continue;
    }
    const ingested = await ingestCredit(deps.collections, credit);
    const item = { sessionId: credit.sessionId, bank: bankSide(credit) };
    switch (ingested.kind) {
      case "recovered":
        record(found.recovered, credit.amount, {
          ...item,
          businessId: null,
          transactionId: ingested.transaction.id,
          ledger: null,
          note: "the bank's notification never arrived: credited now from its statement",
        });
        break;
      case "duplicate":
        tally(found.matched, credit.amount);
        break;
      case "refused":
        record(found.notCredited, credit.amount, {
          ...item,
          businessId: null,
          transactionId: null,
          ledger: null,
          note: `${ingested.reason} (${ingested.code}): the bank holds the money and must return it to the payer`,
        });
        break;
      case "conflict":
        // Kept as a conflict: counted once, with the conflicts of the window.
        break;
    }
  }
}

function compareOne(found: ReportCategories, credit: TransferNotification, row: TransactionRow) {
  if (alike(credit, row)) {
    tally(found.matched, credit.amount);
    return;
  }
  record(found.mismatched, credit.amount, {
    sessionId: credit.sessionId,
    businessId: row.business_id,
    transactionId: row.id,
    ledger: ledgerSide(row),
    bank: bankSide(credit),
    note: "the bank's statement has this session id with another account, amount or currency",
  });
}

/** The ledger's transactions of the window the statement lacked: asked of the bank one by one, then missing. */
async function ledgerOnly(deps: DayReportDeps, found: ReportCategories, runId: string, window: TimeWindow) {
  let after: After | undefined;
  for (;;) {
    const rows = await unseenTransactions(deps.storage.db, runId, window, after, PAGE);
    for (const row of rows) {
      // Listed under another day, or on a later page than it was read: the bank's query is the word.
      const credit = await deps.bank.findCredit(row.session_id);
      if (credit) compareOne(found, credit, row);
      else {
        record(found.missingAtBank, Number(row.amount), {
          sessionId: row.session_id,
          businessId: row.business_id,
          transactionId: row.id,
          ledger: ledgerSide(row),
          bank: null,
          note: "credited in the ledger; the bank's statement and its query have no such credit",
        });
      }
    }
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) return;
    after = { time: last.value_at, id: last.session_id };
  }
}

/** The statement's transfers out against the payouts. */
async function compareDebits(deps: DayReportDeps, found: ReportCategories, debits: BankDebit[]) {
  const payouts = new Map(
    (
      await payoutsByIds(
        deps.storage.db,
        debits.map((d) => d.reference),
      )
    ).map((p) => [p.id, p]),
  );
  for (const debit of debits) await comparePayout(deps, found, payouts.get(debit.reference), debit);
}

/** Payouts the bank took in the window (by the ledger's word) that its statement lacked. */
async function payoutsOnly(deps: DayReportDeps, found: ReportCategories, runId: string, window: TimeWindow) {
  let after: After | undefined;
  for (;;) {
    const rows = await unseenPayouts(deps.storage.db, runId, window, after, PAGE);
    for (const payout of rows) {
      const state = await deps.bank.queryTransfer(payout.id);
      await comparePayout(
        deps,
        found,
        payout,
        state && { ...state, amount: Number(payout.amount), at: payout.submitted_at ?? "" },
      );
    }
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) return;
    after = { time: last.submitted_at ?? "", id: last.id };
  }
}

async function comparePayout(
  deps: DayReportDeps,
  found: ReportCategories,
  payout: PayoutRow | undefined,
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
    await deps.applyBankState({ reference: payout.id, status: debit.status, reason: debit.reason });
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

/** The stored summary: every category's count and sum, and the totals. */
export const summaryOf = (report: ReconciliationReport) => ({
  matched: report.matched,
  recovered: pick(report.recovered),
  missingAtBank: pick(report.missingAtBank),
  mismatched: pick(report.mismatched),
  notCredited: pick(report.notCredited),
  payoutsMatched: report.payoutsMatched,
  payoutStatusMismatch: pick(report.payoutStatusMismatch),
  ledgerTotal: report.ledgerTotal,
  bankTotal: report.bankTotal,
});

/** The stored items: each category's. */
export const itemsOf = (report: ReconciliationReport) => ({
  recovered: report.recovered.items,
  missingAtBank: report.missingAtBank.items,
  mismatched: report.mismatched.items,
  notCredited: report.notCredited.items,
  payoutStatusMismatch: report.payoutStatusMismatch.items,
});

const pick = ({ count, amount }: Tally) => ({ count, amount });
