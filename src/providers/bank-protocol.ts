import { randomBytes } from "node:crypto";
import { z } from "zod";
import { cleanDisplayText, displayNameSchema } from "../display-name.js";
import { koboSchema } from "../ledger/kobo.js";
import { NIP_CODE, NIP_SESSION_ID } from "./nip.js";
import type { BankTransferAnswer } from "./payout-rail.js";

// The bank protocol (issue 14, docs/bank-integration.md), shaped like PalmPay's virtual-account
// API: both sides build and read their messages here, the service's HTTP adapter and the
// Virtual Bank server alike, so the two cannot drift apart.

/** The bank's routes; every one is a POST of a JSON object signed by the service. */
export const BANK_PATHS = {
  create: "/api/v2/virtual/account/label/create",
  query: "/api/v2/virtual/account/label/queryOne",
  update: "/api/v2/virtual/account/label/update",
  delete: "/api/v2/virtual/account/label/delete",
  banks: "/api/v2/payout/bank/list",
  nameEnquiry: "/api/v2/payout/account/query",
  transferOut: "/api/v2/payout/transfer",
  transferQuery: "/api/v2/payout/transfer/query",
  statement: "/api/v2/virtual/account/statement",
  creditQuery: "/api/v2/virtual/account/order/query",
} as const;

export const PROTOCOL_VERSION = "V2.0";

/**
 * The bank's answer codes. `AC…` refuse what was asked (its `respMsg` is for the customer);
 * `OPEN_GW_…` refuse the caller (app id, signature, clock: a configuration fault); `SYS_…` ask
 * for a retry later.
 */
export const RESP_CODE = {
  success: "00000000",
  invalidParameter: "AC100001",
  identityRejected: "AC100002",
  accountNotFound: "AC100003",
  transferRefused: "AC100004",
  unknownApp: "OPEN_GW_000001",
  badSignature: "OPEN_GW_000008",
  expired: "OPEN_GW_000009",
  busy: "SYS_000001",
} as const;

/** What the bank answers to every call (`data` only on success). */
export const bankAnswerSchema = z.object({
  respCode: z.string().max(64),
  respMsg: z.string().max(1000),
  data: z.unknown().optional(),
});
export type BankAnswer = z.infer<typeof bankAnswerSchema>;

/** An account as the bank's create and queryOne answer it. */
export const bankAccountSchema = z.object({
  virtualAccountNo: z.string().regex(/^\d{10}$/),
  virtualAccountName: z.string().min(1).max(200),
  accountReference: z.string().min(1).max(64),
  status: z.enum(["Enabled", "Disabled", "Deleted"]),
});
export type BankAccountData = z.infer<typeof bankAccountSchema>;

/** The create call's business parameters (the envelope adds requestTime, version, nonceStr). */
export const createAccountSchema = z.object({
  identityType: z.enum(["personal", "personal_nin"]),
  licenseNumber: z.string().min(1).max(32),
  virtualAccountName: z.string().min(1).max(200),
  customerName: z.string().min(1).max(200),
  email: z.string().min(3).max(254),
  accountReference: z.string().min(1).max(64),
});

export const queryAccountSchema = z.object({ accountReference: z.string().min(1).max(64) });
export const updateAccountSchema = z.object({
  virtualAccountNo: z.string().regex(/^\d{10}$/),
  status: z.enum(["Enabled", "Disabled"]),
});
export const deleteAccountSchema = z.object({ virtualAccountNo: z.string().regex(/^\d{10}$/) });

/** A bank's CBN code: 3 digits (a deposit money bank) to 6 (another institution). */
export const BANK_CODE = /^\d{3,6}$/;

/** The bank list's answer: every bank a payout can go to. */
export const bankListSchema = z
  .array(z.object({ bankCode: z.string().regex(BANK_CODE), bankName: z.string().min(1).max(100) }))
  .max(1_000);

/** Name enquiry: the account to name. */
export const nameEnquirySchema = z.object({
  bankCode: z.string().regex(BANK_CODE),
  accountNo: z.string().regex(/^\d{10}$/),
});

/** Name enquiry's answer: the name on that account (AC100003 when the bank knows none). */
export const nameEnquiryAnswerSchema = nameEnquirySchema.extend({ accountName: z.string().min(1).max(200) });

/** The bank's words for where a transfer out stands, and the service's. */
export const ORDER_STATUS = {
  PENDING: "pending",
  SUCCESS: "successful",
  FAILED: "failed",
  REVERSED: "reversed",
} as const;
export type OrderStatus = keyof typeof ORDER_STATUS;
export const orderStatusOf = (status: (typeof ORDER_STATUS)[OrderStatus]): OrderStatus =>
  (Object.keys(ORDER_STATUS) as OrderStatus[]).find((key) => ORDER_STATUS[key] === status) ?? "PENDING";

/** The service's reference of a transfer out: what the bank executes at most once. */
const orderId = z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/);

/** A transfer out: the service's reference, the amount in kobo and the destination. */
export const transferOutSchema = z.object({
  orderId,
  amount: koboSchema("amount", Number.MAX_SAFE_INTEGER),
  currency: z.literal("NGN"),
  bankCode: z.string().regex(BANK_CODE),
  accountNo: z.string().regex(/^\d{10}$/),
  accountName: z.string().min(1).max(200),
  remark: z.string().max(200),
});

/** The query of a transfer out by the service's reference (AC100003 when the bank has none). */
export const transferQuerySchema = z.object({ orderId });

/**
 * A transfer out as the bank answers it (to a transfer or a query) and notifies it: its status,
 * the NIP response code of the answer (`nipCode`, two digits: the service reads the two together,
 * providers/nip.ts) and the NIP session id the bank gave it (null before it was sent to NIP).
 */
export const transferStateSchema = z.object({
  orderId,
  orderStatus: z.enum(Object.keys(ORDER_STATUS) as [OrderStatus, ...OrderStatus[]]),
  nipCode: z.string().regex(NIP_CODE),
  sessionId: z.string().regex(NIP_SESSION_ID).nullable(),
  failReason: z.string().max(500).nullable().optional(),
});

export type TransferState = z.infer<typeof transferStateSchema>;

/** A transfer out the bank answered, in the protocol's words, as the rail's answer (the service reads it: payout-rail.ts). */
export const transferAnswerOf = (data: TransferState): BankTransferAnswer => ({
  reference: data.orderId,
  bankStatus: ORDER_STATUS[data.orderStatus],
  code: data.nipCode,
  sessionId: data.sessionId,
  reason: data.failReason ?? null,
});

/**
 * A transfer out's status notification, bank to service, signed by the bank as payment
 * notifications are: sent when it settles (SUCCESS, FAILED) and when it comes back (REVERSED).
 */
export const payoutNotificationSchema = transferStateSchema.extend({
  appId: z.string().min(1).max(128),
  requestTime: z.number().int().positive(),
  nonceStr: z.string().min(8).max(64),
  version: z.literal(PROTOCOL_VERSION),
  sign: z.string().min(1).max(2048),
});
export type PayoutNotification = z.infer<typeof payoutNotificationSchema>;

/**
 * The limits of a notification's fields: the service's own for every inbound transfer, whatever
 * its source (collections/validation.ts takes them from here), so a well-signed notification in
 * this shape is never refused for its form. Text is measured the one way the service measures
 * it: after NFC normalisation, in Unicode code points. collections/bank-notifications.test.ts holds
 * the protocol and the ingestion to each other.
 */
export const NOTIFICATION_LIMITS = {
  orderNo: /^[A-Za-z0-9._:-]{1,100}$/,
  orderNoLength: 100,
  payerAccountNo: /^\d{10}$/,
  payerAccountName: 200,
  payerBankName: 100,
  /** Longer is cut to this, never refused (cleanDisplayText). */
  narration: 200,
  /** Kobo: exact in every JSON number and every sum the ledger keeps (ledger/posting.ts). */
  orderAmount: Number.MAX_SAFE_INTEGER,
  /**
   * Unix milliseconds: from the epoch to the last instant with a four-digit year, the ISO 8601
   * form every time is stored and answered in (later years would sort before earlier ones).
   */
  paidTime: { min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) },
} as const;

/**
 * A narration as the bank sends it: any text. It is what a payer typed, and refusing it would
 * reverse the payment, so it is cleaned instead (control characters become spaces, bidi
 * controls go, unpaired surrogates become U+FFFD) and cut to the limit after NFC.
 */
const narrationText = z.string().transform((text) => cleanDisplayText(text, NOTIFICATION_LIMITS.narration));

const PAID_TIME_RANGE = `paidTime must be whole Unix milliseconds from ${NOTIFICATION_LIMITS.paidTime.min} to ${NOTIFICATION_LIMITS.paidTime.max} (9999-12-31T23:59:59.999Z)`;

/**
 * A payment notification, bank to service, signed by the bank (`sign`, over every other
 * parameter). `orderNo` is the bank's id for the transfer: the service records it once.
 */
export const bankNotificationSchema = z.object({
  appId: z.string().min(1).max(128),
  orderNo: z
    .string()
    .regex(
      NOTIFICATION_LIMITS.orderNo,
      `orderNo must be 1 to ${NOTIFICATION_LIMITS.orderNoLength} of A-Z a-z 0-9 . _ : -`,
    ),
  virtualAccountNo: z.string().regex(/^\d{10}$/, "virtualAccountNo must be 10 digits"),
  orderAmount: koboSchema("orderAmount", NOTIFICATION_LIMITS.orderAmount),
  currency: z.string().regex(/^[A-Z]{3}$/, "currency must be a three-letter ISO 4217 code"),
  payerAccountName: displayNameSchema("payerAccountName", NOTIFICATION_LIMITS.payerAccountName),
  payerAccountNo: z.string().regex(NOTIFICATION_LIMITS.payerAccountNo, "payerAccountNo must be 10 digits"),
  payerBankName: displayNameSchema("payerBankName", NOTIFICATION_LIMITS.payerBankName),
  /** The payer's bank's CBN code, when the bank knows it: what a refund is sent to. */
  payerBankCode: z.string().regex(BANK_CODE, "payerBankCode must be 3 to 6 digits").optional(),
  narration: narrationText.optional(),
  paidTime: z
    .number()
    .int(PAID_TIME_RANGE)
    .min(NOTIFICATION_LIMITS.paidTime.min, PAID_TIME_RANGE)
    .max(NOTIFICATION_LIMITS.paidTime.max, PAID_TIME_RANGE),
  requestTime: z.number().int().positive(),
  nonceStr: z.string().min(8).max(64),
  version: z.literal(PROTOCOL_VERSION),
  sign: z.string().min(1).max(2048),
});
export type BankNotification = z.infer<typeof bankNotificationSchema>;

/** What the service answers to a notification it recorded (or had recorded): the bank stops. */
export const NOTIFICATION_ACK = { respCode: RESP_CODE.success, respMsg: "success" } as const;

/** The envelope every signed message carries: the time it was sent, the version, a nonce. */
export function envelope(now: number): {
  requestTime: number;
  version: typeof PROTOCOL_VERSION;
  nonceStr: string;
} {
  return { requestTime: now, version: PROTOCOL_VERSION, nonceStr: randomBytes(16).toString("hex") };
}

/**
 * The statement (issue 27): the bank's credits into the service's accounts (by their `paidTime`)
 * and its transfers out (by the time it took them) within [startTime, endTime), Unix
 * milliseconds, in pages of at most `pageSize`; `cursor` is the last page's `nextCursor`,
 * opaque to the service. What reconciliation compares the ledger with.
 */
export const STATEMENT_PAGE_MAX = 500;
export const statementQuerySchema = z.object({
  startTime: z.number().int().min(0),
  endTime: z.number().int().min(0),
  pageSize: z.number().int().min(1).max(STATEMENT_PAGE_MAX),
  cursor: z.string().min(1).max(500).optional(),
});

/** A credit as the statement and the credit query answer it: the notification's own fields. */
export const statementCreditSchema = bankNotificationSchema
  .pick({
    orderNo: true,
    virtualAccountNo: true,
    orderAmount: true,
    currency: true,
    payerAccountName: true,
    payerAccountNo: true,
    payerBankName: true,
    payerBankCode: true,
    narration: true,
    paidTime: true,
  })
  .extend({ type: z.literal("CREDIT") });
export type StatementCredit = z.infer<typeof statementCreditSchema>;

/** A transfer out as the statement lists it: where it stands now, its amount, when the bank took it. */
export const statementDebitSchema = transferStateSchema.extend({
  type: z.literal("DEBIT"),
  amount: koboSchema("amount", Number.MAX_SAFE_INTEGER),
  transferTime: z.number().int().min(0),
});
export type StatementDebit = z.infer<typeof statementDebitSchema>;

/** One page of the statement: its entries, and the cursor of the next (null: the last page). */
export const statementPageSchema = z.object({
  entries: z
    .array(z.discriminatedUnion("type", [statementCreditSchema, statementDebitSchema]))
    .max(STATEMENT_PAGE_MAX),
  nextCursor: z.string().min(1).max(500).nullable(),
});

/** The query of one credit by its `orderNo` (the service's session id): AC100003 when the bank has none. */
export const creditQuerySchema = z.object({ orderNo: bankNotificationSchema.shape.orderNo });

// Issue 46, item 5: the identity call. The service asks the bank for the name on its record of a
// BVN or NIN (sending the name the account is held in, which a bank's registry may use to find the
// record) and compares the two by its own rule (core/name-match.ts), before opening an account and
// before adding an identity to one. AC100003 when the bank has no record of the number.

/** Where the identity call is posted. */
export const IDENTITY_PATH = "/api/v2/identity/query";

/** The identity call's parameters. */
export const identityQuerySchema = z.object({
  identityType: z.enum(["personal", "personal_nin"]),
  licenseNumber: z.string().regex(/^\d{11}$/),
  customerName: z.string().min(1).max(200),
});

/** Its answer: the number asked about, and the name on the bank's record of it. */
export const identityAnswerSchema = identityQuerySchema
  .pick({ identityType: true, licenseNumber: true })
  .extend({ registeredName: z.string().min(1).max(200) });
