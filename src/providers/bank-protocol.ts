import { randomBytes } from "node:crypto";
import { z } from "zod";
import { CONTROL_CHARACTERS, displayNameSchema } from "../display-name.js";

// The bank protocol (issue 14, docs/bank-integration.md), shaped like PalmPay's virtual-account
// API: both sides build and read their messages here, the service's HTTP adapter and the
// Virtual Bank server alike, so the two cannot drift apart.

/** The bank's routes; every one is a POST of a JSON object signed by the service. */
export const BANK_PATHS = {
  create: "/api/v2/virtual/account/label/create",
  query: "/api/v2/virtual/account/label/queryOne",
  update: "/api/v2/virtual/account/label/update",
  delete: "/api/v2/virtual/account/label/delete",
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

/**
 * The limits a notification's fields keep: the service's own for any transfer (its ingestion
 * checks them again), so that a well-signed notification in this shape is never refused for its
 * form. collections/bank-notifications.test.ts holds the two to each other.
 */
export const NOTIFICATION_LIMITS = {
  orderNo: /^[A-Za-z0-9._:-]{1,100}$/,
  payerAccountNo: /^\d{10}$/,
  payerAccountName: 200,
  payerBankName: 100,
  narration: 200,
} as const;

/** A narration: the service's rule (no control characters), up to the limit, may be empty. */
const narrationText = z
  .string()
  .max(NOTIFICATION_LIMITS.narration, `narration must be at most ${NOTIFICATION_LIMITS.narration} characters`)
  .refine((value) => !CONTROL_CHARACTERS.test(value), "narration must not contain control characters");

/**
 * A payment notification, bank to service, signed by the bank (`sign`, over every other
 * parameter). `orderNo` is the bank's id for the transfer: the service records it once.
 */
export const notificationSchema = z.object({
  appId: z.string().min(1).max(128),
  orderNo: z.string().regex(NOTIFICATION_LIMITS.orderNo, "orderNo must be 1 to 100 of A-Z a-z 0-9 . _ : -"),
  virtualAccountNo: z.string().regex(/^\d{10}$/, "virtualAccountNo must be 10 digits"),
  orderAmount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  currency: z.string().regex(/^[A-Z]{3}$/, "currency must be a three-letter ISO 4217 code"),
  payerAccountName: displayNameSchema("payerAccountName", NOTIFICATION_LIMITS.payerAccountName),
  payerAccountNo: z.string().regex(NOTIFICATION_LIMITS.payerAccountNo, "payerAccountNo must be 10 digits"),
  payerBankName: displayNameSchema("payerBankName", NOTIFICATION_LIMITS.payerBankName),
  narration: narrationText.optional(),
  paidTime: z.number().int().positive().max(8_640_000_000_000_000),
  requestTime: z.number().int().positive(),
  nonceStr: z.string().min(8).max(64),
  version: z.literal(PROTOCOL_VERSION),
  sign: z.string().min(1).max(2048),
});
export type BankNotification = z.infer<typeof notificationSchema>;

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
