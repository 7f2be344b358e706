import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { bodiesOf, Contract, fetchDocument, type Json } from "./helpers/openapi-contract.js";

// Bodies generated from the OpenAPI document's own request schemas, sent signed to the server on
// both databases: a body the document accepts is never refused as VALIDATION_FAILED but for the
// refusals docs/api.md names as outside the schemas ("What a body valid by its schema may still be
// refused for"), and a body the document refuses is a 4xx, never a 5xx.

const RUNS = 40;

/** The refusals outside the schemas that docs/api.md lists, by the server's message. */
const OUTSIDE_THE_SCHEMA = [
  /must contain a visible character/, // a name of invisible characters only
  /^name must be at most 200 characters$/, // a customer's name, its length in its description
  /is not a bank in GET \/banks/, // the data a body names
  /check digit|is not a valid account number/,
  /^since must be within the last \d+ days/, // the clock and the retention
  /disabled/, // recovery to an endpoint a generated PATCH disabled
];

const PAYEE = SANDBOX_PAYEES.find(
  (payee) => payee.outcome === "successful",
) as (typeof SANDBOX_PAYEES)[number];

for (const dialect of DIALECTS) {
  describe(`bodies generated from the document's request schemas, on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let contract: Contract;
    /** Ids the paths name, made once. */
    const ids = { transaction: "", endpoint: "", event: "", accountNumber: "" };
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
      contract = new Contract(await fetchDocument(h));
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      ids.accountNumber = generated.json().data.accountNumber;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber: ids.accountNumber, amount: 100_000_000, payerBankCode: PAYEE.bankCode },
        as: business,
      });
      ids.transaction = paid.json().data.id;
      const endpoint = await h.request({
        url: `${API}/webhooks`,
        body: { url: "https://hooks.example.com/vas" },
        as: business,
      });
      ids.endpoint = endpoint.json().data.id;
      ids.event = (await h.request({ url: `${API}/events`, as: business })).json().data[0].id;
    });
    after(() => h.close());

    /** Every operation with a body: its method, its path with real ids, and what names real data. */
    const operations = () =>
      [
        ["post", "/account/generate", {}],
        ["post", "/account/generate/temporary", {}],
        ["post", "/account/{accountNumber}/identity", {}],
        ["post", "/transactions/requery", {}],
        ["post", "/sandbox/transfers", { accountNumber: ids.accountNumber }],
        ["post", "/events/{id}/redeliver", { endpointId: ids.endpoint }],
        ["post", "/webhooks", {}],
        ["patch", "/webhooks/{id}", {}],
        ["post", "/webhooks/{id}/recover", {}],
        ["post", "/payouts", { bankCode: PAYEE.bankCode, accountNumber: PAYEE.accountNumber }],
        ["post", "/transactions/{id}/refund", {}],
        // Last: who may pay in, fuzzed, may decline the sandbox transfers above.
        ["patch", "/account/{accountNumber}", {}],
      ] as const;

    const send = (method: "post" | "patch", path: string, body: unknown) => {
      const id = path.startsWith("/webhooks")
        ? ids.endpoint
        : path.startsWith("/events")
          ? ids.event
          : ids.transaction;
      return h.request({
        method: method === "post" ? "POST" : "PATCH",
        url: `${API}${path.replace("{id}", id).replace("{accountNumber}", ids.accountNumber)}`,
        body,
        as: business,
        headers: { "idempotency-key": randomUUID() },
      });
    };

    const schemaOf = (method: string, path: string) => {
      const pointer = `/paths/${path.replace(/\//g, "~1")}/${method}/requestBody/content/application~1json/schema`;
      assert.ok(contract.at(pointer), `${method} ${path} has a body schema`);
      return pointer;
    };

    test("the list of operations is every operation the document gives a body", () => {
      const withBodies = Object.entries(
        contract.document.paths as Record<string, Record<string, Json>>,
      ).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => operation.requestBody !== undefined)
          .map(([method]) => `${method} ${path}`),
      );
      assert.deepEqual(
        withBodies.sort(),
        operations()
          .map(([method, path]) => `${method} ${path}`)
          .sort(),
      );
    });

    test("a body the document accepts is not refused for its form", async () => {
      for (const [method, path, real] of operations()) {
        const pointer = schemaOf(method, path);
        const validate = contract.validator(pointer);
        await fc.assert(
          fc.asyncProperty(bodiesOf(contract, pointer), fc.boolean(), async (generated, useReal) => {
            // Half the time the fields naming data name the business's own, to reach past them.
            const body =
              useReal && typeof generated === "object" && generated !== null
                ? { ...generated, ...real }
                : generated;
            if (!validate(body)) return;
            const response = await send(method, path, body);
            assert.ok(
              response.statusCode < 500,
              `${method} ${path} ${JSON.stringify(body)}: ${response.body}`,
            );
            if (response.statusCode === 400) {
              const { message, error } = response.json();
              assert.ok(
                error.code !== "VALIDATION_FAILED" || OUTSIDE_THE_SCHEMA.some((rule) => rule.test(message)),
                `${method} ${path} refused a body its schema accepts: ${JSON.stringify(body)}: ${message}`,
              );
            }
          }),
          { numRuns: RUNS },
        );
      }
    });

    test("a body the document refuses is a 4xx, never a 5xx", async () => {
      for (const [method, path] of operations()) {
        const pointer = schemaOf(method, path);
        const validate = contract.validator(pointer);
        const broken = fc
          .tuple(bodiesOf(contract, pointer), fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }))
          .map(([body, field, value]) => {
            const properties = Object.keys(contract.at(pointer)?.properties ?? {});
            const name = properties[field.length % Math.max(properties.length, 1)] ?? field;
            return { ...(body as Json), [name]: value };
          });
        await fc.assert(
          fc.asyncProperty(broken, async (body) => {
            const response = await send(method, path, body);
            if (validate(body)) return assert.ok(response.statusCode < 500, response.body);
            assert.ok(
              response.statusCode >= 400 && response.statusCode < 500,
              `${method} ${path} ${JSON.stringify(body)}: ${response.statusCode} ${response.body}`,
            );
          }),
          { numRuns: RUNS },
        );
      }
    });
  });
}
