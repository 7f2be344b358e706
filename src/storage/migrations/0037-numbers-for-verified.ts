import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 43: only a verified business is issued account numbers, and the database refuses it,
// not only the code. Every number a business is given (a new account, or a re-issue) is a row
// of account_numbers; one for a business whose status is not `completed` fails whole.
//
// On PostgreSQL the business's row is taken FOR SHARE: a status change waits for the numbers
// being issued under it, and a number issued after the change reads the changed row (READ
// COMMITTED follows a row a locking read waited for to its newest version), so no number is
// issued once a suspension has returned. SQLite's writes run one at a time.
//
// vas_verification_status is the read the domain makes before it asks the bank for a number
// (hot-reads.ts): a function, whose plan the server keeps per connection.

/** The name of the refusal, in PostgreSQL's exception and SQLite's message alike. */
export const UNVERIFIED_NUMBER_REFUSAL = "account_number_for_unverified_business";

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function vas_verification_status(p_business_id text) returns text
      language sql stable as $$ select verification_status from businesses where id = p_business_id $$
    `.execute(db);
    await sql
      .raw(`
        create function ${UNVERIFIED_NUMBER_REFUSAL}() returns trigger language plpgsql as $$
        begin
          perform 1 from businesses
            where id = new.business_id and verification_status = 'completed' for share;
          if not found then
            raise exception '${UNVERIFIED_NUMBER_REFUSAL}: the business is not verified'
              using errcode = 'P0001', constraint = '${UNVERIFIED_NUMBER_REFUSAL}';
          end if;
          return new;
        end $$`)
      .execute(db);
    await sql
      .raw(
        `create trigger ${UNVERIFIED_NUMBER_REFUSAL} before insert on account_numbers ` +
          `for each row execute function ${UNVERIFIED_NUMBER_REFUSAL}()`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create trigger ${UNVERIFIED_NUMBER_REFUSAL} before insert on account_numbers ` +
        `when (select verification_status from businesses where id = new.business_id) is not 'completed' ` +
        `begin select raise(abort, '${UNVERIFIED_NUMBER_REFUSAL}: the business is not verified'); end`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql.raw(`drop trigger ${UNVERIFIED_NUMBER_REFUSAL} on account_numbers`).execute(db);
    await sql.raw(`drop function ${UNVERIFIED_NUMBER_REFUSAL}()`).execute(db);
    await sql.raw("drop function vas_verification_status(text)").execute(db);
    return;
  }
  await sql.raw(`drop trigger ${UNVERIFIED_NUMBER_REFUSAL}`).execute(db);
}
