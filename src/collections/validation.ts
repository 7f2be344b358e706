import { z } from "zod";
import { accountNumberSchema } from "../accounts/validation.js";
import type { SandboxTransferInput } from "../core/api-types.js";
import {
  check,
  fieldsRule,
  parsedBy,
  parseListQuery,
  queryInstant,
  queryRange,
  required,
  singleParam,
} from "../core/validation.js";
import { cleanDisplayText, displayNameSchema, displayTextSchema } from "../display-name.js";
import { DEFAULT_MAX_TRANSFER_KOBO, koboSchema } from "../ledger/kobo.js";
import { NOTIFICATION_LIMITS } from "../providers/bank-protocol.js";
import type { TransferNotification } from "../providers/transfer-notification.js";

// The inputs of the collections side: a sandbox transfer's body, a bank's notification, the
// transactions query. Bad input is a 400 naming the field, never a 500.

// The limits of a transfer's fields are the bank protocol's (one definition, measured one way:
// after NFC, in Unicode code points), so a notification the protocol allows is never refused here.
export const MAX_PAYER_NAME_LENGTH = NOTIFICATION_LIMITS.payerAccountName;
export const MAX_BANK_NAME_LENGTH = NOTIFICATION_LIMITS.payerBankName;
export const MAX_NARRATION_LENGTH = NOTIFICATION_LIMITS.narration;
export const MAX_SESSION_ID_LENGTH = NOTIFICATION_LIMITS.orderNoLength;
/** A bank's session id: visible ASCII letters, digits and `. _ : -`. */
export const SESSION_ID = NOTIFICATION_LIMITS.orderNo;
/** The value times a transfer may carry (Unix milliseconds; ISO 8601 with a four-digit year). */
export const PAID_TIME_RANGE = NOTIFICATION_LIMITS.paidTime;

/**
 * A narration sent to the API (the sandbox's payer typing one): the display-text rule, refused
 * with a 400 when it breaks it; longer than the limit after NFC is cut, as the bank's are.
 */
const sandboxNarrationSchema = displayTextSchema("narration", MAX_NARRATION_LENGTH, "truncate");

/**
 * A narration in a notification, whatever its source: cleaned rather than refused (refusing it
 * would reverse the payment), exactly as the bank protocol reads one.
 */
const notificationNarrationSchema = z
  .string({ error: "narration must be a string" })
  .transform((text) => cleanDisplayText(text, MAX_NARRATION_LENGTH));

/** A bank's CBN code: 3 to 6 digits. */
const bankCodeSchema = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .regex(/^\d{3,6}$/, { error: `${field} must be a bank's CBN code (3 to 6 digits)` });

const sandboxFields = {
  accountNumber: accountNumberSchema("accountNumber"),
  payerName: displayNameSchema("payerName", MAX_PAYER_NAME_LENGTH),
  payerAccountNumber: accountNumberSchema("payerAccountNumber"),
  payerBankName: displayNameSchema("payerBankName", MAX_BANK_NAME_LENGTH),
  payerBankCode: bankCodeSchema("payerBankCode"),
  narration: sandboxNarrationSchema,
};

/**
 * The sandbox transfer's rule with the server's MAX_TRANSFER_KOBO: accountNumber, amount (whole
 * kobo, 1 or more; the limit is an acceptance rule, answered 422 like any refused transfer), then
 * the optional payer fields. Its schemas are made once, not per body.
 */
export function sandboxTransferRule(
  maxTransferKobo = DEFAULT_MAX_TRANSFER_KOBO,
): (body: Record<string, unknown>) => SandboxTransferInput {
  const { accountNumber, ...optional } = sandboxFields;
  const amount = koboSchema("amount", NOTIFICATION_LIMITS.orderAmount, maxTransferKobo);
  return fieldsRule({ accountNumber, amount }, optional);
}

/** A sandbox transfer's body, checked with the default MAX_TRANSFER_KOBO. */
export const parseSandboxTransfer = sandboxTransferRule();

const sessionIdSchema = z
  .string({ error: "sessionId must be a string" })
  .regex(SESSION_ID, { error: `sessionId must be 1 to ${MAX_SESSION_ID_LENGTH} of A-Z a-z 0-9 . _ : -` });

const PAID_AT_RANGE = `paidAt must be from ${new Date(PAID_TIME_RANGE.min).toISOString()} to ${new Date(PAID_TIME_RANGE.max).toISOString()}`;

const transferNotificationSchema = z.strictObject({
  sessionId: sessionIdSchema,
  accountNumber: accountNumberSchema("accountNumber"),
  amount: koboSchema("amount", NOTIFICATION_LIMITS.orderAmount),
  currency: z.string({ error: "currency must be a string" }).regex(/^[A-Z]{3}$/, {
    error: "currency must be a three-letter ISO 4217 code",
  }),
  payer: z.strictObject({
    name: displayNameSchema("payer.name", MAX_PAYER_NAME_LENGTH),
    accountNumber: accountNumberSchema("payer.accountNumber"),
    bankName: displayNameSchema("payer.bankName", MAX_BANK_NAME_LENGTH),
    bankCode: bankCodeSchema("payer.bankCode").nullable().optional(),
  }),
  narration: notificationNarrationSchema,
  paidAt: z.iso
    .datetime({ offset: true, error: "paidAt must be an ISO 8601 date-time" })
    .transform((text) => Date.parse(text))
    .pipe(
      z
        .number({ error: PAID_AT_RANGE })
        .min(PAID_TIME_RANGE.min, { error: PAID_AT_RANGE })
        .max(PAID_TIME_RANGE.max, { error: PAID_AT_RANGE }),
    ),
});

/** A bank's notification, checked whatever its source; the paid-at time is normalised to UTC. */
export function parseNotification(notification: unknown): TransferNotification {
  const parsed = check(transferNotificationSchema, notification);
  return { ...parsed, paidAt: new Date(parsed.paidAt).toISOString() };
}

/** Which of a transaction's two times `from`/`to` bound: the bank's value time (default) or recording. */
export const TIME_FIELDS = ["paidAt", "createdAt"] as const;
export type TimeField = (typeof TIME_FIELDS)[number];

export interface TransactionQuery {
  page: number;
  limit: number;
  accountNumber?: string;
  sessionId?: string;
  from?: string;
  to?: string;
  timeField: TimeField;
}

/**
 * GET /transactions: page and limit as the account list takes them, an account, a bank session
 * id, a time range and which time it bounds.
 */
export function parseTransactionQuery(query: Record<string, unknown>): TransactionQuery {
  const parsed: TransactionQuery = { ...parseListQuery(query), timeField: "paidAt" };
  const accountNumber = singleParam(query, "accountNumber", accountNumberSchema("accountNumber"));
  if (accountNumber !== undefined) parsed.accountNumber = accountNumber;
  const sessionId = singleParam(query, "sessionId", sessionIdSchema);
  if (sessionId !== undefined) parsed.sessionId = sessionId;
  const timeField = singleParam(
    query,
    "timeField",
    z.enum(TIME_FIELDS, { error: `timeField must be ${TIME_FIELDS.join(" or ")}` }),
  );
  if (timeField !== undefined) parsed.timeField = timeField;
  return { ...parsed, ...queryRange(query) };
}

/** What GET /balance asks: the balance at `at` (absent: now). */
export interface BalanceQuery {
  at?: string;
}

/** GET /balance: `at`, an instant (absent: now). */
export function parseBalanceQuery(query: Record<string, unknown>): BalanceQuery {
  const at = queryInstant(query, "at");
  return at === undefined ? {} : { at };
}

/** A transaction id as the API gives it (`txn_` and 32 hex digits); anything else cannot exist. */
export const TRANSACTION_ID = /^txn_[0-9a-f]{32}$/;

/** The inputs as the route contracts hand them to Fastify (and the dashboard and CLI check theirs). */
export const sandboxTransferInput = parsedBy(parseSandboxTransfer);

/** A sandbox transfer's body, its amount's message naming the configured MAX_TRANSFER_KOBO. */
export const sandboxTransferInputFor = (maxTransferKobo: number) =>
  parsedBy(sandboxTransferRule(maxTransferKobo));

/** POST /transactions/requery's body: the session id to look for. */
export const requeryInput = parsedBy((body: Record<string, unknown>) => ({
  sessionId: required(body, "sessionId", sessionIdSchema),
}));
export const transactionQuery = parsedBy(parseTransactionQuery);
export const balanceQuery = parsedBy(parseBalanceQuery);
