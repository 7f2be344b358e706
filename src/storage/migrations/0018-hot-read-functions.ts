import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 25: the request path's reads on PostgreSQL with plans that are kept, as 0017 did for a
// transfer's lookups.
//
// Every signed request reads its API key (and the credentials epoch), and a list its page: small
// statements, run thousands of times a second, whose planning cost about as much as running
// them once they could no longer be prepared by name (nothing may outlive a transaction behind
// a transaction pooler). Each is a PL/pgSQL function now, whose plan PostgreSQL keeps for the
// life of the server connection; the statement a request sends is a call, which takes next to
// nothing to plan. The queries are storage/hot-reads.ts's, moved here unchanged; SQLite keeps
// its statements prepared once (it has no pooler to lose them to).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function vas_credential(p_key_hash text)
    returns table (
      "keyId" text, "keyStatus" text, "secretCiphertext" text, "minSignatureVersion" integer,
      "businessId" text, "businessName" text, "verificationStatus" text
    )
    language plpgsql stable as $$
    begin
      return query
        select k.id, k.status, k.secret_ciphertext, k.min_signature_version, b.id, b.name,
          b.verification_status
        from api_keys k join businesses b on b.id = k.business_id
        where k.key_hash = p_key_hash;
    end
    $$`.execute(db);
  await sql`
    create function vas_counter(p_name text) returns integer
    language plpgsql stable as $$
    begin
      return (select c.value from counters c where c.name = p_name);
    end
    $$`.execute(db);
  await sql`
    create function vas_issued_to(p_business_id text, p_account_number text) returns boolean
    language plpgsql stable as $$
    begin
      return exists (
        select 1 from account_numbers n
        where n.account_number = p_account_number and n.business_id = p_business_id
      );
    end
    $$`.execute(db);
  // Ordinals are dense (1..account_count), so the page is the ordinal range
  // (count - skip - limit, count - skip]: a backward scan of (business_id, ordinal) at any depth.
  // The outer join keeps the count when the page is past the end.
  await sql`
    create function vas_account_page(p_business_id text, p_skip bigint, p_limit bigint)
    returns table (
      total integer, account_number text, account_name text, email text, kind text,
      expires_at text, created_at text, ordinal integer, deactivated_at text
    )
    language plpgsql stable as $$
    begin
      return query
        select b.account_count, a.account_number, a.account_name, a.email, a.kind, a.expires_at,
          a.created_at, a.ordinal, a.deactivated_at
        from businesses b
        left join lateral (
          select x.account_number, x.account_name, x.email, x.kind, x.expires_at, x.created_at,
            x.ordinal, x.deactivated_at
          from accounts x
          where x.business_id = p_business_id and x.ordinal > b.account_count - p_skip - p_limit
            and x.ordinal <= b.account_count - p_skip
          order by x.ordinal desc
          limit p_limit
        ) a on true
        where b.id = p_business_id;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_account_page(text, bigint, bigint)`.execute(db);
  await sql`drop function vas_issued_to(text, text)`.execute(db);
  await sql`drop function vas_counter(text)`.execute(db);
  await sql`drop function vas_credential(text)`.execute(db);
}
