import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { RequestUnitOfWork } from "../src/http/unit-of-work.js";
import { writeTransaction } from "../src/storage/transactions.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// The unit of work: the one write transaction of a domain call also stores the request's
// answer; storage translates what the database refuses into the domain's errors.

for (const dialect of DIALECTS) {
  describe(`unit of work on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
    });
    after(() => h.close());

    const claim = async () => {
      const [claimed] = await h.services.requestRecords.claim(
        business.businessId,
        [{ kind: "idempotency", key: randomUUID(), ttlMs: 60_000 }],
        "f",
      );
      assert.equal(claimed?.outcome, "claimed");
      return (claimed as Extract<typeof claimed, { outcome: "claimed" }>).claim;
    };
    const record = (id: Awaited<ReturnType<typeof claim>>) =>
      h.storage.db
        .selectFrom("request_records")
        .select(["state", "status_code", "response"])
        .where("key", "=", id.key)
        .executeTakeFirstOrThrow();

    test("the answer is stored in the write transaction, from its result", async () => {
      const id = await claim();
      const unit = new RequestUnitOfWork(
        (value) => ({ claims: [id], statusCode: 201, response: JSON.stringify(value) }),
        undefined,
      );
      const result = await writeTransaction(h.storage, async () => ({ made: 1 }), unit);
      assert.equal(unit.answered, true);
      assert.deepEqual(result, { made: 1 });
      assert.deepEqual(await record(id), { state: "done", status_code: 201, response: '{"made":1}' });
    });

    test("a write that fails stores nothing: the claim stays as it was", async () => {
      const id = await claim();
      const unit = new RequestUnitOfWork(
        () => ({ claims: [id], statusCode: 201, response: "{}" }),
        undefined,
      );
      await assert.rejects(
        writeTransaction(
          h.storage,
          async () => {
            throw new Error("the effect failed");
          },
          unit,
        ),
        /the effect failed/,
      );
      assert.equal((await record(id)).state, "in_flight");
    });

    test("a unit of work makes one write transaction; a second is refused", async () => {
      const unit = new RequestUnitOfWork(() => ({ claims: [], statusCode: 200, response: "{}" }), undefined);
      let ran = false;
      await writeTransaction(h.storage, async () => 1, unit);
      await assert.rejects(
        writeTransaction(
          h.storage,
          async () => {
            ran = true;
            return 2;
          },
          unit,
        ),
        /one write transaction/,
      );
      assert.equal(ran, false, "refused before it runs");
    });
  });
}
