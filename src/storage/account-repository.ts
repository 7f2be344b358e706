import { sql } from "kysely";
import { allowedPayersColumn } from "../core/allowed-payers-column.js";
import type { AllowedPayer, OnMismatch } from "../core/api-types.js";
import { isUniqueViolationOf } from "./errors.js";
import type { Executor } from "./executor.js";

/** True when the database refused a second permanent account for one business and email. */
export const isDuplicatePermanent = (error: unknown) => isUniqueViolationOf(error, ONE_PERMANENT_PER_EMAIL);

const ONE_PERMANENT_PER_EMAIL = {
  index: "accounts_one_permanent_per_email",
  columns: "accounts.business_id, accounts.email",
};

/**
 * An account's missing identity added (issue 46), in the domain's names: written only while the
 * account has none, so two requests racing add it once. True when this one added it.
 */
export async function addSecondIdentity(
  db: Executor,
  id: string,
  added: { fingerprint: string; last4: string; tier: number; updatedAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable("accounts")
    .set({
      second_identity_fingerprint: added.fingerprint,
      second_identity_last4: added.last4,
      tier: added.tier,
      updated_at: added.updatedAt,
    })
    .where("id", "=", id)
    .where("second_identity_fingerprint", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * A business's KYC level set by the operator (issue 46), and its accounts' tiers with it: each
 * account's tier as the domain gives it for one identity (`oneIdentity`) or two (`twoIdentities`).
 * False when there is no such business.
 */
export async function setKycLevel(
  db: Executor,
  businessId: string,
  level: { kycTier: number | null; oneIdentity: number; twoIdentities: number; updatedAt: string },
): Promise<boolean> {
  const updated = await db
    .updateTable("businesses")
    .set({ kyc_tier: level.kycTier, updated_at: level.updatedAt })
    .where("id", "=", businessId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await db
    .updateTable("accounts")
    .set({
      tier: sql<number>`case when second_identity_fingerprint is null then cast(${level.oneIdentity} as integer) else cast(${level.twoIdentities} as integer) end`,
    })
    .where("business_id", "=", businessId)
    .execute();
  return true;
}

/**
 * Who may pay into an account and what a mismatch becomes (issue 46, item 6), each written only
 * when given. True when either differed: an account already as asked is not written. The WHERE is
 * judged on the row as committed (on PostgreSQL the UPDATE waits for a concurrent one's row lock).
 */
export async function setPayerRules(
  db: Executor,
  id: string,
  rules: { allowedPayers?: readonly AllowedPayer[] | null; onMismatch?: OnMismatch; updatedAt: string },
): Promise<boolean> {
  const allowed = rules.allowedPayers === undefined ? undefined : allowedPayersColumn(rules.allowedPayers);
  const result = await db
    .updateTable("accounts")
    .set({
      ...(allowed === undefined ? {} : { allowed_payers: allowed }),
      ...(rules.onMismatch === undefined ? {} : { on_mismatch: rules.onMismatch }),
      updated_at: rules.updatedAt,
    })
    .where("id", "=", id)
    .where((eb) =>
      eb.or([
        // A list is never "" (it holds a payer at least), so "" stands for "anyone" here.
        ...(allowed === undefined
          ? []
          : [eb(eb.fn.coalesce("allowed_payers", sql.lit("")), "<>", allowed ?? "")]),
        ...(rules.onMismatch === undefined ? [] : [eb("on_mismatch", "<>", rules.onMismatch)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** An account deactivated (at that time) or reactivated (null), given in the domain's names. */
export async function updateAccount(
  db: Executor,
  id: string,
  changes: { deactivatedAt: string | null; updatedAt: string },
): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ deactivated_at: changes.deactivatedAt, updated_at: changes.updatedAt })
    .where("id", "=", id)
    .execute();
}

// An account as the domain reads it, in its names (the columns aliased): what a list shows
// (core/listed-account.ts's ListedAccount), and what its detail and its transactions' scope add.
const LISTED = [
  "a.account_number as accountNumber",
  "a.account_name as accountName",
  "a.email",
  "a.kind",
  "a.expires_at as expiresAt",
  "a.created_at as createdAt",
  "a.deactivated_at as deactivatedAt",
] as const;
const ACCOUNT = [
  ...LISTED,
  "a.id",
  "a.business_id as businessId",
  "a.expected_amount as expectedAmount",
  "a.amount_policy as amountPolicy",
  "a.allowed_payers as allowedPayers",
  "a.on_mismatch as onMismatch",
  "a.total_received as totalReceived",
  "a.transfer_count as transferCount",
  "a.tier",
  "a.identity_type as identityType",
  "a.second_identity_fingerprint as secondIdentityFingerprint",
  "a.customer_name as customerName",
] as const;

/** The business's account whose current number this is. */
export function findCurrentAccount(db: Executor, businessId: string, accountNumber: string) {
  return db
    .selectFrom("accounts as a")
    .select(ACCOUNT)
    .where("a.account_number", "=", accountNumber)
    .where("a.business_id", "=", businessId)
    .executeTakeFirst();
}

/** The business's account that this number (current or retired) was issued to. */
export function findAccountByAnyNumber(db: Executor, businessId: string, accountNumber: string) {
  return db
    .selectFrom("account_numbers as n")
    .innerJoin("accounts as a", "a.id", "n.account_id")
    .select(ACCOUNT)
    .where("n.account_number", "=", accountNumber)
    .where("n.business_id", "=", businessId)
    .executeTakeFirst();
}

/** Every number issued to an account, the current one first: one index range on (account_id, version). */
export function numbersOfAccount(db: Executor, accountId: string) {
  return db
    .selectFrom("account_numbers")
    .select([
      "account_number as accountNumber",
      "version",
      "issued_at as issuedAt",
      "retired_at as retiredAt",
      "issued_by_type as issuedByType",
    ])
    .where("account_id", "=", accountId)
    .orderBy("version", "desc")
    .execute();
}

/** The business a number (current or retired) was issued for, if any. */
export async function findNumberOwner(db: Executor, accountNumber: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("account_numbers")
    .select("business_id")
    .where("account_number", "=", accountNumber)
    .executeTakeFirst();
  return row?.business_id;
}

export function findAccountById(db: Executor, id: string) {
  return db.selectFrom("accounts as a").select(ACCOUNT).where("a.id", "=", id).executeTakeFirst();
}

/** The business's permanent account for this email, if it has one (there is at most one). */
export function findPermanentByEmail(
  db: Executor,
  businessId: string,
  email: string,
): Promise<{ accountNumber: string; deactivatedAt: string | null } | undefined> {
  return db
    .selectFrom("accounts")
    .select(["account_number as accountNumber", "deactivated_at as deactivatedAt"])
    .where("business_id", "=", businessId)
    .where("email", "=", email)
    .where("kind", "=", "permanent")
    .executeTakeFirst();
}

/** The business's accounts with this email (already normalised), newest first: an index range. */
export function accountsByEmail(db: Executor, businessId: string, email: string, limit: number) {
  return db
    .selectFrom("accounts as a")
    .select(LISTED)
    .where("a.business_id", "=", businessId)
    .where("a.email", "=", email)
    .orderBy("a.ordinal", "desc")
    .limit(limit)
    .execute();
}
