import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { isAppError } from "../src/errors.js";
import { insertAccount } from "../src/storage/account-repository.js";
import { insertRecordIfAbsent } from "../src/storage/request-record-repository.js";
import { inUnitOfWork, writeTransaction } from "../src/storage/transactions.js";
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
      const id = { business_id: business.businessId, kind: "idempotency" as const, key: randomUUID() };
      const now = new Date();
      await insertRecordIfAbsent(h.storage.db, {
        ...id,
        fingerprint: "f",
        state: "in_flight",
        locked_until: new Date(now.getTime() + 60_000).toISOString(),
        expires_at: new Date(now.getTime() + 60_000).toISOString(),
        created_at: now.toISOString(),
      });
      return id;
    };
    const record = (id: Awaited<ReturnType<typeof claim>>) =>
      h.storage.db
        .selectFrom("request_records")
        .select(["state", "status_code", "response"])
        .where("key", "=", id.key)
        .executeTakeFirstOrThrow();

    test("the answer is stored in the write transaction, from its result", async () => {
      const id = await claim();
      const result = await inUnitOfWork(
        (value) => ({ claims: [id], statusCode: 201, response: JSON.stringify(value) }),
        () => writeTransaction(h.storage, async () => ({ made: 1 })),
      );
      assert.deepEqual(result, { made: 1 });
      assert.deepEqual(await record(id), { state: "done", status_code: 201, response: '{"made":1}' });
    });

    test("a write that fails stores nothing: the claim stays as it was", async () => {
      const id = await claim();
      await assert.rejects(
        inUnitOfWork(
          () => ({ claims: [id], statusCode: 201, response: "{}" }),
          () =>
            writeTransaction(h.storage, async () => {
              throw new Error("the effect failed");
            }),
        ),
        /the effect failed/,
      );
      assert.equal((await record(id)).state, "in_flight");
    });

    test("a unit of work makes one write transaction; a second is refused", async () => {
      await assert.rejects(
        inUnitOfWork(
          () => ({ claims: [], statusCode: 200, response: "{}" }),
          async () => {
            await writeTransaction(h.storage, async () => 1);
            return writeTransaction(h.storage, async () => 2);
          },
        ),
        /one write transaction/,
      );
    });

    test("a second permanent account for one email is the domain's 409, not the driver's error", async () => {
      const row = (accountNumber: string, ordinal: number) => ({
        id: randomUUID(),
        business_id: business.businessId,
        ordinal,
        kind: "permanent" as const,
        account_number: accountNumber,
        account_name: "Acme/Ada",
        customer_name: "Ada",
        email: "twice@example.com",
        identity_type: "bvn" as const,
        identity_fingerprint: "x",
        identity_last4: "8901",
        version: 1,
        duration_minutes: null,
        expires_at: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      });
      await insertAccount(h.storage.db, row("1000000001", 9001));
      const error = await insertAccount(h.storage.db, row("1000000002", 9002)).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isAppError(error), String(error));
      assert.equal(error.statusCode, 409);
      assert.equal(error.code, "CONFLICT");
    });
  });
}
