import type { Insertable } from "kysely";
import type {
  AccountToCreate,
  ExistingAccount,
  NumberToRecord,
  ReissuedFields,
} from "../core/account-writes.js";
import { allowedPayersColumn } from "../core/allowed-payers-column.js";
import type { AccountNumbersTable, AccountRow, NewAccount } from "./schema.js";

// Core's AccountWrites (core/account-writes.ts), implemented per dialect in sqlite/ and
// postgres/account-writes.ts: its records mapped to the columns here, once for both.

/** A new account's columns, less its ordinal. */
export type AccountColumns = Omit<NewAccount, "ordinal">;

/** The account's columns, as the domain decided them. */
export const accountColumns = (account: AccountToCreate): AccountColumns => ({
  id: account.id,
  business_id: account.businessId,
  kind: account.kind,
  account_number: account.accountNumber,
  account_name: account.accountName,
  customer_name: account.customerName,
  email: account.email,
  identity_type: account.identityType,
  identity_fingerprint: account.identityFingerprint,
  identity_last4: account.identityLast4,
  second_identity_fingerprint: account.secondIdentityFingerprint,
  second_identity_last4: account.secondIdentityLast4,
  tier: account.tier,
  version: account.version,
  created_at: account.createdAt,
  updated_at: account.updatedAt,
  duration_minutes: account.durationMinutes ?? null,
  expires_at: account.expiresAt ?? null,
  expected_amount: account.expectedAmount ?? null,
  amount_policy: account.amountPolicy ?? null,
  allowed_payers: allowedPayersColumn(account.allowedPayers),
  on_mismatch: account.onMismatch,
});

/** An issued number's columns, less what the account gives it. */
export type NumberColumns = Omit<Insertable<AccountNumbersTable>, "account_id" | "business_id" | "version">;

export const numberColumns = (number: NumberToRecord): NumberColumns => ({
  account_number: number.accountNumber,
  reference: number.reference,
  issued_at: number.issuedAt,
  retired_at: null,
  issued_by_type: number.issuedByType,
  issued_by_id: number.issuedById,
});

/** The columns a re-issue changes. */
export const reissuedColumns = (fields: ReissuedFields) => ({
  account_number: fields.accountNumber,
  account_name: fields.accountName,
  customer_name: fields.customerName,
  identity_type: fields.identityType,
  identity_fingerprint: fields.identityFingerprint,
  identity_last4: fields.identityLast4,
  second_identity_fingerprint: fields.secondIdentityFingerprint,
  second_identity_last4: fields.secondIdentityLast4,
  tier: fields.tier,
  updated_at: fields.updatedAt,
  version: fields.version,
  deactivated_at: fields.deactivatedAt,
});

/** The permanent account a re-issue found, as the domain's decision reads it. */
export const existingAccount = (row: AccountRow): ExistingAccount => ({
  accountNumber: row.account_number,
  email: row.email,
  version: row.version,
});

/** An issued number's columns, in table order. */
export const NUMBER_COLUMNS = [
  "account_number",
  "account_id",
  "business_id",
  "version",
  "reference",
  "issued_at",
  "retired_at",
  "issued_by_type",
  "issued_by_id",
] as const;

export const REISSUED_COLUMNS = [
  "account_number",
  "account_name",
  "customer_name",
  "identity_type",
  "identity_fingerprint",
  "identity_last4",
  "second_identity_fingerprint",
  "second_identity_last4",
  "tier",
  "updated_at",
  "version",
  "deactivated_at",
] as const satisfies readonly (keyof ReturnType<typeof reissuedColumns>)[];

/**
 * A re-issue's tier: the one its identities give (the domain's), but at least the business's KYC
 * level, which the operator sets on the business and the account's writes carry onto it (issue 46).
 */
export const reissuedTier = (greatest: "greatest" | "max") =>
  `tier = ${greatest}(@tier, coalesce((select b.kyc_tier from businesses b where b.id = accounts.business_id), 1))`;

/** A re-issue's assignments: each column as the domain decided it, the tier as reissuedTier says. */
export const reissuedAssignments = (greatest: "greatest" | "max", cast: (column: string) => string) =>
  REISSUED_COLUMNS.map((c) => (c === "tier" ? reissuedTier(greatest) : `${c} = @${c}${cast(c)}`)).join(", ");

/** Retires the account's current number (a re-issue). */
export const RETIRE_NUMBER = `update account_numbers set retired_at = @updated_at
  where account_number = @retired_number and retired_at is null`;
