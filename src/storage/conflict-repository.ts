import type { Executor } from "./executor.js";

/**
 * A conflicting transfer: what a refused notification said, against the transaction its session
 * id was first recorded as, and when it was seen. The one representation of a conflict, from the
 * domain's decision to the row kept and the listeners told of it.
 */

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
