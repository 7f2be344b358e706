import type { AccountKind } from "../core/account-kinds.js";
import type { AmountPolicy, PayoutStatus, SettlementSchedule } from "../core/api-types.js";

// The records the ledger's port carries (ledger-port.ts), in the core because storage writes them
// as they are: each is its table's row (storage's schema names it as the table), so the hot path
// maps nothing between the domain's decision and the statement that writes it.

/**
 * An accepted inbound transfer: the transactions table's row, written as it is (append-only:
 * triggers refuse UPDATE and DELETE).
 */
export interface TransactionRecord {
  id: string;
  business_id: string;
  account_id: string;
  /** The number the payer paid into (the account's number at that time). */
  account_number: string;
  /** 1, 2, 3... per business in recording order. */
  ordinal: number;
  /** 1, 2, 3... per account in recording order. */
  account_ordinal: number;
  /** The bank's unique id for the transfer: what makes ingestion idempotent. */
  session_id: string;
  amount: number;
  fee: number;
  /** The VAT on the fee and the receiver-side stamp duty (ledger/charges.ts), kobo, 0 when none. */
  vat: number;
  stamp_duty: number;
  /** `amount - fee - vat - stamp_duty`: what the available balance gained. */
  net_amount: number;
  currency: string;
  /** The business's available balance right after this transaction. */
  balance_after: number;
  payer_name: string;
  payer_account_number: string;
  payer_bank_name: string;
  /** The payer's bank's CBN code, when the bank's notification gave it (what a refund is sent to). */
  payer_bank_code: string | null;
  narration: string;
  /** As it arrived: `successful` (credited) or `held` (issue 46: its later state is in held_credits). */
  status: "successful" | "held";
  /** When the bank says the payer was debited (the notification's time). */
  value_at: string;
  /** When the service recorded it: never earlier than the business's previous transaction. */
  created_at: string;
}

/**
 * The business's decision on a credit that came in held (issue 46, item 6): the held_credits
 * table's row. `accepted` took its fee and charges (posted as `posting_id`); `returned` sends it
 * back to its payer (the refund `refund_id`).
 */
export interface HeldCreditRecord {
  transaction_id: string;
  business_id: string;
  /** `held` again: its return failed (the refund's void gave the money back to held). */
  state: "held" | "accepted" | "returned";
  fee: number;
  vat: number;
  stamp_duty: number;
  posting_id: string | null;
  refund_id: string | null;
  decided_at: string;
  decided_by_type: string | null;
  decided_by_id: string | null;
}

/**
 * An operator's block on a credit its payer's bank disputes (issue 46, item 7): `amount` moved from
 * available to held by the posting `id`; `released` (back, by `release_posting_id`) or `returned`
 * (by the refund `refund_id`; `blocked` again when the bank does not make it).
 */
export interface CreditBlockRecord {
  id: string;
  transaction_id: string;
  business_id: string;
  amount: number;
  reason: string;
  state: "blocked" | "released" | "returned";
  release_posting_id: string | null;
  refund_id: string | null;
  created_at: string;
  /** Who blocked it: an operator (its id), or the CLI (no id). */
  created_by_type: string;
  created_by_id: string | null;
  decided_at: string | null;
  decided_by_type: string | null;
  decided_by_id: string | null;
}

/** A block as the console lists it: with its credit's account, session id and amount. */
export interface ListedBlock extends CreditBlockRecord {
  account_number: string;
  session_id: string;
  credit_amount: number;
}

/** What the acceptance rules and a transfer's posting read of the account a number was issued to. */
export interface CreditedAccount {
  id: string;
  business_id: string;
  kind: AccountKind;
  expires_at: string | null;
  deactivated_at: string | null;
  /** Kobo: the amount a temporary account expects (null: it takes any transfers). */
  expected_amount: number | null;
  amount_policy: AmountPolicy | null;
  /** Kobo received, all transfers, gross of fees. */
  total_received: number;
  /** Transfers accepted; also the ordinal of the newest. */
  transfer_count: number;
  /** Its KYC tier (accounts/tiers.ts): the limits a credit is checked against. */
  tier: number;
  /** The Africa/Lagos day `received_on_day` counts (null: nothing received yet). */
  received_day: string | null;
  /** Kobo received on `received_day`, gross of fees. */
  received_on_day: number;
  /** Who may pay in (JSON of AllowedPayer[]; null: anyone): accounts/allowed-payers.ts. */
  allowed_payers: string | null;
  /** What a credit its rules do not take becomes: `decline` or `hold`. */
  on_mismatch: string;
}

/** An account's totals after a transfer into it (its row is held: nothing else moves them). */
export type AccountTotals = Pick<
  CreditedAccount,
  "total_received" | "transfer_count" | "received_day" | "received_on_day"
>;

/** A notification whose session id was recorded with another account, amount or currency: kept, then refused. */
export interface ConflictInput {
  sessionId: string;
  transactionId: string;
  businessId: string;
  accountNumber: string;
  amount: number;
  currency: string;
  seenAt: string;
}

/**
 * A payout: where a business sent money, where it stands, and when the bank is next asked; the
 * payouts table's row, written as it is.
 */
export interface PayoutRecord {
  /** `po_` and 32 hex digits: also the reference the bank is asked with (it executes it once). */
  id: string;
  /** Where its hold took the money from: `available`, or `held` (a held credit's return, issue 46); absent: available. */
  source?: "available" | "held";
  business_id: string;
  /** The business's own reference (its id when it gave none): unique within the business. */
  reference: string;
  amount: number;
  fee: number;
  /** The VAT on the fee and the stamp duty on the amount (ledger/charges.ts), held and posted with the fee. */
  vat: number;
  stamp_duty: number;
  currency: string;
  bank_code: string;
  bank_name: string;
  account_number: string;
  /** The name the bank's name enquiry gave, when the payout was made. */
  account_name: string;
  narration: string;
  /** SHA-256 of what was asked (amount, bank, account, narration): a reused reference must match. */
  fingerprint: string;
  status: PayoutStatus;
  failure_reason: string | null;
  /** The inbound transaction this payout refunds, if it is a refund. */
  refund_of: string | null;
  created_at: string;
  updated_at: string;
  /** When the bank first acknowledged the transfer (null: not yet known to have it). */
  submitted_at: string | null;
  /** How often the bank was asked about it. */
  checks: number;
  /** When the tracker next asks the bank (null once final). */
  next_check_at: string | null;
  /** The settlement this payout is (null: a payout or a refund). */
  settlement_id: string | null;
  /** The NIP session id the bank gave its transfer (null until the bank answered with one). */
  session_id: string | null;
  /** The NIP codes its bank's answers carried, oldest first, each once ("97,01"): the console shows them. */
  nip_codes: string | null;
  /** When it was found still unresolved after the bank was asked PAYOUT_ATTENTION_QUERIES times (null: it never was). */
  attention_at: string | null;
}

/**
 * A business's payout terms as its row holds them (the businesses table's columns, read as they
 * are): the API switch (1: on), its own limits in kobo and fee tiers (JSON), null for the defaults.
 */
export interface PayoutTermsRecord {
  payouts_enabled: number;
  payout_limit_kobo: number | null;
  payout_daily_limit_kobo: number | null;
  payout_fee_tiers: string | null;
}

/**
 * A settlement: a payout of the available balance to the business's account, and what it
 * covered; the settlements table's row, written as it is.
 */
export interface SettlementRecord {
  /** `stl_` and 32 hex digits. */
  id: string;
  business_id: string;
  payout_id: string;
  trigger: SettlementSchedule;
  /** A daily settlement's day in Africa/Lagos (`YYYY-MM-DD`): one a day per business. */
  period: string | null;
  /** The business's transactions with ordinals in (covered_after, covered_through]. */
  covered_after: number;
  covered_through: number;
  transaction_count: number;
  /** When the first and the last covered transaction were recorded (null: none covered). */
  first_recorded_at: string | null;
  last_recorded_at: string | null;
  created_at: string;
}
