import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type pg from "pg";
import type { FreshRecord } from "../src/core/request-record-claims.js";
import type { BankAccountRecord } from "../src/providers/virtual-bank-store.js";
import type { PostgresStorage } from "../src/storage/database.js";
import { isUniqueViolation } from "../src/storage/errors.js";
import { postgresRequestRecordClaims } from "../src/storage/postgres/request-records.js";
import { postgresVirtualBankStore } from "../src/storage/postgres/virtual-bank-store.js";
import type { RecordId } from "../src/storage/request-record-repository.js";
import { DATABASE_KINDS, migratedStorage } from "./helpers/databases.js";

/** Every statement text the pool is sent, in order (the pool itself still runs them). */
function recordStatements(pool: pg.Pool): string[] {
  const texts: string[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const first = args[0] as string | { text: string };
    texts.push(typeof first === "string" ? first : first.text);
    return query(...args);
  };
  return texts;
}

const fresh = (): FreshRecord => {
  const now = new Date();
  return {
    fingerprint: "f".repeat(64),
    lockedUntil: new Date(now.getTime() + 30_000).toISOString(),
    expiresAt: new Date(now.getTime() + 600_000).toISOString(),
    createdAt: now.toISOString(),
    reference: randomUUID(),
  };
};

// PostgreSQL's small autocommitted writes on the request path go in batches (issue 29): each keeps
// the outcome it would have had alone. Run directly and behind PgBouncer in transaction mode.
for (const kind of DATABASE_KINDS.filter((k) => k !== "sqlite")) {
  describe(`batched writes on ${kind}`, () => {
    let storage: PostgresStorage;
    let close: () => Promise<void>;
    let businessId: string;

    before(async () => {
      const opened = await migratedStorage(kind);
      storage = opened.storage as PostgresStorage;
      close = opened.close;
      businessId = randomUUID();
    });
    after(() => close());

    test("concurrent claims: one statement inserts the new keys; a key claimed twice at once is claimed once", async () => {
      const claims = postgresRequestRecordClaims(storage);
      const statements = recordStatements(storage.pool);
      const ids: RecordId[] = [
        ...Array.from({ length: 30 }, (_, i) => ({
          business_id: businessId,
          kind: "signature" as const,
          key: `k${i}`,
        })),
        ...Array.from({ length: 5 }, () => ({
          business_id: businessId,
          kind: "signature" as const,
          key: "twice",
        })),
      ];
      const outcomes = (
        await Promise.all(ids.map((id) => claims.claim([{ id, fresh: fresh() }], () => undefined)))
      ).flat();
      const claimed = outcomes.filter((o) => "claimed" in o).length;
      assert.equal(claimed, 31, "every new key once, the repeated key once");
      assert.equal(
        outcomes.filter((o) => "standing" in o).length,
        4,
        "the repeats find the first claim standing",
      );
      const rows = await storage.pool.query<{ key: string }>(
        "select key from request_records where business_id = $1",
        [businessId],
      );
      assert.equal(rows.rowCount, 31);
      const inserts = statements.filter((text) => /^insert into request_records/.test(text));
      // The 31 distinct keys in the first statement; each repeat of "twice" in one of its own.
      assert.ok(inserts.length <= 5, `${inserts.length} insert statements for 35 claims`);
      assert.match(inserts[0] ?? "", /unnest/, "the first claims went as one batch");
    });

    test("concurrent openings at the Virtual Bank: one statement; a reference opened twice answers its first recording; a refused row fails alone", async () => {
      const store = postgresVirtualBankStore(storage);
      const statements = recordStatements(storage.pool);
      const account = (reference: string, accountNumber: string): BankAccountRecord => ({
        reference,
        accountNumber,
        accountName: `Account ${reference}`,
        status: "enabled",
        createdAt: new Date().toISOString(),
      });
      await store.openOnce(account("taken", "9000000000"));
      statements.length = 0;
      const requests = [
        ...Array.from({ length: 20 }, (_, i) => account(`ref-${i}`, String(9100000000 + i))),
        account("ref-0", "9199999999"), // the same reference again, with another number: a retry
      ];
      const opened = await Promise.all(requests.map((r) => store.openOnce(r)));
      assert.deepEqual(
        opened.map((a) => a.accountNumber),
        [...requests.slice(0, 20).map((r) => r.accountNumber), "9100000000"],
        "each its own number; the retry its first recording's",
      );
      const inserts = statements.filter((text) => /^insert into virtual_bank_accounts/.test(text));
      assert.ok(inserts.length <= 2, `${inserts.length} insert statements for 21 openings`);

      // A number another reference holds (never issued twice by the bank, but the table refuses it).
      const more = [
        account("more-1", "9200000001"),
        account("clash", "9000000000"),
        account("more-2", "9200000002"),
      ];
      const outcomes = await Promise.allSettled(more.map((r) => store.openOnce(r)));
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      const clash = outcomes[1];
      assert.ok(
        clash?.status === "rejected" && isUniqueViolation(clash.reason),
        "the clashing number fails alone",
      );
      const rows = await storage.pool.query(
        "select reference from virtual_bank_accounts where reference <> 'taken'",
      );
      assert.equal(rows.rowCount, 22);
    });
  });
}
