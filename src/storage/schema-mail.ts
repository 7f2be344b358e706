// Outgoing mail's table (migration 0026, issue 28).

/** A message queued for sending; its content sealed until it is sent, then dropped. */
export interface MailOutboxTable {
  /** `mail_` and 32 hex digits. */
  id: string;
  /** What it is (`verification.approved`, `sign_in.new_device`, ...). */
  kind: string;
  recipient: string;
  business_id: string | null;
  /** The subject and bodies, sealed with the master key; null once sent or given up on. */
  sealed: string | null;
  status: "queued" | "sent" | "failed";
  attempts: number;
  next_attempt_at: string;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}
