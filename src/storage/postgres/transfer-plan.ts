import type { LedgerAccountKind } from "../../ledger/kinds.js";
import type { AccountHead } from "../../ledger/posting.js";
import type { TransactionRow } from "../transaction-repository.js";
import {
  conflictRow,
  destination,
  type FoundRow,
  type HeadRow,
  headMap,
  type LedgerState,
  type TransferDecisions,
  type TransferKeys,
  type TransferOutcome,
  type TransferPosting,
} from "../transfer-writes.js";
import type { AnswerRecords, UnitOfWork } from "../unit-of-work.js";
import type { endpointsRead } from "./event-writes.js";
import { inlineStatement } from "./inline.js";
import { RECORD_TRANSFER_CONFLICT } from "./transfer-posting.js";

/** A transfer to ingest: what storage looks it up by, the domain's decisions, the request's unit. */
export interface TransferItem {
  transfer: TransferKeys;
  decide: TransferDecisions<unknown>;
  unit: UnitOfWork | undefined;
}

/** How a transfer ended: an outcome to answer, or an error to throw. */
export type Settled = { outcome: TransferOutcome<unknown> } | { error: unknown };

/** What vas_transfer_lookups answers (migration 0036). */
export interface Lookups {
  existing: TransactionRow[];
  found: Array<FoundRow & { looked_up_number: string }>;
  heads: Array<HeadRow & { business_id: string }>;
  last: Array<{ business_id: string; ordinal: number; created_at: string }>;
}

/** What the batch writes for a transfer, and what it is answered once the batch commits. */
export interface Written {
  index: number;
  outcome: TransferOutcome<unknown>;
  /** A conflict kept: its statement. */
  statement?: string;
  /** A posting: written with the batch's others (POST_TRANSFERS), with its request's records. */
  posting?: TransferPosting<unknown>;
  answer?: AnswerRecords | undefined;
  /** The endpoints a posting's event is for. */
  targets: string[];
}

/** A batch's decisions: what it writes, what is settled without a write, what goes alone after it. */
export interface Plan {
  written: Written[];
  /** Transfers to ingest alone after the batch: another business's number. */
  deferred: number[];
  /** By index: settled without a write (a duplicate, a refusal), or once the batch committed. */
  settled: Array<Settled | undefined>;
}

export const emptyPlan = (size: number): Plan => ({
  written: [],
  deferred: [],
  settled: new Array<Settled | undefined>(size),
});

/**
 * Each transfer decided in the batch's order, as it would be alone, on what the look-up read and
 * what the ones before it posted (the business's heads and newest transaction, the account's
 * totals). Duplicates and refusals are settled here; the rest become statements. `business` is the
 * batch's (undefined: the number is nobody's, and the decision refuses it).
 */
export function decideAll(
  business: string | undefined,
  items: readonly TransferItem[],
  lookups: Lookups,
  endpoints: ReturnType<typeof endpointsRead>,
  plan: Plan,
): void {
  const existing = new Map(lookups.existing.map((row) => [row.session_id, row]));
  const found = new Map(lookups.found.map(({ looked_up_number, ...row }) => [looked_up_number, row]));
  let heads: Map<LedgerAccountKind, AccountHead> = headMap(
    lookups.heads.filter((head) => head.business_id === business),
  );
  const newest = lookups.last.find((last) => last.business_id === business);
  let last: LedgerState["last"] = newest && { ordinal: newest.ordinal, created_at: newest.created_at };
  const totals = new Map<
    string,
    Pick<FoundRow, "total_received" | "transfer_count" | "received_day" | "received_on_day">
  >();
  for (const [index, { transfer, decide, unit }] of items.entries()) {
    try {
      const recorded = existing.get(transfer.sessionId);
      if (recorded) {
        const seen = decide.again(recorded);
        if ("duplicate" in seen) plan.settled[index] = { outcome: { result: seen.duplicate } };
        else {
          const statement = inlineStatement(RECORD_TRANSFER_CONFLICT, conflictRow(seen.conflict));
          plan.written.push({ index, statement, outcome: seen, targets: [] });
        }
        continue;
      }
      const row = found.get(transfer.accountNumber);
      if (row && row.business_id !== business) {
        plan.deferred.push(index);
        continue;
      }
      const account = row && destination({ ...row, ...totals.get(row.id) });
      // Posted onto a copy: a refusal part-way leaves the batch's heads as they were.
      const after = new Map(heads);
      const posting = decide.post(
        account && { ...account, ledger: { fee: account.fee, charges: account.charges, heads: after, last } },
      );
      heads = after;
      last = { ordinal: posting.transaction.ordinal, created_at: posting.transaction.created_at };
      totals.set(posting.transaction.account_id, posting.accountTotals);
      plan.written.push({
        index,
        outcome: { result: posting.result },
        posting,
        answer: unit?.tentative(posting.result),
        targets: posting.event.targets(endpoints),
      });
    } catch (error) {
      plan.settled[index] = { error };
    }
  }
}
