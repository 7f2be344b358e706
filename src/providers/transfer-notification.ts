/**
 * What a bank says when money arrives in one of the accounts it holds for the service: the
 * one shape every source of inbound transfers is turned into (the embedded Virtual Bank now,
 * an HTTP bank's signed callback later) before the collections domain records it.
 */
export interface TransferNotification {
  /** The bank's unique id for this transfer: ingestion is idempotent on it. */
  sessionId: string;
  /** The 10-digit number that was paid into. */
  accountNumber: string;
  /** Kobo, a positive integer. */
  amount: number;
  currency: string;
  /** `bankCode`: the payer's bank's CBN code, when the bank says (a refund goes there). */
  payer: { name: string; accountNumber: string; bankName: string; bankCode?: string | null };
  narration: string;
  /** When the payer was debited, by the bank's clock (ISO 8601): the value time. */
  paidAt: string;
}
