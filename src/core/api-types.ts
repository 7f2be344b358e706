// The API's shapes, declared once: what it answers (and a sandbox transfer's body). The domain
// builds its answers as these types, each response schema (the `api-schemas.ts` of accounts, collections and events, which the OpenAPI
// document is made from) is checked against them at compile time (core/contracts.ts), and the
// SDK (src/client) imports them as types only. This file imports nothing, so the SDK's
// declarations need nothing but it and Node.

/** An account's state at an instant, computed when read (no background job flips it). */
export const ACCOUNT_STATUSES = ["active", "expired", "deactivated"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** How an expected amount is applied: one exact transfer, one of at least it, or any until the total reaches it. */
export const AMOUNT_POLICIES = ["exact", "atLeast", "accumulate"] as const;
export type AmountPolicy = (typeof AMOUNT_POLICIES)[number];

/** How far an account that expects an amount has been paid. */
export const PAYMENT_STATUSES = ["pending", "partially_paid", "paid", "overpaid"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What the service tells a business about (what webhooks deliver). */
export const EVENT_TYPES = [
  "payment.received",
  "account.expired",
  "account.reissued",
  "account.deactivated",
  "account.reactivated",
  "endpoint.disabled",
  "endpoint.enabled",
  "payout.successful",
  "payout.failed",
  "payout.reversed",
  "refund.successful",
  "refund.failed",
  "settlement.successful",
  "settlement.failed",
  "settlement_account.updated",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Where an event's delivery to one endpoint stands. */
export type DeliveryState = "pending" | "delivered" | "failed" | "cancelled";

/** `data` of a generate-permanent answer. */
export interface PermanentAccount {
  bankName: string;
  accountNumber: string;
  accountName: string;
  userName: string;
}

/** `data` of a generate-temporary answer. */
export interface TemporaryAccount {
  accountNumber: string;
  accountName: string;
  userName: string;
  email: string;
  bankName: string;
  isTemporary: true;
  createdAt: string;
  expiresAt: string;
  expiresInMinutes: number;
  /** Kobo: what the account expects, applied as amountPolicy says (null: any transfers until it expires). */
  expectedAmount: number | null;
  amountPolicy: AmountPolicy | null;
}

/** One item of the account list. */
export interface AccountSummary {
  bankName: string;
  accountNumber: string;
  email: string;
  accountName: string;
  createdAt: string;
  isTemporary: boolean;
  expiresAt: string | null;
  /** Computed when read: only an active account accepts transfers. */
  status: AccountStatus;
}

/** What an account has been paid, against what it expects. */
export interface PaymentProgress {
  /** Everything received, gross of fees (the account's totalReceived). */
  amountPaid: number;
  /** What is still to pay (0 once paid or overpaid); null without an expected amount. */
  amountOutstanding: number | null;
  /** null without an expected amount. */
  paymentStatus: PaymentStatus | null;
}

/** GET /account/:accountNumber: the list item's fields and what the account has received. */
export interface AccountDetail extends AccountSummary, PaymentProgress {
  /** Kobo: what a temporary account expects, applied as amountPolicy says; null when it takes any. */
  expectedAmount: number | null;
  amountPolicy: AmountPolicy | null;
  /** Kobo received so far, gross of fees. */
  totalReceived: number;
}

/** A list's `pagination`. */
export interface Pagination {
  page: number;
  limit: number;
  total: number;
  pages: number;
}

/** A credited inbound transfer: every amount in integer kobo (NGN 1 = 100 kobo). */
export interface Transaction {
  id: string;
  accountNumber: string;
  amount: number;
  fee: number;
  netAmount: number;
  currency: string;
  /** `bankCode` is the payer's bank's CBN code when the bank gave it (a refund needs it), else null. */
  payer: { name: string; accountNumber: string; bankName: string; bankCode: string | null };
  narration: string;
  sessionId: string;
  status: "successful";
  /** When the bank debited the payer (the value time). */
  paidAt: string;
  /** When the service recorded it. */
  createdAt: string;
  /** The business's available balance right after it. */
  balanceAfter: number;
  /** Kobo refunded to the payer so far, counting refunds pending and successful (a failed one frees its amount). */
  refundedAmount: number;
}

/** GET /balance: kobo. */
export interface Balance {
  available: number;
  /** Held for payouts the bank has not finished (two-phase: posted or voided when it has). */
  pending: number;
  totalReceived: number;
  /** Paid out through the bank and kept by it (reversed payouts come back out of it). */
  totalPaidOut: number;
  totalFees: number;
  currency: string;
}

/** GET /banks: a bank a payout can go to, by its CBN code. */
export interface Bank {
  code: string;
  name: string;
}

/** GET /banks/resolve: the name the bank gives an account (name enquiry). */
export interface ResolvedBankAccount {
  bankCode: string;
  bankName: string;
  accountNumber: string;
  accountName: string;
}

/** What a payout to a sandbox destination account always does. */
export type SandboxOutcome = "successful" | "failed" | "reversed" | "unresolvable";

/** GET /sandbox/payout-accounts: an account the sandbox pays out to, with its fixed outcome. */
export interface SandboxPayoutAccount {
  bankCode: string;
  bankName: string;
  accountNumber: string;
  /** The name its name enquiry answers; null for the one that does not resolve. */
  accountName: string | null;
  outcome: SandboxOutcome;
}

/** Where a payout stands: pending until the bank says; a successful one may come back (reversed). */
export type PayoutStatus = "pending" | "successful" | "failed" | "reversed";

/** POST /payouts' body. */
export interface PayoutInput {
  /** Kobo. */
  amount: number;
  bankCode: string;
  accountNumber: string;
  narration?: string;
  /** The business's own reference, unique within it (the payout's id when none is given). */
  reference?: string;
}

/** A payout: money sent from the business's available balance to an account at a bank. */
export interface Payout {
  id: string;
  /** Kobo, as asked. */
  amount: number;
  /** Kobo, taken from the available balance with the amount; given back if the payout fails. */
  fee: number;
  currency: string;
  bankCode: string;
  bankName: string;
  accountNumber: string;
  /** The name the bank's name enquiry gave when the payout was made. */
  accountName: string;
  narration: string;
  reference: string;
  status: PayoutStatus;
  /** Why it failed or came back; null otherwise. */
  failureReason: string | null;
  /** The inbound transaction this payout refunds (a refund); null for any other payout. */
  refundOf: string | null;
  createdAt: string;
  updatedAt: string;
}

/** How a business settles: by hand, once a day at a time in Africa/Lagos, or each credit as it arrives. */
export type SettlementSchedule = "manual" | "daily" | "instant";

/** A business's own bank account that settlements go to. */
export interface SettlementAccount extends ResolvedBankAccount {
  /** When it was set. */
  setAt: string;
  /** The first instant a settlement may go to it (the cool-off after a change). */
  usableFrom: string;
}

/** A business's settlement account (null: none yet), schedule and reserve. */
export interface SettlementTerms {
  account: SettlementAccount | null;
  schedule: SettlementSchedule;
  /** `HH:MM` in Africa/Lagos for a daily schedule; null otherwise. */
  dailyAt: string | null;
  /** Kobo kept back in the available balance by each settlement. */
  reserve: number;
}

/** A settlement: the available balance (less the reserve) paid to the business's own account. */
export interface Settlement {
  id: string;
  /** Kobo paid to the account; with the fee, what left the available balance. */
  amount: number;
  fee: number;
  currency: string;
  /** The payout that carries it (its reference is the settlement's id). */
  payoutId: string;
  status: PayoutStatus;
  failureReason: string | null;
  /** What made it: `manual` (asked for), `daily` or `instant` (the schedule). */
  trigger: SettlementSchedule;
  bankCode: string;
  bankName: string;
  accountNumber: string;
  accountName: string;
  /** The business's transactions recorded since its last settlement that did not fail. */
  transactionCount: number;
  /** When the first and the last of them were recorded (null when it covered none). */
  from: string | null;
  to: string | null;
  createdAt: string;
  updatedAt: string;
}

/** POST /transactions/{id}/refund's body: the whole payment (what is left of it) unless `amount` says less. */
export interface RefundInput {
  /** Kobo; default: the payment's amount less what is refunded already. */
  amount?: number;
  /** Why, for the payer's bank statement (the refund's narration; default `Refund`). */
  reason?: string;
}

/** An event's delivery to one endpoint. */
export interface Delivery {
  endpointId: string;
  state: DeliveryState;
  attempts: number;
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

/** Something that happened to the business's accounts or money (what webhooks deliver). */
export interface Event {
  id: string;
  type: EventType;
  /** 1, 2, 3... per business, without gaps: a receiver restores order with it. */
  sequence: number;
  accountNumber: string | null;
  createdAt: string;
  data: unknown;
  deliveries: Delivery[];
}

/** A sandbox transfer's body: integer kobo; the payer fields default to the sandbox payer. */
export interface SandboxTransferInput {
  accountNumber: string;
  amount: number;
  payerName?: string;
  payerAccountNumber?: string;
  payerBankName?: string;
  /** The payer's bank's CBN code (3 to 6 digits): what a refund of this payment is sent to. */
  payerBankCode?: string;
  narration?: string;
}
