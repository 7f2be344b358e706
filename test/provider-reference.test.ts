import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountProvider, VirtualAccountRequest } from "../src/providers/account-provider.js";
import { assertFailCode } from "./helpers/assertions.js";
import { WrappedBank } from "./helpers/banks.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// The reference a request sends to the bank is claimed with the request, before the bank is
// called: a retry of the same request after a failure sends the same reference, so a bank that
// dedupes on it (as real ones do) can never open a second account.

/** The embedded bank, recording every reference it is sent, failing the calls a test asks it to. */
class RecordingBank extends WrappedBank {
  readonly references: string[] = [];
  failures = 0;
  override async createVirtualAccount(request: VirtualAccountRequest) {
    this.references.push(request.accountReference);
    if (this.failures > 0) {
      this.failures--;
      throw new Error("upstream timeout");
    }
    return this.inner.createVirtualAccount(request);
  }
}

for (const dialect of DIALECTS) {
  describe(`bank references on ${dialect}`, () => {
    let h: Harness;
    let bank: RecordingBank;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({
        dialect,
        provider: ({ embedded }: { embedded: AccountProvider }) => {
          bank = new RecordingBank(embedded);
          return bank;
        },
      });
      business = await h.createBusiness();
    });
    after(() => h.close());

    for (const path of ["/account/generate", "/account/generate/temporary"]) {
      test(`${path}: retries with one Idempotency-Key after 502s send the bank one reference`, async () => {
        const body = customer();
        const headers = { "idempotency-key": `retry-${path}-${Date.now()}` };
        bank.references.length = 0;
        bank.failures = 2;
        for (let attempt = 0; attempt < 2; attempt++) {
          assertFailCode(
            await h.request({ url: `${API}${path}`, body, as: business, headers }),
            502,
            "PROVIDER_UNAVAILABLE",
          );
        }
        const done = await h.request({ url: `${API}${path}`, body, as: business, headers });
        assert.equal(done.statusCode, 201, done.body);
        assert.equal(bank.references.length, 3);
        assert.equal(new Set(bank.references).size, 1, "the same reference every time");
        const stored = await h.storage.db
          .selectFrom("account_numbers")
          .select(["reference", "issued_by_type", "issued_by_id"])
          .where("account_number", "=", done.json().data.accountNumber)
          .executeTakeFirstOrThrow();
        assert.equal(stored.reference, bank.references[0], "and it is the one recorded with the number");
        assert.deepEqual(
          [stored.issued_by_type, stored.issued_by_id],
          ["api_key", business.keyId],
          "with the actor who had it issued",
        );
      });
    }

    test("another request under the key (after a 502) gets a new reference; so does a request without one", async () => {
      const headers = { "idempotency-key": `other-${Date.now()}` };
      bank.references.length = 0;
      bank.failures = 1;
      assertFailCode(
        await h.request({ url: `${API}/account/generate`, body: customer(), as: business, headers }),
        502,
        "PROVIDER_UNAVAILABLE",
      );
      const other = await h.request({
        url: `${API}/account/generate`,
        body: customer(),
        as: business,
        headers,
      });
      assert.equal(other.statusCode, 201, other.body);
      await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      assert.equal(new Set(bank.references).size, 3);
    });
  });
}
