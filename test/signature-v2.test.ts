import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { sign, signRequestV2 } from "../src/auth/signature.js";
import { createClient } from "../src/client/index.js";
import { assertFailCode, assertFailMessage } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// Version 2 binds the whole request: what a captured version 1 request can be bent into, a
// version 2 request cannot.

for (const dialect of DIALECTS) {
  describe(`signature version 2 on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let strict: TestBusiness;

    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Loose Ltd" });
      strict = await h.createBusiness({ name: "Strict Ltd" });
      await h.services.businesses.requireSignatureVersion(strict.keyId, 2);
      await h.app.listen({ port: 0, host: "127.0.0.1" });
    });
    after(() => h.close());

    /** Sends `method url` signed (version 2) as `signedAs` says, which may differ from what is sent. */
    const v2 = (
      as: TestBusiness,
      sent: { method: "GET" | "POST"; url: string; body?: string; idempotencyKey?: string },
      signedAs: Partial<typeof sent> = {},
    ) => {
      const timestamp = String(Date.now());
      const signed = { ...sent, ...signedAs };
      return h.app.inject({
        method: sent.method,
        url: sent.url,
        headers: {
          "x-api-key": as.apiKey,
          "x-timestamp": timestamp,
          "x-signature-version": "2",
          "x-signature": signRequestV2(as.secretKey, {
            method: signed.method,
            url: signed.url,
            timestamp,
            idempotencyKey: signed.idempotencyKey,
            body: signed.body,
          }),
          ...(sent.body === undefined ? {} : { "content-type": "application/json" }),
          ...(sent.idempotencyKey === undefined ? {} : { "idempotency-key": sent.idempotencyKey }),
        },
        ...(sent.body === undefined ? {} : { payload: sent.body }),
      });
    };

    test("a version 2 request is accepted, on every route", async () => {
      const body = JSON.stringify(customer());
      assert.equal(
        (await v2(business, { method: "POST", url: `${API}/account/generate`, body })).statusCode,
        201,
      );
      const temporary = JSON.stringify(customer({ duration: 5 }));
      const created = await v2(business, {
        method: "POST",
        url: `${API}/account/generate/temporary`,
        body: temporary,
      });
      assert.equal(created.statusCode, 201);
      const list = await v2(business, { method: "GET", url: `${API}/account/list?page=1&limit=1` });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().pagination.limit, 1);
    });

    test("version 1 lets a captured list be replayed with another query; version 2 does not", async () => {
      const timestamp = String(Date.now());
      const v1Signature = sign(business.secretKey, "{}", timestamp);
      const replayed = await h.app.inject({
        method: "GET",
        url: `${API}/account/list?limit=100`,
        headers: { "x-api-key": business.apiKey, "x-timestamp": timestamp, "x-signature": v1Signature },
      });
      assert.equal(replayed.statusCode, 200, "the specification's scheme does not cover the query");

      const bent = await v2(
        business,
        { method: "GET", url: `${API}/account/list?limit=100` },
        { url: `${API}/account/list?limit=1` },
      );
      assertFailMessage(bent, 401, "Invalid signature");
    });

    test("a version 2 body cannot be sent to the other endpoint, nor with another Idempotency-Key", async () => {
      const body = JSON.stringify(customer());
      const other = await v2(
        business,
        { method: "POST", url: `${API}/account/generate/temporary`, body },
        { url: `${API}/account/generate` },
      );
      assertFailMessage(other, 401, "Invalid signature");
      const rekeyed = await v2(
        business,
        { method: "POST", url: `${API}/account/generate`, body, idempotencyKey: "attacker-chosen" },
        { idempotencyKey: "order-7" },
      );
      assertFailMessage(rekeyed, 401, "Invalid signature");
    });

    test("a key that requires version 2 refuses version 1, whatever else is right", async () => {
      const refused = await h.request({ url: `${API}/account/list`, as: strict });
      assertFailCode(refused, 401, "SIGNATURE_VERSION_REQUIRED");
      assert.equal(
        refused.json().message,
        "This API key requires signature version 2: send x-signature-version: 2",
      );
      assert.equal((await v2(strict, { method: "GET", url: `${API}/account/list` })).statusCode, 200);
    });

    test("an unknown x-signature-version is refused", async () => {
      const response = await h.request({
        url: `${API}/account/list`,
        as: business,
        headers: { "x-signature-version": "3" },
      });
      assertFailCode(response, 401, "INVALID_SIGNATURE_VERSION");
    });

    test("the SDK signs with version 2 by default, so it works with a key that requires it", async () => {
      const port = (h.app.server.address() as AddressInfo).port;
      const client = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: strict.apiKey,
        secretKey: strict.secretKey,
      });
      const account = await client.generateAccount({
        name: "Ada Obi",
        email: "ada.sdk@example.com",
        bvn: "22345678901",
      });
      assert.match(account.accountNumber, /^\d{10}$/);
      const page = await client.listAccounts({ page: 1, limit: 5 });
      assert.equal(page.data[0]?.accountNumber, account.accountNumber);
      const v1 = createClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: strict.apiKey,
        secretKey: strict.secretKey,
        signatureVersion: 1,
        maxRetries: 0,
      });
      await assert.rejects(v1.listAccounts(), /requires signature version 2/);
    });
  });
}
