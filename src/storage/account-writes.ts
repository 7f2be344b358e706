import type { EventToWrite } from "../core/event-to-write.js";
import type { AccountRow, AccountToCreate, NumberToRecord } from "./schema.js";
import type { UnitOfWork } from "./unit-of-work.js";

/** What a re-issue changes on the account: its new number, the name on it and the identity behind it. */
export type ReissuedFields = Pick<
  AccountRow,
  | "account_number"
  | "account_name"
  | "customer_name"
  | "identity_type"
  | "identity_fingerprint"
  | "identity_last4"
  | "updated_at"
  | "version"
  | "deactivated_at"
>;

/** The domain's re-issue of an existing permanent account: the new fields, its event, the answer. */
export interface Reissue<T> {
  fields: ReissuedFields;
  event: EventToWrite;
  result: T;
}

/**
 * Generate's writes (issue 12's hot path), one implementation per dialect (sqlite/ and
 * postgres/account-writes.ts), chosen in compose/. Each is the unit of work's one write.
 */
export interface AccountWrites {
  /**
   * Creates a temporary account (the business's next ordinal) with its first number, and
   * resolves to `answer`. Permanent accounts go through createOrReissue.
   */
  createTemporary<T>(
    account: AccountToCreate & { kind: "temporary" },
    number: NumberToRecord,
    answer: T,
    unit: UnitOfWork | undefined,
  ): Promise<T>;
  /**
   * Creates the permanent account (as createTemporary does) and resolves to `created`, or, when
   * the business has one for the email, re-issues it as `reissue` decides from the existing row
   * (read under its lock): the fields the domain chose (the new number, its version, whether
   * the account is active), the new number recorded and the old one retired, and its event.
   */
  createOrReissue<T>(
    account: AccountToCreate,
    number: NumberToRecord,
    created: T,
    reissue: (existing: AccountRow) => Reissue<T>,
    unit: UnitOfWork | undefined,
  ): Promise<T>;
}

/** A new account's columns that only a later change sets. */
export const ACCOUNT_DEFAULTS = {
  duration_minutes: null,
  expires_at: null,
  expected_amount: null,
  amount_policy: null,
  deactivated_at: null,
};

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
  "updated_at",
  "version",
  "deactivated_at",
] as const satisfies readonly (keyof ReissuedFields)[];

/** Retires the account's current number (a re-issue). */
export const RETIRE_NUMBER = `update account_numbers set retired_at = @updated_at
  where account_number = @retired_number and retired_at is null`;
