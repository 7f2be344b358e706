import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { Contract, fetchDocument } from "./helpers/openapi-contract.js";

// What Schemathesis found where the server and its OpenAPI document disagreed (issue 43, item 10),
// each held on both databases.

const LAST_PAGE = Number.MAX_SAFE_INTEGER;
const PAYEE = SANDBOX_PAYEES.find(
  (payee) => payee.outcome === "successful",
) as (typeof SANDBOX_PAYEES)[number];

for (const dialect of DIALECTS) {
  describe(`the fuzzer's findings on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let contract: Contract;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
      contract = new Contract(await fetchDocument(h));
      // Something in every list: an account, a payment into it, its event, a payout.
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      const { accountNumber } = generated.json().data;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: 1_000_000 },
        as: business,
      });
      assert.equal(paid.statusCode, 201, paid.body);
      const payout = await h.request({
        url: `${API}/payouts`,
        body: { amount: 10_000, bankCode: PAYEE.bankCode, accountNumber: PAYEE.accountNumber },
        as: business,
        headers: { "idempotency-key": "fuzz-findings-payout" },
      });
      assert.equal(payout.statusCode, 202, payout.body);
    });
    after(() => h.close());

    test("every list answers a page past the end with 200, no items and the true totals", async () => {
      for (const path of ["/account/list", "/transactions", "/events", "/payouts", "/settlements"]) {
        const response = await h.request({ url: `${API}${path}?page=${LAST_PAGE}&limit=100`, as: business });
        assert.equal(response.statusCode, 200, `${path}: ${response.body}`);
        contract.check("get", path, response);
        const { total } = (await h.request({ url: `${API}${path}`, as: business })).json().pagination;
        const { data, pagination } = response.json();
        assert.deepEqual(data, [], path);
        assert.deepEqual(
          pagination,
          { page: LAST_PAGE, limit: 100, total, pages: Math.ceil(total / 100) },
          path,
        );
        if (path !== "/settlements") assert.ok(total > 0, `${path} lists something`);
      }
    });

    test("QUERY, a method no route takes, is a 404 on a known path as any other method is", async () => {
      for (const headers of [{}, { "content-type": "application/json" }]) {
        for (const method of ["QUERY", "DELETE"] as const) {
          const response = await h.app.inject({
            method,
            url: `${API}/account/list`,
            headers,
            ...(headers["content-type"] ? { payload: "{}" } : {}),
          });
          assertFailCode(response, 404, "NOT_FOUND");
          assert.equal(response.json().message, `Route ${method} ${API}/account/list not found`);
        }
      }
    });

    test("a webhook's url and events: the document refuses what the server refuses, an empty url said plainly", async () => {
      const create = contract.validator("/components/schemas/CreateWebhookEndpointRequest");
      const refused = [
        [{ url: "" }, "url must not be empty: send an absolute http or https URL"],
        [{ url: "hooks.example.com/vas" }, "url must be an absolute http or https URL"],
        [{ url: "ftp://hooks.example.com/vas" }, "url must be an http or https URL"],
        [{ url: "https://user:pw@hooks.example.com/vas" }, "url must not contain credentials"],
        [{ url: "https://hooks.example.com/vas#top" }, "url must not contain a fragment"],
        [
          { url: "https://hooks.example.com/vas", events: ["payout.failed", "payout.failed"] },
          "events must not repeat a type",
        ],
      ] as const;
      for (const [body, message] of refused) {
        assert.ok(!create(body), `the document refuses ${JSON.stringify(body)}`);
        assertValidation(await h.request({ url: `${API}/webhooks`, body, as: business }), message);
      }
      const accepted = { url: "HTTPS://hooks.example.com:8443/vas?b=1", events: ["payout.failed"] };
      assert.ok(create(accepted), JSON.stringify(create.errors));
      const made = await h.request({ url: `${API}/webhooks`, body: accepted, as: business });
      assert.equal(made.statusCode, 201, made.body);
    });
  });
}
