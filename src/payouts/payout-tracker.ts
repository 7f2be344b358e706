import { type Clock, isoNow } from "../clock.js";
import { ErrorCode, isAppError } from "../errors.js";
import { Kicker } from "../jobs/kicker.js";
import type { PayoutRecord } from "../ledger/ledger-records.js";
import type { BankPayoutState, PayoutRail } from "../providers/payout-rail.js";
import type { Storage } from "../storage/database.js";
import { claimCheck, duePayouts, scheduleCheck, stuckPayouts } from "../storage/payout-checks.js";
import { withCode } from "./payout-model.js";
import type { PayoutService } from "./payout-service.js";

// The tracker: every pending payout is asked about until the bank gives a final answer. A payout
// held but not yet sent is sent; one the bank has is queried; one the bank says it never got
// (its transfer was lost on the way) is sent again under the same reference, which the bank
// executes at most once; one the bank answered before and now says it never got is not sent again.
// Never a new reference, never given up on: a payout pending longer than PAYOUT_STUCK_MINUTES is
// counted as stuck (metrics, the console), and one the bank's status queries left unresolved
// PAYOUT_ATTENTION_QUERIES times needs attention (the console, with the NIP codes seen); both are
// still asked about. What is final and what is unknown is the NIP codes' table (providers/nip.ts).

/** How long a check holds a payout before another process may take it (a process that died). */
export const CHECK_LEASE_MS = 60_000;
/** The longest wait between two checks of one payout. */
export const MAX_CHECK_DELAY_MS = 5 * 60_000;
const BATCH = 32;

/** The wait after the `checks`-th check that left a payout pending: doubling from `baseMs`, capped. */
export function checkDelay(checks: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(Math.max(checks - 1, 0), 20), MAX_CHECK_DELAY_MS);
}

export interface PayoutTrackerOptions {
  storage: Storage;
  rail: PayoutRail;
  payouts: PayoutService;
  /** The first wait between checks (PAYOUT_CHECK_INTERVAL_MS). */
  checkIntervalMs: number;
  /** A payout pending longer than this is stuck (PAYOUT_STUCK_MINUTES). */
  stuckAfterMs: number;
  /** Told how many payouts are stuck after each run (the metric). */
  onStuck?: (count: number) => void;
  /** Status queries left unresolved before a payout needs attention (PAYOUT_ATTENTION_QUERIES, 5). */
  attentionAfterQueries: number;
  /** Told each time a payout is marked as needing attention (the metric). */
  onAttention?: () => void;
  now?: Clock;
}

/** Where the tracker says what went wrong (the server's log). */
export interface TrackerLog {
  warn(details: object, message: string): void;
}

export class PayoutTracker {
  private readonly now: Clock;
  private log: TrackerLog = { warn: () => {} };
  private readonly kicker = new Kicker(
    () => this.run(),
    (error) => this.log.warn({ err: error }, "payout check failed"),
  );

  constructor(private readonly options: PayoutTrackerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Logs to the server's log (the services are made before it). */
  useLog(log: TrackerLog): void {
    this.log = log;
  }

  /** Checks the due payouts now, not at the next interval (a payout just held). */
  kick(): void {
    this.kicker.kick();
  }

  /** Waits for a pass in flight (shutdown, tests). */
  idle(): Promise<void> {
    return this.kicker.idle();
  }

  /** One pass: every due payout checked once, then the stuck ones counted. */
  async run(): Promise<void> {
    const { storage } = this.options;
    for (;;) {
      const due = await duePayouts(storage.db, isoNow(this.now), BATCH);
      const mine: PayoutRecord[] = [];
      const until = new Date(this.now() + CHECK_LEASE_MS).toISOString();
      for (const row of due) {
        if (row.next_check_at !== null && (await claimCheck(storage.db, row.id, row.next_check_at, until)))
          mine.push(row);
      }
      await Promise.all(mine.map((row) => this.check(row)));
      if (due.length < BATCH) break;
    }
    if (this.options.onStuck) {
      const before = new Date(this.now() - this.options.stuckAfterMs).toISOString();
      this.options.onStuck((await stuckPayouts(storage.db, before, 1_000)).length);
    }
  }

  /** Asks the bank about one payout, and applies a final answer or schedules the next check. */
  private async check(row: PayoutRecord): Promise<void> {
    const { rail, payouts, storage } = this.options;
    let state: BankPayoutState | undefined;
    let answered = true;
    try {
      if (row.checks > 0) state = await rail.queryTransfer(row.id);
    } catch (error) {
      // Not even a question answered: nothing is known, nothing is sent; ask again later.
      answered = false;
      this.log.warn({ err: error, payoutId: row.id }, "the bank could not say where a payout stands");
    }
    if (answered && state === undefined && row.submitted_at !== null) {
      // The bank answered this transfer before and now says it has none: not a transfer lost on
      // the way, so never sent again (a second transfer could pay twice); an operator looks.
      answered = false;
      this.log.warn({ payoutId: row.id }, "the bank no longer knows a transfer it answered: not sent again");
    }
    if (answered && state === undefined) {
      try {
        // Never sent, or the bank never got it: send it, under the same reference.
        state = await rail.transferOut({
          reference: row.id,
          amount: Number(row.amount),
          bankCode: row.bank_code,
          accountNumber: row.account_number,
          accountName: row.account_name,
          narration: row.narration,
        });
      } catch (error) {
        if (isAppError(error) && error.code === ErrorCode.PROVIDER_REJECTED) {
          // The bank refused the transfer itself: it did not act, and will not.
          state = { reference: row.id, status: "failed", reason: error.message, sessionId: null, code: null };
        } else {
          this.log.warn({ err: error, payoutId: row.id }, "the bank could not take a payout yet");
        }
      }
    }
    if (state && state.status !== "pending") {
      await payouts.applyBankState(state);
      return;
    }
    const checks = row.checks + 1;
    const codes = withCode(row.nip_codes, state?.code ?? null);
    // The first check sends the transfer; every later one is a status query. A payout still
    // unresolved after the last of `attentionAfter` queries needs an operator: marked once, and
    // still asked about (never given up on, never sent twice).
    const attention =
      row.attention_at === null && checks - 1 >= this.options.attentionAfterQueries
        ? isoNow(this.now)
        : undefined;
    await scheduleCheck(storage.db, row.id, {
      nextCheckAt: new Date(this.now() + checkDelay(checks, this.options.checkIntervalMs)).toISOString(),
      checks,
      ...(state && row.submitted_at === null ? { submittedAt: isoNow(this.now) } : {}),
      ...(state?.sessionId && row.session_id === null ? { sessionId: state.sessionId } : {}),
      ...(codes !== row.nip_codes && codes !== null ? { nipCodes: codes } : {}),
      ...(attention ? { attentionAt: attention } : {}),
    });
    if (attention) {
      this.options.onAttention?.();
      this.log.warn(
        { payoutId: row.id, businessId: row.business_id, queries: checks - 1, codes: codes ?? "none" },
        "payout needs attention: unresolved after the bank was asked again and again",
      );
    }
  }
}
