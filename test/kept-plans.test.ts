import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { PostgresStorage } from "../src/storage/database.js";
import { inlineStatement } from "../src/storage/postgres/inline.js";
import { keptPlans } from "../src/storage/postgres/kept-plans.js";
import { named } from "../src/storage/postgres/named.js";
import { POSTINGS_FUNCTION } from "../src/storage/postgres/transfer-posting.js";
import { migratedStorage, POSTGRES_AVAILABLE } from "./helpers/databases.js";

// A request path's statement run as a PL/pgSQL function (kept-plans.ts) answers what the statement
// answers, with the same values; and the function the migrations leave is the statement as the
// code writes it now, so the posting is written once (a change to it needs a migration).

describe("statements whose plans the server keeps (PostgreSQL)", {
  skip: !POSTGRES_AVAILABLE && "PostgreSQL is not answering",
}, () => {
  let storage: PostgresStorage;
  let close: () => Promise<void>;
  before(async () => {
    const opened = await migratedStorage("postgres");
    storage = opened.storage as PostgresStorage;
    close = opened.close;
  });
  after(() => close());

  test("the function answers what the statement answers, its parameters typed by their casts", async () => {
    // `id` is both an output and a column: the statement means the column.
    const statement = named(`with given as (
      select * from unnest(@ids::text[], @amounts::bigint[]) with ordinality as g(id, amount, position)
    ) select id, amount * @factor::integer as amount, @label as label from given order by position`);
    const kept = keptPlans("pg_temp.kept_echo", statement, "id text, amount bigint, label text");
    assert.match(kept.create, /p_ids text\[\], p_amounts bigint\[\], p_factor integer, p_label text/);
    // One connection: the function is its own (pg_temp).
    const client = await storage.pool.connect();
    try {
      await client.query(kept.create);
      const values = { ids: ["a", "it's"], amounts: [1, 2 ** 40], factor: 3, label: "x\\y" };
      // More calls than the server takes before it keeps a generic plan.
      for (let call = 0; call < 8; call++) {
        const direct = await client.query(inlineStatement(statement, values));
        const through = await client.query(inlineStatement(kept.call, values));
        assert.deepEqual(through.rows, direct.rows);
      }
      assert.deepEqual(
        (await client.query(inlineStatement(kept.call, values))).rows.map((row) => row.amount),
        [3, 3 * 2 ** 40],
      );
    } finally {
      client.release();
    }
  });

  test("a plan kept from when a table was small still reaches its rows by key once it has grown", async () => {
    const statement = named(`select t.id, t.n from unnest(@ids::text[]) as i(id)
      join pg_temp.kept_rows t on t.id = i.id order by t.id`);
    const kept = keptPlans("pg_temp.kept_join", statement, "id text, n integer");
    const client = await storage.pool.connect();
    try {
      await client.query("create temporary table kept_rows (id text primary key, n integer)");
      await client.query("insert into kept_rows values ('a', 1), ('b', 2); analyze kept_rows");
      await client.query(kept.create);
      const call = inlineStatement(kept.call, { ids: ["b", "a"] });
      for (let run = 0; run < 8; run++) await client.query(call);
      await client.query("insert into kept_rows select 'r' || g, g from generate_series(1, 20000) g");
      const notices: string[] = [];
      client.on("notice", (notice) => notices.push(notice.message ?? ""));
      await client.query("load 'auto_explain'");
      await client.query(
        "set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; " +
          "set client_min_messages = log",
      );
      const { rows } = await client.query(call);
      assert.deepEqual(rows, [
        { id: "a", n: 1 },
        { id: "b", n: 2 },
      ]);
      const plans = notices.join("\n");
      assert.match(plans, /Index Scan using kept_rows_pkey/, plans);
      assert.doesNotMatch(plans, /Seq Scan on kept_rows|Hash/, plans);
    } finally {
      client.release(true);
    }
  });

  test("vas_post_transfers is the posting's statement as written now (a change needs a migration)", async () => {
    const { rows } = await storage.pool.query<{ prosrc: string; proconfig: string[] }>(
      "select prosrc, proconfig from pg_proc where proname = 'vas_post_transfers'",
    );
    assert.equal(rows.length, 1);
    assert.equal(
      rows[0]?.prosrc,
      POSTINGS_FUNCTION.source,
      "the posting's statement changed: add a migration that runs POSTINGS_FUNCTION.create again",
    );
    assert.deepEqual(rows[0]?.proconfig, POSTINGS_FUNCTION.settings);
  });
});
