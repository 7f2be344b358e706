import assert from "node:assert/strict";
import { test } from "node:test";
import { named } from "./named.js";

test("named parameters become numbered ones in order of first use, a repeated name bound once", () => {
  const statement = named("update t set a = @a, b = @b::bigint where id = @id and a <> @a");
  assert.equal(statement.text, "update t set a = $1, b = $2::bigint where id = $3 and a <> $1");
  assert.deepEqual(statement.query({ id: "x", b: 2, a: null }).values, [null, 2, "x"]);
});

test("casts and operators are left alone", () => {
  const statement = named("select @id || ':' || kind, x::text[] from t where y = @y_2");
  assert.equal(statement.text, "select $1 || ':' || kind, x::text[] from t where y = $2");
});

test("a missing or an extra value is refused, naming it", () => {
  const statement = named("select @a, @b");
  assert.throws(() => statement.query({ a: 1 }), /missing \[b\]/);
  assert.throws(() => statement.query({ a: 1, b: 2, c: 3 }), /extra \[c\]/);
  assert.throws(() => statement.query({ a: 1, c: 3 }), /missing \[b\], extra \[c\]/);
});
