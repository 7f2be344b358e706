import { randomBytes } from "node:crypto";
import { z } from "zod";

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
 * A payment notification, bank to service, signed by the bank (`sign`, over every other
 * parameter). `orderNo` is the bank's id for the transfer: the service records it once.
 */
export const notificationSchema = z.object({
  appId: z.string().min(1).max(128),
  orderNo: z.string().min(1).max(128),
  virtualAccountNo: z.string().regex(/^\d{10}$/, "virtualAccountNo must be 10 digits"),
  orderAmount: z.number().int().positive(),
  currency: z.string().min(3).max(3),
  payerAccountName: z.string().min(1).max(200),
  payerAccountNo: z.string().min(1).max(32),
  payerBankName: z.string().min(1).max(200),
  narration: z.string().max(500).optional(),
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
