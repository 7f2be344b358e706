import type { Generated, Insertable, Selectable } from "kysely";
import type { AccountKind, IdentityType } from "../core/account-kinds.js";
import type { AmountPolicy, OnMismatch } from "../core/api-types.js";
import type { ApiKeyStatus, VerificationStatus } from "../core/business-states.js";
import type { RequestRecordState } from "../core/request-record-claims.js";
import type { RequestRecordKind } from "../core/unit-of-work.js";
import type { CreditBlockRecord, HeldCreditRecord } from "../ledger/ledger-records.js";
import type { DeadlineMissesTable, DeadlineScansTable } from "./schema-deadlines.js";
import type {
  EventsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from "./schema-events.js";
import type {
  ChargeScheduleTable,
  LedgerAccountsTable,
  LedgerCheckpointsTable,
  LedgerEntriesTable,
  TransactionsTable,
  TransferConflictsTable,
} from "./schema-ledger.js";
import type { MailOutboxTable } from "./schema-mail.js";

export type { EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable };

import type {
  PayoutPostingsTable,
  PayoutsTable,
  SettlementsTable,
  SettlementTermsTable,
  VirtualBankPayoutsTable,
} from "./schema-payouts.js";
import type {
  AuditLogTable,
  BusinessProfilesTable,
  DashboardSessionsTable,
  InvitationsTable,
  PasswordResetsTable,
  RecoveryCodesTable,
  SignInAttemptsTable,
  SignUpsTable,
  UsersTable,
} from "./schema-people.js";
import type {
  ReconciliationRecoveriesTable,
  ReconciliationReportsTable,
  ReconciliationSeenTable,
  ReconciliationStateTable,
} from "./schema-reconciliation.js";

// Timestamps are ISO-8601 UTC text with milliseconds (`Date#toISOString`) on both dialects:
// they sort as text, compare exactly, and are what the API returns.

export interface BusinessesTable {
  id: string;
  name: string;
  verification_status: VerificationStatus;
  /** Accounts created so far; also the ordinal of the newest account (see accounts.ordinal). */
  account_count: Generated<number>;
  /** The fee on each transfer, in hundredths of a percent (150 = 1.5 %); 0 = no fee. */
  fee_basis_points: Generated<number>;
  /** The most a fee may be, in kobo (null: no cap). */
  fee_cap_kobo: number | null;
  /** The operator's KYC level (issue 46): a floor under the tiers of the business's accounts; null: none. */
  kyc_tier: Generated<number | null>;
  /** The payout fee's tiers as JSON `[{upTo, fee}]` in kobo (null: the default, ledger/payout-fees.ts). */
  payout_fee_tiers: string | null;
  /** Whether the API may send payouts (1) or not (0, until the owner or an operator turns them on). */
  payouts_enabled: Generated<number>;
  /** The most one payout / one day's payouts may be, in kobo (null: the defaults). */
  payout_limit_kobo: number | null;
  payout_daily_limit_kobo: number | null;
  /** The IANA time zone its pages show times in (default Africa/Lagos). */
  time_zone: Generated<string>;
  /** 1: every member signs in with two factors (issue 43). */
  require_two_factor: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  business_id: string;
  /** SHA-256 of the API key, hex: the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, for display. */
  key_prefix: string;
  /** The secret key sealed by the master key, bound to this row's id. */
  secret_ciphertext: string;
  status: ApiKeyStatus;
  /** The oldest signature version the key accepts: 1 (the specification's) or 2. */
  min_signature_version: Generated<number>;
  created_at: string;
  updated_at: string;
  /** When the key last authenticated a request (kept to the minute). */
  last_used_at: Generated<string | null>;
  /** The client addresses the key may send payouts from: JSON, addresses and CIDR ranges (null: any). */
  payout_ips: Generated<string | null>;
}

/** The accounts table's columns, in the order the inserts list them. */
export const ACCOUNT_COLUMNS = [
  "id",
  "business_id",
  "ordinal",
  "kind",
  "account_number",
  "account_name",
  "customer_name",
  "email",
  "identity_type",
  "identity_fingerprint",
  "identity_last4",
  "tier",
  "second_identity_fingerprint",
  "second_identity_last4",
  "version",
  "duration_minutes",
  "expires_at",
  "expected_amount",
  "amount_policy",
  "allowed_payers",
  "on_mismatch",
  "deactivated_at",
  "created_at",
  "updated_at",
] as const;

export interface AccountsTable {
  id: string;
  business_id: string;
  /** 1, 2, 3... per business in creation order: page p of the list is an ordinal range. */
  ordinal: number;
  kind: AccountKind;
  account_number: string;
  account_name: string;
  customer_name: string;
  /** Trimmed and lower-cased: the key of the one-permanent-account-per-email rule. */
  email: string;
  identity_type: IdentityType;
  /** HMAC-SHA256 of the identity number under a service key: comparable, not reversible. */
  identity_fingerprint: string;
  identity_last4: string;
  /** Its KYC tier (accounts/tiers.ts): 1 with one identity, 2 with both (issue 46). */
  tier: Generated<number>;
  /** The other kind of identity (a NIN beside a BVN, or a BVN beside a NIN), kept as the first is. */
  second_identity_fingerprint: Generated<string | null>;
  second_identity_last4: Generated<string | null>;
  /** 1 when created, +1 at each re-issue: the version of its current number in account_numbers. */
  version: number;
  duration_minutes: number | null;
  expires_at: string | null;
  /** Kobo: the amount a temporary account expects (null: it takes any transfers). */
  expected_amount: number | null;
  /** How expected_amount is applied (null when there is none). */
  amount_policy: AmountPolicy | null;
  /** When account.expired was emitted for it (temporary accounts; null until then). */
  expired_event_at: Generated<string | null>;
  /** When the business deactivated it (null: not deactivated). Re-issuing clears it. */
  deactivated_at: string | null;
  /** Kobo received, all transfers, gross of fees. */
  total_received: Generated<number>;
  /** Transfers accepted; also the ordinal of the newest (see transactions.account_ordinal). */
  transfer_count: Generated<number>;
  /** The Africa/Lagos day (`YYYY-MM-DD`) received_on_day counts (null: nothing received yet). */
  received_day: Generated<string | null>;
  /** Kobo received on received_day, gross of fees: the tier's daily limit is checked on it. */
  received_on_day: Generated<number>;
  /** Who may pay in: JSON of AllowedPayer[] (null: anyone). Issue 46, item 6. */
  allowed_payers: Generated<string | null>;
  /** What a credit its rules do not take becomes: `decline` (the default) or `hold`. */
  on_mismatch: Generated<OnMismatch>;
  created_at: string;
  updated_at: string;
}

/** Every number ever issued, current or retired: a number in here is never issued again. */
export interface AccountNumbersTable {
  account_number: string;
  account_id: string;
  business_id: string;
  /** Which issue of the account this number was (1 = at creation); the highest is current. */
  version: number;
  /** The reference sent to the provider when this number was issued. */
  reference: string;
  issued_at: string;
  retired_at: string | null;
  /** Who had it issued (see businesses/actor.ts); null before this was recorded. */
  issued_by_type: string | null;
  issued_by_id: string | null;
}

/** Service-wide secrets (sealed by the master key), created once. */
export interface SettingsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface CountersTable {
  name: string;
  value: number;
}

/** A POST seen before: by its signature (replay protection) or by its Idempotency-Key. */
export interface RequestRecordsTable {
  business_id: string;
  kind: RequestRecordKind;
  key: string;
  /** SHA-256 of method, route and canonical body: the same key with another body is a misuse. */
  fingerprint: string;
  state: RequestRecordState;
  status_code: number | null;
  response: string | null;
  /** The reference sent to the bank by the request holding this key (kept across its retries). */
  reference: string | null;
  /** While in flight: after this, the request is presumed dead and the key may be taken over. */
  locked_until: string;
  expires_at: string;
  created_at: string;
}

/** One change of a business's verification status (append-only audit). */
export interface VerificationEventsTable {
  id: string;
  business_id: string;
  from_status: VerificationStatus;
  to_status: VerificationStatus;
  reason: string | null;
  /** api_key, user, operator or cli */
  actor_type: string;
  actor_id: string | null;
  created_at: string;
}

/** One row, rewritten by the readiness check to prove that the database takes writes. */
export interface HealthProbeTable {
  id: number;
  checked_at: string;
}

/** A credit refused by a limit (issue 46): its payment.declined event is written once per session id. */
export interface DeclinedCreditsTable {
  session_id: string;
  business_id: string;
  account_number: string;
  amount: number;
  reason: string;
  declined_at: string;
}

/** Every table, as the query builder knows them. */
export interface Database {
  businesses: BusinessesTable;
  api_keys: ApiKeysTable;
  accounts: AccountsTable;
  account_numbers: AccountNumbersTable;
  settings: SettingsTable;
  counters: CountersTable;
  request_records: RequestRecordsTable;
  health_probe: HealthProbeTable;
  verification_events: VerificationEventsTable;
  virtual_bank_accounts: VirtualBankAccountsTable;
  ledger_accounts: LedgerAccountsTable;
  charge_schedule: ChargeScheduleTable;
  transactions: TransactionsTable;
  ledger_entries: LedgerEntriesTable;
  ledger_checkpoints: LedgerCheckpointsTable;
  transfer_conflicts: TransferConflictsTable;
  declined_credits: DeclinedCreditsTable;
  held_credits: HeldCreditsTable;
  credit_blocks: CreditBlocksTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  users: UsersTable;
  dashboard_sessions: DashboardSessionsTable;
  business_profiles: BusinessProfilesTable;
  audit_log: AuditLogTable;
  sign_in_attempts: SignInAttemptsTable;
  payouts: PayoutsTable;
  payout_postings: PayoutPostingsTable;
  virtual_bank_payouts: VirtualBankPayoutsTable;
  settlement_terms: SettlementTermsTable;
  settlements: SettlementsTable;
  reconciliation_state: ReconciliationStateTable;
  reconciliation_reports: ReconciliationReportsTable;
  reconciliation_seen: ReconciliationSeenTable;
  reconciliation_recoveries: ReconciliationRecoveriesTable;
  mail_outbox: MailOutboxTable;
  password_resets: PasswordResetsTable;
  recovery_codes: RecoveryCodesTable;
  sign_ups: SignUpsTable;
  invitations: InvitationsTable;
  deadline_misses: DeadlineMissesTable;
  deadline_scans: DeadlineScansTable;
}

/** A decision on a credit that came in held (issue 46, item 6): ledger/ledger-records.ts. */
export type HeldCreditsTable = HeldCreditRecord;

/** An operator's block on a disputed credit (issue 46, item 7): ledger/ledger-records.ts. */
export type CreditBlocksTable = CreditBlockRecord;

/** The embedded Virtual Bank's own accounts (see providers/virtual-bank-store.ts). */
export interface VirtualBankAccountsTable {
  reference: string;
  account_number: string;
  account_name: string;
  status: string;
  created_at: string;
}

export type AccountRow = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
