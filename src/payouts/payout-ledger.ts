import { randomUUID } from "node:crypto";
import { phaseLegs } from "../ledger/holds.js";
import { everyLedgerAccountOf } from "../ledger/kinds.js";
import { postLegs } from "../ledger/posting.js";
import type { Executor } from "../storage/executor.js";
import {
  latestEntryTime,
  lockedLedgerHeads,
  type PayoutRow,
  type RowLocks,
  recordPayoutPosting,
} from "../storage/payout-repository.js";
import type { PayoutPhase } from "../storage/schema-payouts.js";
import { headMap } from "../storage/transfer-writes.js";

// A payout's side of the ledger, inside the transaction its service runs: the business's heads
// taken first, then each phase posted onto them (ledger/holds.ts has the arithmetic).

export type Heads = ReturnType<typeof headMap>;

/**
 * The business's ledger heads, taken for the transaction (opened if new), and the time its
 * postings carry: now, or the newest entry's time if a process whose clock is ahead wrote later,
 * so entry times never go back within a business.
 */
export async function lockPayoutLedger(trx: Executor, locks: RowLocks, businessId: string, nowIso: string) {
  const rows = await lockedLedgerHeads(trx, locks, businessId, everyLedgerAccountOf(businessId), nowIso);
  const latest = await latestEntryTime(trx, rows);
  return { heads: headMap(rows), createdAt: latest !== undefined && latest > nowIso ? latest : nowIso };
}

/** One phase of a payout posted onto the heads (which move along): its legs, entries and row. */
export async function postPayoutPhase(
  trx: Executor,
  payout: PayoutRow,
  phase: PayoutPhase,
  heads: Heads,
  createdAt: string,
): Promise<void> {
  const legs = phaseLegs(phase, Number(payout.amount), Number(payout.fee));
  const postingId = `pst_${randomUUID().replaceAll("-", "")}`;
  const entries = postLegs(heads, postingId, legs, createdAt);
  const moved = new Set(legs.map((leg) => leg.kind));
  await recordPayoutPosting(trx, {
    id: postingId,
    payoutId: payout.id,
    businessId: payout.business_id,
    phase,
    createdAt,
    entries,
    heads: [...heads.entries()].filter(([kind]) => moved.has(kind)).map(([, head]) => head),
  });
}
