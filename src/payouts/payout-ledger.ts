import { randomUUID } from "node:crypto";
import type { PayoutStatus } from "../core/api-types.js";
import type { EventToWrite } from "../core/event-to-write.js";
import { eventToWrite } from "../events/outbox.js";
import { type HoldPhase as PayoutPhase, phaseEntries } from "../ledger/holds.js";
import type { Heads, PayoutLedger, PayoutPosting, PhasePosting } from "../ledger/ledger-port.js";
import type { PayoutRecord, SettlementRecord } from "../ledger/ledger-records.js";
import type { Executor } from "../storage/executor.js";
import { type BankSaid, eventOf, payoutView, STATUS_AFTER, withCode } from "./payout-model.js";

// A payout's side of the ledger, inside the transaction the ledger's port runs for it: its
// posting decided on the heads the port took (ledger/holds.ts has the arithmetic): a hold when
// it is made, a move's phases and events when its bank says, which the port writes whole.

export type { Heads };

/** The ledger's port as money out takes it: its transaction on storage's executor, events as storage writes them. */
export type MoneyOutLedger = PayoutLedger<Executor>;

/**
 * The time a business's postings carry: now, or the newest entry's time if a process whose clock
 * is ahead wrote later, so entry times never go back within a business.
 */
export const postingTime = (latestEntry: string | undefined, nowIso: string) =>
  latestEntry !== undefined && latestEntry > nowIso ? latestEntry : nowIso;

/** One phase of a payout on the heads (which move along): its legs' entries and the heads they moved. */
export function phasePosting(
  payout: PayoutRecord,
  phase: PayoutPhase,
  heads: Heads,
  createdAt: string,
): PhasePosting {
  const id = `pst_${randomUUID().replaceAll("-", "")}`;
  const { entries, moved } = phaseEntries(
    phase,
    Number(payout.amount),
    Number(payout.fee),
    heads,
    id,
    createdAt,
    { vat: Number(payout.vat), stampDuty: Number(payout.stamp_duty) },
    payout.source ?? "available",
  );
  return { id, businessId: payout.business_id, phase, createdAt, entries, heads: moved };
}

/** A payout made: its row and its hold (no event: the API answers it), with a settlement's row when it is one. */
export function holdPosting(
  payout: PayoutRecord,
  heads: Heads,
  createdAt: string,
  settlement: SettlementRecord | undefined,
): PayoutPosting {
  return {
    businessId: payout.business_id,
    payout: { made: payout },
    phases: [phasePosting(payout, "hold", heads, createdAt)],
    events: [],
    ...(settlement ? { settlement } : {}),
  };
}

/**
 * A payout moved by what its bank says, through `steps` (its transition's phases, in order): each
 * phase's posting and event (with the payout as that phase leaves it), and the payout after them.
 */
export function movePosting(
  payout: PayoutRecord,
  steps: readonly PayoutPhase[],
  said: BankSaid,
  heads: Heads,
  createdAt: string,
): PayoutPosting & { payout: { moved: PayoutRecord; from: PayoutStatus } } {
  let current = payout;
  const phases: PhasePosting[] = [];
  const events: EventToWrite[] = [];
  for (const phase of steps) {
    const next: PayoutRecord = {
      ...current,
      status: STATUS_AFTER[phase],
      failure_reason: phase === "post" ? null : (said.reason ?? current.failure_reason),
      session_id: current.session_id ?? said.sessionId,
      nip_codes: withCode(current.nip_codes, said.code),
      updated_at: createdAt,
      next_check_at: null,
    };
    phases.push(phasePosting(current, phase, heads, createdAt));
    const event = { businessId: current.business_id, type: eventOf(current, phase), accountNumber: null };
    events.push(eventToWrite({ ...event, data: payoutView(next) }, createdAt));
    current = next;
  }
  return { businessId: payout.business_id, payout: { moved: current, from: payout.status }, phases, events };
}
