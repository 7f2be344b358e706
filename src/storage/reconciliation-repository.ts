import { type Selectable, type SqlBool, sql } from "kysely";
import type { After, TimeWindow } from "../core/time-window.js";
import type { Executor } from "./executor.js";
import { afterRow } from "./keyset.js";

import type { PayoutsTable } from "./schema-payouts.js";
import type { ReconciliationSeenTable, ReconciliationStateTable } from "./schema-reconciliation.js";
import type { TransactionRow } from "./transaction-repository.js";

// Reconciliation's reads and writes (issue 27): the job's claim on the bank's statement, the
// reports (append-only), what a run saw at the bank, and the ledger's side of a window.

export type ReconciliationStateRow = Selectable<ReconciliationStateTable>;
export type PayoutRow = Selectable<PayoutsTable>;

/**
 * Claims the job for `owner` until `until`, when no other process holds an unexpired claim;
 * answers the job's state, or undefined when another holds it.
 */
export async function claimJob(
  db: Executor,
  name: string,
  owner: string,
  now: string,
  until: string,
): Promise<ReconciliationStateRow | undefined> {
  await db
    .insertInto("reconciliation_state")
    .values({ name, updated_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  return db
    .updateTable("reconciliation_state")
    .set({ claimed_by: owner, claimed_until: until, updated_at: now })
    .where("name", "=", name)
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
    .returningAll()
    .executeTakeFirst();
}

/** Records the job's progress under `owner`'s claim (false: the claim was lost); `release` ends the claim. */
export async function recordJob(
  db: Executor,
  name: string,
  owner: string,
  changes: { covered_to?: string; reported_through?: string; claimed_until?: string; release?: boolean },
  now: string,
): Promise<boolean> {
  const { release, ...progress } = changes;
  const result = await db
    .updateTable("reconciliation_state")
    .set({ ...progress, updated_at: now, ...(release ? { claimed_by: null, claimed_until: null } : {}) })
    .where("name", "=", name)
    .where("claimed_by", "=", owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The transactions recorded for these session ids (any business). */
export function transactionsBySession(
  db: Executor,
  sessionIds: readonly string[],
): Promise<TransactionRow[]> {
  if (sessionIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("transactions").selectAll().where("session_id", "in", sessionIds).execute();
}

/** The payouts with these ids (any business). */
export function payoutsByIds(db: Executor, ids: readonly string[]): Promise<PayoutRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("payouts").selectAll().where("id", "in", ids).execute();
}

/** Records what a run found at the bank (each once). */
export async function markSeen(
  db: Executor,
  runId: string,
  kind: ReconciliationSeenTable["kind"],
  refs: readonly string[],
): Promise<void> {
  if (refs.length === 0) return;
  await db
    .insertInto("reconciliation_seen")
    .values(refs.map((ref) => ({ run_id: runId, kind, ref })))
    .onConflict((oc) => oc.columns(["run_id", "kind", "ref"]).doNothing())
    .execute();
}

/** Drops a run's record of what it saw (its report holds what it concluded). */
export async function forgetSeen(db: Executor, runId: string): Promise<void> {
  await db.deleteFrom("reconciliation_seen").where("run_id", "=", runId).execute();
}

/** Not among what the run saw at the bank. */
const notSeen = (runId: string, kind: ReconciliationSeenTable["kind"], column: string) =>
  sql<SqlBool>`not exists (select 1 from reconciliation_seen s where s.run_id = ${runId} and s.kind = ${kind} and s.ref = ${sql.ref(column)})`;

/** Transactions with value times in the window that the run did not see at the bank, in (value time, session id) order. */
export function unseenTransactions(
  db: Executor,
  runId: string,
  window: TimeWindow,
  after: After | undefined,
  limit: number,
): Promise<TransactionRow[]> {
  return db
    .selectFrom("transactions as t")
    .selectAll("t")
    .where("t.value_at", ">=", window.from)
    .where("t.value_at", "<", window.to)
    .$if(after !== undefined, (query) => query.where(afterRow("t.value_at", "t.session_id", after as After)))
    .where(notSeen(runId, "credit", "t.session_id"))
    .orderBy("t.value_at")
    .orderBy("t.session_id")
    .limit(limit)
    .execute();
}

/** Payouts made in the window that the run did not see at the bank. */
export function unseenPayouts(
  db: Executor,
  runId: string,
  window: TimeWindow,
  after: After | undefined,
  limit: number,
): Promise<PayoutRow[]> {
  return db
    .selectFrom("payouts as p")
    .selectAll("p")
    .where("p.created_at", ">=", window.from)
    .where("p.created_at", "<", window.to)
    .$if(after !== undefined, (query) => query.where(afterRow("p.created_at", "p.id", after as After)))
    .where(notSeen(runId, "debit", "p.id"))
    .orderBy("p.created_at")
    .orderBy("p.id")
    .limit(limit)
    .execute();
}

/** The count and sum in kobo of the transactions with value times in the window. */
export async function ledgerTotals(
  db: Executor,
  window: TimeWindow,
): Promise<{ count: number; amount: number }> {
  const row = await db
    .selectFrom("transactions")
    .select(({ fn }) => [
      fn.countAll<string | number>().as("count"),
      fn.sum<string | number | null>("amount").as("amount"),
    ])
    .where("value_at", ">=", window.from)
    .where("value_at", "<", window.to)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), amount: Number(row.amount ?? 0) };
}

/**
 * The kept conflicts of transactions with value times in the window, and those seen in the window
 * (a conflict that comes after its day's report is in the report of the day it came): what the
 * bank said, and what was recorded.
 */
export function conflictsIn(db: Executor, window: TimeWindow) {
  return db
    .selectFrom("transfer_conflicts as c")
    .innerJoin("transactions as t", "t.id", "c.transaction_id")
    .select([
      "c.session_id as sessionId",
      "c.business_id as businessId",
      "c.account_number as accountNumber",
      "c.amount",
      "c.currency",
      "c.first_seen_at as firstSeenAt",
      "t.id as transactionId",
      "t.account_number as recordedAccountNumber",
      "t.amount as recordedAmount",
      "t.currency as recordedCurrency",
      "t.value_at as valueAt",
    ])
    .where((eb) =>
      eb.or([
        eb.and([eb("t.value_at", ">=", window.from), eb("t.value_at", "<", window.to)]),
        eb.and([eb("c.last_seen_at", ">=", window.from), eb("c.last_seen_at", "<", window.to)]),
      ]),
    )
    .orderBy("t.value_at")
    .orderBy("c.session_id")
    .execute();
}

/** A report stored, given in the domain's names (its summary and items as JSON): its columns mapped once. */
export async function insertReport(
  db: Executor,
  report: {
    id: string;
    date: string;
    trigger: "scheduled" | "manual";
    windowFrom: string;
    windowTo: string;
    discrepancies: number;
    summary: string;
    items: string;
    createdAt: string;
  },
): Promise<void> {
  await db
    .insertInto("reconciliation_reports")
    .values({
      id: report.id,
      date: report.date,
      trigger: report.trigger,
      window_from: report.windowFrom,
      window_to: report.windowTo,
      discrepancies: report.discrepancies,
      summary: report.summary,
      items: report.items,
      created_at: report.createdAt,
    })
    .execute();
}

// A stored report as the domain reads it, in its names (the columns aliased); the items apart.
const REPORT = [
  "id",
  "date",
  "trigger",
  "window_from as windowFrom",
  "window_to as windowTo",
  "discrepancies",
  "summary",
  "created_at as createdAt",
] as const;

export function findReport(db: Executor, id: string) {
  return db
    .selectFrom("reconciliation_reports")
    .select([...REPORT, "items"])
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Reports, newest first: of one day, or of every day. */
export function listReports(db: Executor, options: { date?: string; limit: number }) {
  return db
    .selectFrom("reconciliation_reports")
    .select([...REPORT, "items"])
    .$if(options.date !== undefined, (query) => query.where("date", "=", options.date ?? ""))
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(options.limit)
    .execute();
}

/** The newest report of each day from `sinceDate` on, newest day first, without its items (its summary has the first few). */
export async function latestPerDay(db: Executor, sinceDate: string) {
  const rows = await db
    .selectFrom("reconciliation_reports")
    .select(REPORT)
    .where("date", ">=", sinceDate)
    .orderBy("date", "desc")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.date) && seen.add(row.date));
}

/** Notes a credit found at the bank that no notification brought (once per session id), given in the domain's names. */
export async function noteRecovered(
  db: Executor,
  recovery: {
    sessionId: string;
    transactionId: string;
    via: "job" | "requery" | "report";
    recoveredAt: string;
  },
): Promise<void> {
  await db
    .insertInto("reconciliation_recoveries")
    .values({
      session_id: recovery.sessionId,
      transaction_id: recovery.transactionId,
      via: recovery.via,
      recovered_at: recovery.recoveredAt,
    })
    .onConflict((oc) => oc.column("session_id").doNothing())
    .execute();
}

/** Which of these session ids were recovered from the bank rather than notified. */
export async function recoveredAmong(db: Executor, sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("reconciliation_recoveries")
    .select("session_id")
    .where("session_id", "in", sessionIds)
    .execute();
  return new Set(rows.map((row) => row.session_id));
}
