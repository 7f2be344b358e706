import { randomUUID } from "node:crypto";
import { type HoldPhase as PayoutPhase, phaseLegs } from "../ledger/holds.js";
import { everyLedgerAccountOf } from "../ledger/kinds.js";
import type { Heads, PayoutLedger, PhasePosting } from "../ledger/ledger-port.js";
import { postLegs } from "../ledger/posting.js";
import type { EventToWrite } from "../storage/event-writes.js";
import type { Executor } from "../storage/executor.js";
import { latestEntryTime, type PayoutRow } from "../storage/payout-repository.js";

// A payout's side of the ledger, inside the transaction the ledger's port runs for it: the
// business's heads taken first, then each phase's posting computed on them (ledger/holds.ts has
// the arithmetic), for the port to write with the rest of the payout's posting.

export type { Heads };

/** The ledger's port as money out takes it: its transaction on storage's executor, events as storage writes them. */
export type MoneyOutLedger = PayoutLedger<Executor, EventToWrite>;

/**
 * The business's ledger heads, taken for the transaction (opened if new), and the time its
 * postings carry: now, or the newest entry's time if a process whose clock is ahead wrote later,
 * so entry times never go back within a business.
 */
export async function lockPayoutLedger(
  trx: Executor,
  ledger: MoneyOutLedger,
  businessId: string,
  nowIso: string,
) {
  const heads = await ledger.lockedHeads(trx, businessId, everyLedgerAccountOf(businessId), nowIso);
  const latest = await latestEntryTime(trx, heads.values());
  return { heads, createdAt: latest !== undefined && latest > nowIso ? latest : nowIso };
}

/** One phase of a payout on the heads (which move along): its legs' entries and the heads they moved. */
export function phasePosting(
  payout: PayoutRow,
  phase: PayoutPhase,
  heads: Heads,
  createdAt: string,
): PhasePosting {
  const legs = phaseLegs(phase, Number(payout.amount), Number(payout.fee));
  const id = `pst_${randomUUID().replaceAll("-", "")}`;
  const entries = postLegs(heads, id, legs, createdAt);
  const moved = new Set(legs.map((leg) => leg.kind));
  return {
    id,
    businessId: payout.business_id,
    phase,
    createdAt,
    entries,
    heads: [...heads.entries()].filter(([kind]) => moved.has(kind)).map(([, head]) => head),
  };
}
