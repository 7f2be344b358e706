import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Executor } from "./transactions.js";

/** What a refused notification said, against the transaction its session id was first recorded as. */
export interface ConflictInput {
  sessionId: string;
  transactionId: string;
  businessId: string;
  accountNumber: string;
  amount: number;
  currency: string;
}

/**
 * Keeps a conflicting notification: a new row for content not seen before under this session
 * id, otherwise one more attempt on the row that has it.
 */
export async function recordConflict(db: Executor, conflict: ConflictInput, now: string): Promise<void> {
  await db
    .insertInto("transfer_conflicts")
    .values({
      id: `cfl_${randomUUID().replaceAll("-", "")}`,
      session_id: conflict.sessionId,
      transaction_id: conflict.transactionId,
      business_id: conflict.businessId,
      account_number: conflict.accountNumber,
      amount: conflict.amount,
      currency: conflict.currency,
      attempts: 1,
      first_seen_at: now,
      last_seen_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["session_id", "account_number", "amount", "currency"]).doUpdateSet({
        attempts: sql<number>`transfer_conflicts.attempts + 1`,
        last_seen_at: now,
      }),
    )
    .execute();
}

/** Conflicts, most recently seen first, with what the session id was first recorded as. */
export function listConflicts(db: Executor, options: { businessId?: string; limit: number }) {
  let query = db
    .selectFrom("transfer_conflicts as c")
    .innerJoin("transactions as t", "t.id", "c.transaction_id")
    .select([
      "c.id",
      "c.session_id",
      "c.business_id",
      "c.account_number",
      "c.amount",
      "c.currency",
      "c.attempts",
      "c.first_seen_at",
      "c.last_seen_at",
      "t.id as transaction_id",
      "t.account_number as recorded_account_number",
      "t.amount as recorded_amount",
      "t.currency as recorded_currency",
    ])
    .orderBy("c.last_seen_at", "desc")
    .orderBy("c.id", "desc")
    .limit(options.limit);
  if (options.businessId !== undefined) query = query.where("c.business_id", "=", options.businessId);
  return query.execute();
}
