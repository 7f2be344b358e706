import type { CollectionService } from "../collections/collection-service.js";
import type { BankStatement } from "../providers/bank-statement.js";
import type { BankPayoutState, PayoutRail } from "../providers/payout-rail.js";
import type { Storage } from "../storage/database.js";
import type { conflictsIn } from "../storage/reconciliation-repository.js";
import type { ReportCategories } from "./report.js";

// What one run of a day's reconciliation works with: its parts, its categories as they fill,
// the window's kept conflicts not yet counted, its clock (day-report.ts, payout-comparison.ts).

export interface DayReportDeps {
  storage: Storage;
  bank: BankStatement & Pick<PayoutRail, "queryTransfer">;
  collections: CollectionService;
  /** Applies a transfer out's state as the bank reports it (the tracker's path). */
  applyBankState: (state: BankPayoutState) => Promise<unknown>;
}

/** Rows of the ledger read at a time for what the bank lacked. */
export const PAGE = 500;

/** What one run carries while it reads: its categories, the conflicts not yet counted, its clock. */
export interface Run {
  deps: DayReportDeps;
  found: ReportCategories;
  /** The window's kept conflicts by session id: each counted once, with its credit when the statement has it. */
  conflicts: Map<string, ConflictRow[]>;
  now: () => string;
}

export type ConflictRow = Awaited<ReturnType<typeof conflictsIn>>[number];
