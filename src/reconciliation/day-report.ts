import { randomUUID } from "node:crypto";
import type { After, TimeWindow } from "../core/time-window.js";
import { formatNaira } from "../ledger/kobo.js";
import type { TransactionRecord } from "../ledger/ledger-records.js";
import { statementPages } from "../providers/bank-statement.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import {
  conflictsIn,
  forgetSeen,
  insertReport,
  ledgerTotals,
  markSeen,
  recoveredAmong,
  transactionsBySession,
  unseenTransactions,
} from "../storage/reconciliation-repository.js";
import { alike, bankSide, ingestCredit, ledgerSide } from "./ingest.js";
import { compareDebits, payoutsOnly } from "./payout-comparison.js";
import {
  discrepancyCount,
  emptyCategories,
  type ReconciliationReport,
  record,
  type Tally,
  tally,
} from "./report.js";
import { type ConflictRow, type DayReportDeps, PAGE, type Run } from "./run.js";

// One day's reconciliation (issue 27): the bank's statement of the window, page by page, against
// the ledger; then the ledger's side of the window for what the statement lacked (read in SQL
// against what this run saw, never the whole day in memory); then the conflicts kept. A credit
// the ledger lacks is ingested on the way (recovered); a final payout status the ledger has not
// heard yet is applied through the tracker's path. The report is stored, never changed.

export type { DayReportDeps } from "./run.js";

/** The discrepancies a report's summary keeps for the console's banner. */
const HEADLINE = 3;

export async function reconcileDay(
  deps: DayReportDeps,
  run: { date: string; trigger: ReconciliationReport["trigger"]; window: TimeWindow; now: () => string },
): Promise<ReconciliationReport> {
  const runId = `rcn_${randomUUID().replaceAll("-", "")}`;
  const db = deps.storage.db;
  const conflicts = new Map<string, ConflictRow[]>();
  for (const conflict of await conflictsIn(db, run.window)) {
    conflicts.set(conflict.sessionId, [...(conflicts.get(conflict.sessionId) ?? []), conflict]);
  }
  const state: Run = { deps, found: emptyCategories(), conflicts, now: run.now };
  const bankTotal: Tally = { count: 0, amount: 0 };
  const statementWindow = { from: Date.parse(run.window.from), to: Date.parse(run.window.to) };
  try {
    for await (const page of statementPages(deps.bank, statementWindow)) {
      for (const credit of page.credits) tally(bankTotal, credit.amount);
      await compareCredits(state, page.credits);
      await markSeen(
        db,
        runId,
        "credit",
        page.credits.map((credit) => credit.sessionId),
      );
      await compareDebits(state, page.debits);
      await markSeen(
        db,
        runId,
        "debit",
        page.debits.map((debit) => debit.reference),
      );
    }
    await ledgerOnly(state, runId, run.window);
    await payoutsOnly(state, runId, run.window);
    // Conflicts whose credit was not compared above (a transaction of another day): counted now.
    for (const [sessionId, kept] of conflicts) {
      const [first] = kept;
      if (!first) continue;
      record(state.found.mismatched, Number(first.recordedAmount), {
        sessionId,
        businessId: first.businessId,
        transactionId: first.transactionId,
        ledger: {
          accountNumber: first.recordedAccountNumber,
          amount: Number(first.recordedAmount),
          currency: first.recordedCurrency,
          paidAt: first.valueAt,
        },
        bank: {
          accountNumber: first.accountNumber,
          amount: Number(first.amount),
          currency: first.currency,
          paidAt: first.valueAt,
        },
        note: conflictNote(kept),
      });
    }
    const { found } = state;
    const report: ReconciliationReport = {
      id: runId,
      date: run.date,
      trigger: run.trigger,
      window: run.window,
      ...found,
      ledgerTotal: await ledgerTotals(db, run.window),
      bankTotal,
      headline: [...found.missingAtBank.items, ...found.mismatched.items].slice(0, HEADLINE),
      discrepancies: discrepancyCount(found),
      createdAt: run.now(),
    };
    await insertReport(db, {
      id: report.id,
      date: report.date,
      trigger: report.trigger,
      windowFrom: report.window.from,
      windowTo: report.window.to,
      discrepancies: report.discrepancies,
      summary: JSON.stringify(summaryOf(report)),
      items: JSON.stringify(itemsOf(report)),
      createdAt: report.createdAt,
    });
    return report;
  } finally {
    await forgetSeen(db, runId);
  }
}

/** What the kept conflicts of one session id said, in an operator's words. */
const conflictNote = (kept: ConflictRow[]) =>
  `${kept.length === 1 ? "a notification" : `${kept.length} notifications`} with other details (${kept
    .map(
      (c) =>
        `${c.currency === "NGN" ? formatNaira(Number(c.amount)) : `${c.amount} (${c.currency})`} into ${c.accountNumber}`,
    )
    .join("; ")}) came, the first at ${kept[0]?.firstSeenAt.slice(0, 19).replace("T", " ")} UTC, kept as ` +
  `conflict${kept.length === 1 ? "" : "s"}; the first recording stands`;

/** The statement's credits against the ledger: alike, other, or missing (then ingested). */
async function compareCredits(run: Run, credits: TransferNotification[]) {
  const db = run.deps.storage.db;
  const sessionIds = credits.map((credit) => credit.sessionId);
  const [rows, recovered] = await Promise.all([
    transactionsBySession(db, sessionIds),
    recoveredAmong(db, sessionIds),
  ]);
  const recorded = new Map(rows.map((row) => [row.session_id, row]));
  for (const credit of credits) {
    const row = recorded.get(credit.sessionId);
    if (row) {
      compareOne(run, credit, row, recovered.has(credit.sessionId));
      continue;
    }
    const ingested = await ingestCredit(run.deps, credit, "report", run.now);
    const item = { sessionId: credit.sessionId, bank: bankSide(credit) };
    switch (ingested.kind) {
      case "recovered":
        record(run.found.recovered, credit.amount, {
          ...item,
          businessId: null,
          transactionId: ingested.transaction.id,
          ledger: null,
          note: "its notification never came: credited now, by this report, from the bank's statement",
        });
        break;
      case "duplicate":
        tally(run.found.matched, credit.amount);
        break;
      case "refused":
        record(run.found.notCredited, credit.amount, {
          ...item,
          businessId: null,
          transactionId: null,
          ledger: null,
          note: `${ingested.reason} (${ingested.code}): the bank holds the money and must return it to the payer`,
        });
        break;
      case "conflict":
        // Recorded meanwhile with other details: kept as a conflict, in the next report.
        break;
    }
  }
}

/** A credit both have: matched, recovered earlier, or mismatched (a kept conflict included). */
function compareOne(run: Run, credit: TransferNotification, row: TransactionRecord, recovered: boolean) {
  const kept = run.conflicts.get(credit.sessionId);
  run.conflicts.delete(credit.sessionId);
  const item = {
    sessionId: credit.sessionId,
    businessId: row.business_id,
    transactionId: row.id,
    ledger: ledgerSide(row),
    bank: bankSide(credit),
  };
  if (!alike(credit, row)) {
    const note = "the bank's statement has this session id with another account, amount or currency";
    record(run.found.mismatched, Number(row.amount), {
      ...item,
      note: kept ? `${note}; ${conflictNote(kept)}` : note,
    });
  } else if (kept) {
    record(run.found.mismatched, Number(row.amount), {
      ...item,
      note: `the bank's statement agrees with the ledger, but ${conflictNote(kept)}: ask the bank which is right`,
    });
  } else if (recovered) {
    record(run.found.recovered, credit.amount, {
      ...item,
      note: "its notification never came: credited from the bank's statement (the job or a requery)",
    });
  } else tally(run.found.matched, credit.amount);
}

/** The ledger's transactions of the window the statement lacked: asked of the bank one by one, then missing. */
async function ledgerOnly(run: Run, runId: string, window: TimeWindow) {
  const db = run.deps.storage.db;
  let after: After | undefined;
  for (;;) {
    const rows = await unseenTransactions(db, runId, window, after, PAGE);
    for (const row of rows) {
      // Listed under another day, or on a later page than it was read: the bank's query is the word.
      const credit = await run.deps.bank.findCredit(row.session_id);
      if (credit) {
        compareOne(run, credit, row, (await recoveredAmong(db, [row.session_id])).has(row.session_id));
        continue;
      }
      const kept = run.conflicts.get(row.session_id);
      run.conflicts.delete(row.session_id);
      record(run.found.missingAtBank, Number(row.amount), {
        sessionId: row.session_id,
        businessId: row.business_id,
        transactionId: row.id,
        ledger: ledgerSide(row),
        bank: null,
        note:
          "credited in the ledger; the bank's statement and its query have no such credit" +
          (kept ? `; ${conflictNote(kept)}` : ""),
      });
    }
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) return;
    after = { time: last.value_at, id: last.session_id };
  }
}

/** The stored summary: every category's count and sum, the totals, and the first discrepancies (the banner's). */
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
  headline: report.headline,
});
export type StoredSummary = Partial<ReturnType<typeof summaryOf>>;

/** The stored items: each category's. */
export const itemsOf = (report: ReconciliationReport) => ({
  recovered: report.recovered.items,
  missingAtBank: report.missingAtBank.items,
  mismatched: report.mismatched.items,
  notCredited: report.notCredited.items,
  payoutStatusMismatch: report.payoutStatusMismatch.items,
});

const pick = ({ count, amount }: Tally) => ({ count, amount });
