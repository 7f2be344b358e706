import type { PayoutStatus } from "../core/api-types.js";
import { ledgerEffect, PHASES_OF_STATUS } from "../ledger/holds.js";
import type { LedgerAccountKind } from "../ledger/kinds.js";
import type { Executor } from "../storage/executor.js";
import {
  entriesWithoutPosting,
  payoutPostingsToVerify,
  unbalancedPayoutPostings,
} from "../storage/payout-audit.js";
import type { Report } from "./held-credits.js";

// `vas ledger verify`'s checks of payouts (verify.ts): what each status leaves on the ledger, and
// each payout's postings against its status.

/**
 * What payouts left on each business's ledger accounts, by what the ledger must show of each status
 * (ledger/holds.ts): their postings' legs, summed.
 */
export function payoutEffects(
  rows: ReadonlyArray<{
    business_id: string;
    status: PayoutStatus;
    source?: string | null;
    amount: number;
    fee: number;
    vat: number;
    stamp_duty: number;
  }>,
) {
  const effects = new Map<string, Map<LedgerAccountKind, number>>();
  for (const row of rows) {
    // A status no payout can have is reported with its postings (verifyPayoutPostings).
    if (!(row.status in PHASES_OF_STATUS)) continue;
    const effect = effects.get(row.business_id) ?? new Map<LedgerAccountKind, number>();
    const charges = { vat: Number(row.vat), stampDuty: Number(row.stamp_duty) };
    const source = row.source === "held" ? "held" : "available";
    for (const [kind, kobo] of ledgerEffect(
      row.status,
      Number(row.amount),
      Number(row.fee),
      charges,
      source,
    )) {
      effect.set(kind, (effect.get(kind) ?? 0) + kobo);
    }
    effects.set(row.business_id, effect);
  }
  return effects;
}

/** Every payout's postings match its status; every posting balances; every entry has a posting. */
export async function verifyPayoutPostings(db: Executor, report: Report, businessId?: string): Promise<void> {
  const phases = new Map<string, { status: string; phases: string[] }>();
  for (const row of await payoutPostingsToVerify(db, businessId)) {
    const payout = phases.get(row.id) ?? { status: row.status, phases: [] };
    if (row.phase !== null) payout.phases.push(row.phase);
    phases.set(row.id, payout);
  }
  for (const [id, { status, phases: had }] of phases) {
    const expected = PHASES_OF_STATUS[status as PayoutStatus] ?? [];
    if (had.join(",") !== expected.join(","))
      report(
        `payout ${id}`,
        `it is ${status} but its postings are [${had.join(", ")}], not [${expected.join(", ")}]`,
      );
  }
  for (const row of await unbalancedPayoutPostings(db, businessId)) {
    const problem = Number(row.entries) === 0 ? "has no entries" : `entries sum to ${row.sum}, not 0`;
    report(`payout posting ${row.id}`, problem);
  }
  for (const entry of await entriesWithoutPosting(db, businessId)) {
    report(
      `entry ${entry.ledger_account_id}#${entry.sequence}`,
      `its posting ${entry.transaction_id} is neither a transaction nor a payout's posting`,
    );
  }
}
