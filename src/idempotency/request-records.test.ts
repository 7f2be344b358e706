import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DIALECTS, migratedStorage, storesOf } from "../../test/helpers/databases.js";
import type { RequestRecordKind } from "../core/unit-of-work.js";
import type { Storage } from "../storage/database.js";
import { RequestRecords } from "./request-records.js";

/** One key claimed alone, as a request with no Idempotency-Key claims its signature. */
async function claimOne(
  r: RequestRecords,
  kind: RequestRecordKind,
  key: string,
  fingerprint: string,
  ttlMs: number,
) {
  const [claim, ...others] = await r.claim("biz", [{ kind, key, ttlMs }], fingerprint);
  assert.ok(claim);
  assert.equal(others.length, 0);
  return claim;
}

for (const dialect of DIALECTS) {
  describe(`request records on ${dialect}`, () => {
    let storage: Storage;
    let close: () => Promise<void>;
    let clock = Date.parse("2026-11-21T12:00:00.000Z");

    before(async () => {
      const opened = await migratedStorage(dialect);
      storage = opened.storage;
      close = opened.close;
    });
    after(() => close());

    // On SQLite the claims go through the group commit, as in the service.
    const records = () =>
      new RequestRecords({
        db: storage.db,
        claims: storesOf(storage).requestRecords,
        leaseMs: 30_000,
        now: () => clock,
      });

    test("first claim runs, the next sees it in flight, then its stored answer", async () => {
      const r = records();
      const first = await claimOne(r, "idempotency", "k1", "fp", 60_000);
      assert.equal(first.outcome, "claimed");
      assert.deepEqual(await claimOne(r, "idempotency", "k1", "fp", 60_000), { outcome: "in_flight" });
      assert.deepEqual(await claimOne(r, "idempotency", "k1", "other", 60_000), { outcome: "mismatch" });
      if (first.outcome !== "claimed") return;
      await r.complete(first.claim, 201, '{"ok":true}');
      assert.deepEqual(await claimOne(r, "idempotency", "k1", "fp", 60_000), {
        outcome: "replay",
        statusCode: 201,
        response: '{"ok":true}',
      });
    });

    test("a request's keys are claimed in order, up to the first that is not: a later key is not tried", async () => {
      const r = records();
      const keys = (idempotency: string) => [
        { kind: "signature" as const, key: "s1", ttlMs: 60_000 },
        { kind: "idempotency" as const, key: idempotency, ttlMs: 60_000 },
      ];
      const both = await r.claim("biz", keys("i1"), "fp");
      assert.deepEqual(
        both.map((claim) => claim.outcome),
        ["claimed", "claimed"],
      );
      assert.deepEqual(await r.claim("biz", keys("i2"), "fp"), [{ outcome: "in_flight" }]);
      const stored = await storage.db
        .selectFrom("request_records")
        .select(["kind", "key"])
        .where("key", "in", ["s1", "i1", "i2"])
        .orderBy("key")
        .execute();
      assert.deepEqual(stored, [
        { kind: "idempotency", key: "i1" },
        { kind: "signature", key: "s1" },
      ]);
    });

    test("a claim whose holder died (lease over) can be taken over, once", async () => {
      const r = records();
      assert.equal((await claimOne(r, "signature", "k2", "fp", 600_000)).outcome, "claimed");
      clock += 31_000;
      const [a, b] = await Promise.all([
        claimOne(r, "signature", "k2", "fp", 600_000),
        claimOne(r, "signature", "k2", "fp", 600_000),
      ]);
      assert.deepEqual([a.outcome, b.outcome].sort(), ["claimed", "in_flight"]);
    });

    test("released claims run again; expired records are pruned and their keys reusable", async () => {
      const r = records();
      const claim = await claimOne(r, "idempotency", "k3", "fp", 60_000);
      assert.equal(claim.outcome, "claimed");
      if (claim.outcome === "claimed") await r.release(claim.claim);
      const again = await claimOne(r, "idempotency", "k3", "fp", 60_000);
      assert.equal(again.outcome, "claimed");
      if (again.outcome === "claimed") await r.complete(again.claim, 200, "{}");

      clock += 61_000;
      assert.equal(
        (await claimOne(r, "idempotency", "k3", "different", 60_000)).outcome,
        "claimed",
        "expired: reusable",
      );
      clock += 24 * 60 * 60 * 1000;
      const pruned = await r.prune();
      assert.ok(pruned >= 1);
      const left = await storage.db.selectFrom("request_records").select("key").execute();
      assert.deepEqual(left, []);
    });

    test("pruning goes in small batches, oldest expiry first, and stops after its last batch", async () => {
      const r = records();
      for (let i = 0; i < 7; i++) await claimOne(r, "signature", `batch-${i}`, "fp", 1000 + i);
      const live = await claimOne(r, "signature", "still-live", "fp", 60 * 60_000);
      assert.equal(live.outcome, "claimed");
      clock += 2000;
      assert.equal(await r.prune(3, 2), 6, "two batches of three, then it stops");
      const keys = async () =>
        (await storage.db.selectFrom("request_records").select("key").orderBy("key").execute()).map(
          (row) => row.key,
        );
      assert.deepEqual(await keys(), ["batch-6", "still-live"], "the latest expiry is left for the next run");
      assert.equal(await r.prune(3, 2), 1);
      assert.deepEqual(await keys(), ["still-live"]);
    });
  });
}
