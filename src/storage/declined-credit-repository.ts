import type { Executor } from "./executor.js";

/**
 * Notes a credit refused by a limit (issue 46), once per session id: true when this is the first
 * time (its payment.declined event is to be written in the same transaction), false when the bank
 * sent it again.
 */
export async function noteDeclined(
  db: Executor,
  declined: {
    sessionId: string;
    businessId: string;
    accountNumber: string;
    amount: number;
    reason: string;
    declinedAt: string;
  },
): Promise<boolean> {
  const inserted = await db
    .insertInto("declined_credits")
    .values({
      session_id: declined.sessionId,
      business_id: declined.businessId,
      account_number: declined.accountNumber,
      amount: declined.amount,
      reason: declined.reason,
      declined_at: declined.declinedAt,
    })
    .onConflict((oc) => oc.column("session_id").doNothing())
    .returning("session_id")
    .executeTakeFirst();
  return inserted !== undefined;
}
