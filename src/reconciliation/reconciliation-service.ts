import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import { SESSION_ID } from "../collections/validation.js";
import type { ForBusiness } from "../core/actor.js";
import type { Transaction } from "../core/api-types.js";
import { dayAfter, daysBefore, lagosDate, lagosDayWindow } from "../core/lagos-time.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import { statementPages } from "../providers/bank-statement.js";
import {
  claimJob,
  findReport,
  latestPerDay,
  listReports,
  recordJob,
  transactionsBySession,
} from "../storage/reconciliation-repository.js";
import { findTransactionBySession } from "../storage/transaction-repository.js";
import { type DayReportDeps, reconcileDay, type StoredSummary } from "./day-report.js";
import { ingestCredit, noteRecovery } from "./ingest.js";
import {
  type CreditItem,
  isReportDate,
  type PayoutItem,
  type ReconciliationReport,
  type Tally,
} from "./report.js";

// Reconciliation with the bank (issue 27, docs/ledger.md "Reconciliation"): a business's requery
// of one payment; the job that reads the bank's statement every interval and credits what no
// notification brought; each day's report once the day is over, and on demand.

export interface ReconciliationServiceOptions extends DayReportDeps {
  /** Whether an account number is one of the business's (current or retired). */
  issuedTo: (businessId: string, accountNumber: string) => Promise<boolean>;
  /** How often the job reads the statement (RECONCILE_INTERVAL_SECONDS). */
  intervalMs: number;
  now?: Clock;
}

/** The job's row in reconciliation_state. */
const JOB = "bank-statement";

/**
 * Each read of the statement goes back this far before the last one's end: a credit the bank
 * lists late (after its value time) is still read. A day is reported once it has been over this long.
 */
export const OVERLAP_MS = 10 * 60_000;

/** The claim's shortest lease; renewed after each hour of the statement and each day reported. */
const LEASE_MS = 5 * 60_000;

/** The statement is read an hour of value time at a time. */
const CHUNK_MS = 60 * 60_000;

/** The first read of a new service covers the day before it. */
const FIRST_WINDOW_MS = 24 * 60 * 60_000;

/** The most days the job catches up on after being stopped. */
const CATCH_UP_DAYS = 7;

/**
 * What a requery found: the transaction, and whether it was recorded before (`duplicate`, as
 * the ingestion path says it: the answer a request's unit of work stores is the ingestion's).
 */
export interface Requeried {
  transaction: Transaction;
  duplicate: boolean;
}

/** What one pass of the job did. */
export interface ReconcilePass {
  /** False when another process held the job. */
  ran: boolean;
  recovered: Transaction[];
  /** Credits at the bank the acceptance rules refused: for its operators (the day's report lists them). */
  refused: number;
  reports: ReconciliationReport[];
}

const notAtTheBank = (sessionId: string) =>
  new AppError(
    ErrorCode.TRANSACTION_NOT_FOUND,
    404,
    `No payment with session id ${sessionId} into your accounts: neither recorded nor known to the bank`,
  );

export class ReconciliationService {
  private readonly now: Clock;
  /** This process, as the job's claim names it. */
  private readonly owner = `proc_${randomUUID()}`;

  constructor(private readonly options: ReconciliationServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * POST /transactions/requery: the business's transaction with this session id; when only the
   * bank has it (into one of the business's accounts), it is ingested now. Anything not the
   * business's is 404, as if it did not exist.
   */
  async requery(business: ForBusiness, sessionId: string, unit?: UnitOfWork): Promise<Requeried> {
    if (!SESSION_ID.test(sessionId)) {
      throw validationFailed("sessionId must be 1 to 100 of A-Z a-z 0-9 . _ : -");
    }
    const { storage, bank, collections } = this.options;
    const recorded = await findTransactionBySession(storage.db, sessionId);
    if (recorded?.business_id === business.businessId) {
      return { transaction: await collections.getTransaction(business, recorded.id), duplicate: true };
    }
    // Another business's payment is asked of the bank all the same, so that the answer (404, or a
    // 502 while the bank is down) never tells that its session id exists.
    const credit = await bank.findCredit(sessionId);
    if (recorded || !credit || !(await this.options.issuedTo(business.businessId, credit.accountNumber))) {
      throw notAtTheBank(sessionId);
    }
    const received = await collections.receive(credit, unit);
    if (!received.duplicate) {
      await noteRecovery(storage, sessionId, received.transaction.id, "requery", () => isoNow(this.now));
    }
    return received;
  }

  /**
   * The job's pass: when this process can claim the job, reads the statement since the last
   * read (less the overlap) for credits the ledger lacks and ingests each, then reports every
   * day that ended since the last report. Two processes never read at once: the claim is a row.
   */
  async runPass(): Promise<ReconcilePass> {
    const { storage } = this.options;
    const started = this.now();
    const state = await claimJob(
      storage.db,
      JOB,
      this.owner,
      new Date(started).toISOString(),
      this.leaseEnd(),
    );
    const pass: ReconcilePass = { ran: state !== undefined, recovered: [], refused: 0, reports: [] };
    if (!state) return pass;
    try {
      // The statement since the last read, an hour at a time, each hour's end kept as it is done
      // (with the claim renewed): a failure, or a long outage's backlog, resumes where it stopped.
      let from = state.covered_to ? Date.parse(state.covered_to) - OVERLAP_MS : started - FIRST_WINDOW_MS;
      while (from < started) {
        const to = Math.min(from + CHUNK_MS, started);
        await this.recover({ from, to }, pass);
        if (!(await this.progress({ covered_to: new Date(to).toISOString() }))) return pass;
        from = to;
      }
      // The last day that has been over for the overlap, and those before it not reported yet.
      const lastDay = daysBefore(lagosDate(started - OVERLAP_MS));
      const firstDay = state.reported_through ? dayAfter(state.reported_through) : lastDay;
      const catchUpFrom = daysBefore(lastDay, CATCH_UP_DAYS - 1);
      for (let day = maxDate(firstDay, catchUpFrom); day <= lastDay; day = dayAfter(day)) {
        pass.reports.push(await this.reconcile(day, "scheduled"));
        if (!(await this.progress({ reported_through: day }))) return pass;
      }
    } finally {
      await recordJob(storage.db, JOB, this.owner, { release: true }, isoNow(this.now));
    }
    return pass;
  }

  /** When a claim taken or renewed now ends. */
  private leaseEnd(): string {
    return new Date(this.now() + Math.max(this.options.intervalMs * 4, LEASE_MS)).toISOString();
  }

  /** Records the job's progress and renews its claim; false when the claim was lost (this pass stops). */
  private progress(changes: { covered_to?: string; reported_through?: string }): Promise<boolean> {
    return recordJob(
      this.options.storage.db,
      JOB,
      this.owner,
      { ...changes, claimed_until: this.leaseEnd() },
      isoNow(this.now),
    );
  }

  /** Reads the statement of the window for credits the ledger lacks, and ingests each. */
  private async recover(window: { from: number; to: number }, pass: ReconcilePass): Promise<void> {
    const { storage, bank } = this.options;
    for await (const page of statementPages(bank, window)) {
      const sessionIds = page.credits.map((credit) => credit.sessionId);
      const recorded = new Set(
        (await transactionsBySession(storage.db, sessionIds)).map((row) => row.session_id),
      );
      for (const credit of page.credits) {
        if (recorded.has(credit.sessionId)) continue;
        const ingested = await ingestCredit(this.options, credit, "job", () => isoNow(this.now));
        if (ingested.kind === "recovered") pass.recovered.push(ingested.transaction);
        if (ingested.kind === "refused") pass.refused++;
      }
      // A long page of ingestions still holds the claim.
      if (!(await this.progress({}))) return;
    }
  }

  /**
   * Reconciles one day in Africa/Lagos (today: the day so far) and stores the report beside the
   * earlier ones. `vas reconcile --date` and the job call it.
   */
  async reconcile(date: string, trigger: ReconciliationReport["trigger"]): Promise<ReconciliationReport> {
    if (!isReportDate(date)) throw validationFailed("date must be a day, YYYY-MM-DD");
    const now = this.now();
    const day = lagosDayWindow(date);
    if (day.from > new Date(now).toISOString()) {
      throw validationFailed(`${date} has not begun in Africa/Lagos: reconcile today or an earlier day`);
    }
    const window = { from: day.from, to: new Date(Math.min(Date.parse(day.to), now)).toISOString() };
    const { storage, bank, collections, applyBankState } = this.options;
    return reconcileDay(
      { storage, bank, collections, applyBankState },
      { date, trigger, window, now: () => isoNow(this.now) },
    );
  }

  /** Stored reports, newest first (of one day, when given). */
  async reports(options: { date?: string; limit?: number } = {}): Promise<ReconciliationReport[]> {
    const rows = await listReports(this.options.storage.db, { ...options, limit: options.limit ?? 100 });
    return rows.map(reportOf);
  }

  async report(id: string): Promise<ReconciliationReport | undefined> {
    const row = await findReport(this.options.storage.db, id);
    return row && reportOf(row);
  }

  /** The newest report of each of the last `days` days that has a discrepancy: what the console's banner shows. */
  async needingAttention(days = 7): Promise<ReconciliationReport[]> {
    const since = daysBefore(lagosDate(this.now()), days - 1);
    return (await latestPerDay(this.options.storage.db, since))
      .filter((row) => row.discrepancies > 0)
      .map(reportOf);
  }
}

const maxDate = (a: string, b: string) => (a > b ? a : b);

/** A stored report as the domain reads it; read without its items (the banner), its categories have none. */
/** A report as stored: its summary and items as JSON (a day's latest is read without its items). */
interface StoredReport {
  id: string;
  date: string;
  trigger: ReconciliationReport["trigger"];
  windowFrom: string;
  windowTo: string;
  discrepancies: number;
  summary: string;
  items?: string;
  createdAt: string;
}

function reportOf(row: StoredReport): ReconciliationReport {
  const summary = JSON.parse(row.summary) as StoredSummary;
  const items = (row.items === undefined ? {} : JSON.parse(row.items)) as Partial<Record<string, unknown[]>>;
  const none = { count: 0, amount: 0 };
  const category = <I>(name: keyof StoredSummary) => ({
    ...((summary[name] as Tally | undefined) ?? none),
    items: (items[name] ?? []) as I[],
  });
  return {
    id: row.id,
    date: row.date,
    trigger: row.trigger,
    window: { from: row.windowFrom, to: row.windowTo },
    matched: summary.matched ?? none,
    recovered: category<CreditItem>("recovered"),
    missingAtBank: category<CreditItem>("missingAtBank"),
    mismatched: category<CreditItem>("mismatched"),
    notCredited: category<CreditItem>("notCredited"),
    payoutsMatched: summary.payoutsMatched ?? none,
    payoutStatusMismatch: category<PayoutItem>("payoutStatusMismatch"),
    ledgerTotal: summary.ledgerTotal ?? none,
    bankTotal: summary.bankTotal ?? none,
    headline: summary.headline ?? [],
    discrepancies: row.discrepancies,
    createdAt: row.createdAt,
  };
}
