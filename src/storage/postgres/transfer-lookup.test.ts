import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLookups as parseLookup } from "./transfer-writes.js";

test("the transfer lookup's JSON keeps integers up to 2^53 - 1 and refuses a larger one rather than round it", () => {
  const safe = parseLookup(
    `{"heads": [{"id": "l1", "business_id": "b1", "kind": "customer_funds", "balance": ${Number.MAX_SAFE_INTEGER}, "entry_count": 3, "last_hash": "h"}]}`,
  );
  assert.equal(safe.heads?.[0]?.balance, Number.MAX_SAFE_INTEGER);
  // 2^53 + 1 parses to 2^53: caught, as node-postgres's int8 parser here catches it.
  assert.throws(
    () => parseLookup('{"last": [{"business_id": "b1", "ordinal": 9007199254740993, "created_at": "x"}]}'),
    RangeError,
  );
  assert.throws(() => parseLookup('{"found": [{"total_received": 1e300}]}'), RangeError);
  assert.deepEqual(parseLookup("{}"), {});
  assert.throws(() => parseLookup(undefined), /no row/);
});
