import type { Clock } from "../clock.js";
import type { Pagination } from "../core/api-types.js";
import type { DeadlineMissRecord } from "../core/deadline-miss.js";
import type { Storage } from "../storage/database.js";
import {
  closeReturn,
  countMisses,
  creditsAfter,
  creditsPending,
  markCredits,
  markReturns,
  missPage,
  pendingHeldBefore,
  recordMisses,
  returnsAfter,
  returnsMark,
  setPaidRisksAside,
} from "../storage/deadline-repository.js";
import { isLate, lateBy } from "./deadlines.js";

// The CBN's instant-transfer deadlines (2018), watched (issue 46, item 3): a credit applied later
// than DEADLINE_CREDIT_MINUTES after the bank's paid time, and a payout (a refund, a settlement)
// whose money was not back in the business's available balance DEADLINE_RETURN_HOURS after its
// hold. Each item is recorded once when found (the console's list, the metrics, one alert line in
// the log, by whichever process recorded it); nothing runs on the transfer's path: the watch
// reads each business's credits past its mark, by ordinal, in a job.

const BATCH = 500;
/**
 * The returns' scan reads again this far before its mark: a posting committed after a later one
 * (two processes) is still read. Returns are few; reading them twice records nothing twice.
 */
const RETURNS_OVERLAP_MS = 10 * 60_000;

/** Which misses of a kind: all, those over (ended), or those still open (a payout's money not back). */
export type MissState = "all" | "ended" | "open";

/** A deadline missed, as the console lists it: the record, and how late. */
export interface DeadlineMiss extends DeadlineMissRecord {
  /** How much later than its start it ended (or is, now, while open), in milliseconds. */
  lateMs: number;
}

/** A payout's money, held at `heldAt`, as storage reads it for the returns. */
interface HeldPayout {
  payoutId: string;
  businessId: string;
  amount: number | string;
  reference: string;
  /** Its transfer's NIP session id (null: the bank gave none yet). */
  sessionId: string | null;
  status: string;
  heldAt: string;
}

/** A payout's miss: back at `endedAt`, or not back (null) when found at `foundAt`. */
const returnMiss = (row: HeldPayout, endedAt: string | null, foundAt: string): DeadlineMiss => ({
  kind: "return",
  itemId: row.payoutId,
  businessId: row.businessId,
  amount: Number(row.amount),
  sessionId: row.sessionId,
  reference: row.reference,
  status: row.status,
  startedAt: row.heldAt,
  endedAt,
  foundAt,
  lateMs: lateBy(row.heldAt, endedAt ?? foundAt),
});

/** What a pass found: the misses this process recorded (each alerted once), and the ones closed. */
export interface DeadlinePass {
  lateCredits: DeadlineMiss[];
  /** Payouts whose money came back late (found already back). */
  lateReturns: DeadlineMiss[];
  /** Payouts held past the deadline whose money is not back yet. */
  atRisk: DeadlineMiss[];
  /** At-risk payouts whose money came back since (late). */
  closed: { payoutId: string; returnedAt: string; status: string }[];
  /** Payouts at risk now (after the pass). */
  openReturns: number;
}

/** Where the watch says what it found (the server's log). */
export interface DeadlineLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface DeadlineWatchOptions {
  storage: Storage;
  /** DEADLINE_CREDIT_MINUTES, in milliseconds. */
  creditLateMs: number;
  /** DEADLINE_RETURN_HOURS, in milliseconds. */
  returnLateMs: number;
  now?: Clock;
}

export class DeadlineWatch {
  private readonly now: Clock;
  readonly creditLateMs: number;
  readonly returnLateMs: number;

  constructor(private readonly options: DeadlineWatchOptions) {
    this.now = options.now ?? Date.now;
    this.creditLateMs = options.creditLateMs;
    this.returnLateMs = options.returnLateMs;
  }

  /** One pass: the new credits, the returns since the mark, the payouts held too long. */
  async run(): Promise<DeadlinePass> {
    const lateCredits = await this.credits();
    const { lateReturns, closed } = await this.returns();
    const atRisk = await this.risks();
    const openReturns = await countMisses(this.options.storage.db, "return", "open");
    return { lateCredits, lateReturns, atRisk, closed, openReturns };
  }

  /** A page of misses of a kind (`open`: payouts whose money is not back), the latest found first. */
  async list(
    kind: "credit" | "return",
    state: MissState,
    page: number,
    limit: number,
  ): Promise<{ items: DeadlineMiss[]; pagination: Pagination }> {
    const db = this.options.storage.db;
    const total = await countMisses(db, kind, state);
    const pages = Math.ceil(total / limit);
    const rows = total > 0 ? await missPage(db, kind, state, (page - 1) * limit, limit) : [];
    const now = new Date(this.now()).toISOString();
    const items = rows.map(
      (row): DeadlineMiss => ({
        ...row,
        amount: Number(row.amount),
        lateMs: lateBy(row.startedAt, row.endedAt ?? now),
      }),
    );
    return { items, pagination: { page, limit, total, pages } };
  }

  /** How many misses there are: late credits, late returns (back), and payouts at risk (not back). */
  async counts(): Promise<{ lateCredits: number; lateReturns: number; atRisk: number }> {
    const db = this.options.storage.db;
    const [lateCredits, lateReturns, atRisk] = await Promise.all([
      countMisses(db, "credit", "all"),
      countMisses(db, "return", "ended"),
      countMisses(db, "return", "open"),
    ]);
    return { lateCredits, lateReturns, atRisk };
  }

  private async credits(): Promise<DeadlineMiss[]> {
    const db = this.options.storage.db;
    const found: DeadlineMiss[] = [];
    for (const business of await creditsPending(db)) {
      let after = business.through;
      for (;;) {
        const rows = await creditsAfter(db, business.businessId, after, BATCH);
        const foundAt = new Date(this.now()).toISOString();
        const late = rows
          .filter((row) => isLate(row.paidAt, row.appliedAt, this.creditLateMs))
          .map(
            (row): DeadlineMiss => ({
              kind: "credit",
              itemId: row.id,
              businessId: row.businessId,
              amount: Number(row.amount),
              sessionId: row.sessionId,
              reference: null,
              status: "successful",
              startedAt: row.paidAt,
              endedAt: row.appliedAt,
              foundAt,
              lateMs: lateBy(row.paidAt, row.appliedAt),
            }),
          );
        const recorded = await recordMisses(db, late);
        found.push(...late.filter((miss) => recorded.has(miss.itemId)));
        const last = rows.at(-1);
        if (last) {
          after = Number(last.ordinal);
          await markCredits(db, business.businessId, after);
        }
        if (rows.length < BATCH) break;
      }
    }
    return found;
  }

  private async returns(): Promise<Pick<DeadlinePass, "lateReturns" | "closed">> {
    const db = this.options.storage.db;
    const lateReturns: DeadlineMiss[] = [];
    const closed: DeadlinePass["closed"] = [];
    const mark = await returnsMark(db);
    let after = mark
      ? { at: new Date(Date.parse(mark.at) - RETURNS_OVERLAP_MS).toISOString(), id: "" }
      : undefined;
    for (;;) {
      const rows = await returnsAfter(db, after, BATCH);
      const foundAt = new Date(this.now()).toISOString();
      for (const row of rows) {
        if (!isLate(row.heldAt, row.returnedAt, this.returnLateMs)) continue;
        const back = { endedAt: row.returnedAt, status: row.status, sessionId: row.sessionId };
        if (await closeReturn(db, row.payoutId, back)) {
          closed.push({ payoutId: row.payoutId, returnedAt: row.returnedAt, status: row.status });
          continue;
        }
        const miss = returnMiss(row, row.returnedAt, foundAt);
        if ((await recordMisses(db, [miss])).has(miss.itemId)) lateReturns.push(miss);
      }
      const last = rows.at(-1);
      if (last) {
        after = { at: last.returnedAt, id: last.postingId };
        if (!mark || after.at > mark.at || (after.at === mark.at && after.id > mark.id))
          await markReturns(db, after);
      }
      if (rows.length < BATCH) return { lateReturns, closed };
    }
  }

  private async risks(): Promise<DeadlineMiss[]> {
    const db = this.options.storage.db;
    await setPaidRisksAside(db);
    const now = this.now();
    const before = new Date(now - this.returnLateMs).toISOString();
    const foundAt = new Date(now).toISOString();
    const found: DeadlineMiss[] = [];
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const rows = await pendingHeldBefore(db, before, after, BATCH);
      const open = rows.map((row) => returnMiss(row, null, foundAt));
      const recorded = await recordMisses(db, open);
      found.push(...open.filter((miss) => recorded.has(miss.itemId)));
      const last = rows.at(-1);
      if (!last || rows.length < BATCH) break;
      after = { at: last.heldAt, id: last.payoutId };
    }
    return found;
  }
}
