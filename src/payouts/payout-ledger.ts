import { randomUUID } from "node:crypto";
import { type HoldPhase as PayoutPhase, phaseLegs } from "../ledger/holds.js";
import { everyLedgerAccountOf } from "../ledger/kinds.js";
import type { Heads, LedgerWrites } from "../ledger/ledger-port.js";
import { postLegs } from "../ledger/posting.js";
import type { Executor } from "../storage/executor.js";
import { latestEntryTime, type PayoutRow, recordPayoutStep } from "../storage/payout-repository.js";

// A payout's side of the ledger, inside the transaction its service runs: the business's heads
// taken first, then each phase posted onto them (ledger/holds.ts has the arithmetic), through the
// ledger's port, which writes them as a transfer's posting does.

export type { Heads };

/**
 * The business's ledger heads, taken for the transaction (opened if new), and the time its
 * postings carry: now, or the newest entry's time if a process whose clock is ahead wrote later,
 * so entry times never go back within a business.
 */
export async function lockPayoutLedger(
  trx: Executor,
  ledger: LedgerWrites<Executor>,
  businessId: string,
  nowIso: string,
) {
  const heads = await ledger.lockedHeads(trx, businessId, everyLedgerAccountOf(businessId), nowIso);
  const latest = await latestEntryTime(trx, heads.values());
  return { heads, createdAt: latest !== undefined && latest > nowIso ? latest : nowIso };
}

/** One phase of a payout posted onto the heads (which move along): its legs, entries and step. */
export async function postPayoutPhase(
  trx: Executor,
  ledger: LedgerWrites<Executor>,
  payout: PayoutRow,
  phase: PayoutPhase,
  heads: Heads,
  createdAt: string,
): Promise<void> {
  const legs = phaseLegs(phase, Number(payout.amount), Number(payout.fee));
  const id = `pst_${randomUUID().replaceAll("-", "")}`;
  const entries = postLegs(heads, id, legs, createdAt);
  const moved = new Set(legs.map((leg) => leg.kind));
  await recordPayoutStep(trx, { id, payoutId: payout.id, businessId: payout.business_id, phase, createdAt });
  await ledger.post(trx, {
    id,
    businessId: payout.business_id,
    entries,
    heads: [...heads.entries()].filter(([kind]) => moved.has(kind)).map(([, head]) => head),
  });
}
