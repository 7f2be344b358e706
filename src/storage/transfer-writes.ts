import { randomUUID } from "node:crypto";
import type { ChargeSchedule } from "../ledger/charges.js";
import type { LedgerAccountKind } from "../ledger/kinds.js";
import type { ConflictInput } from "../ledger/ledger-records.js";
import type { AccountHead } from "../ledger/posting.js";
import type { AccountRow } from "./schema.js";
import type { TransactionRow } from "./transaction-repository.js";

// The ledger's port's transfer side is declared with its rules (ledger/ledger-port.ts); its
// dialects' writers name it from here.
export type {
  LedgerState,
  TransferDecisions,
  TransferKeys,
  TransferOutcome,
  TransferPosting,
  TransferWrites,
} from "../ledger/ledger-port.js";

/** A ledger account's head as both dialects read it (LEDGER_HEADS). */
export interface HeadRow {
  id: string;
  kind: LedgerAccountKind;
  balance: number;
  entry_count: number;
  last_hash: string;
}

export const headMap = (rows: readonly HeadRow[]) =>
  new Map<LedgerAccountKind, AccountHead>(
    rows.map((row) => [
      row.kind,
      {
        id: row.id,
        balance: Number(row.balance),
        entryCount: Number(row.entry_count),
        lastHash: row.last_hash,
      },
    ]),
  );

/**
 * A business's heads as a query builder's transaction takes them: read (locked, where the dialect
 * locks), and when fewer than `needed`, its missing ledger accounts opened and read again.
 */
export async function openedHeads(
  read: () => Promise<readonly HeadRow[]>,
  open: () => Promise<unknown>,
  needed: number,
) {
  const heads = await read();
  if (heads.length >= needed) return headMap(heads);
  await open();
  return headMap(await read());
}

/**
 * The account found by number (FIND_ACCOUNT_BY_NUMBER), with its number's retirement, its
 * business's fee and the operator's charges schedule (read in the same statement: migration 0043).
 */
export type FoundRow = AccountRow & {
  number_retired_at: string | null;
  fee_basis_points: number;
  fee_cap_kobo: number | null;
} & ChargeColumns;

/** The charge schedule's columns as the transfers' look-ups select them. */
interface ChargeColumns {
  charge_vat_basis_points: number;
  charge_stamp_duty_kobo: number;
  charge_stamp_duty_threshold_kobo: number;
  charge_stamp_duty_on_payouts: number | boolean;
  charge_stamp_duty_on_credits: number | boolean;
}

/** The schedule's columns (charge_schedule's, or as the look-ups alias them) in the ledger's names. */
export const chargeScheduleOf = (row: ChargeColumns): ChargeSchedule => ({
  vatBasisPoints: Number(row.charge_vat_basis_points),
  stampDutyKobo: Number(row.charge_stamp_duty_kobo),
  stampDutyThresholdKobo: Number(row.charge_stamp_duty_threshold_kobo),
  stampDutyOnPayouts: Number(row.charge_stamp_duty_on_payouts) === 1,
  stampDutyOnCredits: Number(row.charge_stamp_duty_on_credits) === 1,
});

export function destination(row: FoundRow | undefined) {
  if (!row) return undefined;
  const {
    number_retired_at,
    fee_basis_points,
    fee_cap_kobo,
    charge_vat_basis_points,
    charge_stamp_duty_kobo,
    charge_stamp_duty_threshold_kobo,
    charge_stamp_duty_on_payouts,
    charge_stamp_duty_on_credits,
    ...account
  } = row;
  return {
    account,
    retiredAt: number_retired_at,
    fee: {
      basisPoints: Number(fee_basis_points),
      capKobo: fee_cap_kobo === null ? null : Number(fee_cap_kobo),
    },
    charges: chargeScheduleOf(row),
  };
}

/** A conflict's row, for RECORD_CONFLICT. */
export const conflictRow = (conflict: ConflictInput) => ({
  id: `cfl_${randomUUID().replaceAll("-", "")}`,
  session_id: conflict.sessionId,
  transaction_id: conflict.transactionId,
  business_id: conflict.businessId,
  account_number: conflict.accountNumber,
  amount: conflict.amount,
  currency: conflict.currency,
  now: conflict.seenAt,
});

export const TRANSACTION_COLUMNS = [
  "id",
  "business_id",
  "account_id",
  "account_number",
  "ordinal",
  "account_ordinal",
  "session_id",
  "amount",
  "fee",
  "vat",
  "stamp_duty",
  "net_amount",
  "currency",
  "balance_after",
  "payer_name",
  "payer_account_number",
  "payer_bank_name",
  "payer_bank_code",
  "narration",
  "status",
  "value_at",
  "created_at",
] as const satisfies readonly (keyof TransactionRow)[];
