import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 26: a balance the business can spend, or that holds money for a payout, never goes
// below zero, and the database refuses it, not only the code (as TigerBeetle's
// debits_must_not_exceed_credits does). The ledger accounts of the kinds `available` and
// `pending` keep a balance of zero or more; the others (`settlement`, the bank's side, is
// negative by design; `revenue`) are not bound. Whatever runs at once, a write that would take
// one below zero fails whole: its transaction rolls back.

/** The kinds whose balance may not go below zero. */
export const NON_NEGATIVE_KINDS = ["available", "pending"] as const;

/** The name of the refusal, in PostgreSQL's constraint and SQLite's message alike. */
export const NEGATIVE_BALANCE_REFUSAL = "ledger_balance_not_negative";

const kinds = NON_NEGATIVE_KINDS.map((kind) => `'${kind}'`).join(", ");

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql
      .raw(
        `alter table ledger_accounts add constraint ${NEGATIVE_BALANCE_REFUSAL} ` +
          `check (kind not in (${kinds}) or balance >= 0)`,
      )
      .execute(db);
    return;
  }
  // SQLite cannot add a CHECK to a table: triggers refuse the row instead, on both ways in.
  for (const operation of ["insert", "update"]) {
    await sql
      .raw(
        `create trigger ${NEGATIVE_BALANCE_REFUSAL}_${operation} before ${operation} on ledger_accounts ` +
          `when new.kind in (${kinds}) and new.balance < 0 ` +
          `begin select raise(abort, '${NEGATIVE_BALANCE_REFUSAL}: a balance of this kind cannot go below zero'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql.raw(`alter table ledger_accounts drop constraint ${NEGATIVE_BALANCE_REFUSAL}`).execute(db);
    return;
  }
  for (const operation of ["insert", "update"]) {
    await sql.raw(`drop trigger ${NEGATIVE_BALANCE_REFUSAL}_${operation}`).execute(db);
  }
}
