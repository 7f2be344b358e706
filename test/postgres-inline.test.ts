import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import pg from "pg";
import { inlineStatement } from "../src/storage/postgres/inline.js";
import { named } from "../src/storage/postgres/named.js";
import { POSTGRES_ADMIN_URL, POSTGRES_AVAILABLE } from "./helpers/databases.js";

// Statements sent with their values written in (the simple protocol, several in one message) must
// mean exactly what they mean with parameters: the server reads back the same values, whatever
// the text holds (quotes, backslashes, what looks like SQL), and a hostile value stays a value.

const ECHO = named(`select @text::text as text, @number::bigint as number, @maybe::text as maybe,
  @texts::text[] as texts, @numbers::bigint[] as numbers, @json::jsonb as json`);

// Any text PostgreSQL can hold (no NUL), leaning on the characters quoting is about.
const text = fc
  .oneof(
    fc.string({ unit: "binary" }),
    fc.stringMatching(/^[\\'"$;{},\s-]*$/),
    fc.constantFrom("'; drop table x; --", "\\'", "E'\\\\'", "{a,b}", "NULL", "$1", "\\x00"),
  )
  .map((s) => s.replaceAll("\u0000", ""));

describe("values written into a statement (PostgreSQL)", {
  skip: !POSTGRES_AVAILABLE && "PostgreSQL is not answering",
}, () => {
  let client: pg.Client;
  before(async () => {
    client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
  });
  after(() => client.end());

  test("read back as the same statement's parameters are", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          text,
          number: fc.maxSafeInteger(),
          maybe: fc.option(text, { nil: null }),
          texts: fc.array(fc.option(text, { nil: null }), { maxLength: 4 }),
          numbers: fc.array(fc.integer(), { maxLength: 4 }),
          json: fc.dictionary(text, text, { maxKeys: 3 }).map((o) => JSON.stringify(o)),
        }),
        async (values) => {
          const parameters = (await client.query(ECHO.query(values))).rows[0];
          const written = (await client.query(inlineStatement(ECHO, values))).rows[0];
          assert.deepEqual(written, parameters);
          assert.equal(written.text, values.text);
          assert.deepEqual(written.texts, values.texts);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("with standard_conforming_strings off, a backslash is still only a backslash", async () => {
    await client.query("set standard_conforming_strings = off");
    try {
      const values = {
        text: "a\\'; select 1; --",
        number: 1,
        maybe: "\\\\",
        texts: ["\\"],
        numbers: [],
        json: "{}",
      };
      const written = (await client.query(inlineStatement(ECHO, values))).rows[0];
      assert.equal(written.text, values.text);
      assert.equal(written.maybe, values.maybe);
      assert.deepEqual(written.texts, values.texts);
    } finally {
      await client.query("reset standard_conforming_strings");
    }
  });

  test("a binary value is refused, not written in", () => {
    assert.throws(() => inlineStatement(named("select @b::bytea"), { b: Buffer.from("x") }), /binary/);
  });
});
