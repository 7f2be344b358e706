import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { sign } from "../src/auth/signature.js";
import { nameOf } from "../src/http/answers.js";
import { documentPath, operationOf, ROUTE_CONTRACTS } from "../src/http/openapi.js";
import { answersOf } from "../src/http/openapi-components.js";
import { SIGNING_EXAMPLE } from "../src/http/openapi-document-components.js";
import { contract as generatePermanentContract } from "../src/http/routes/generate-permanent.js";
import { contract as generateTemporaryContract } from "../src/http/routes/generate-temporary.js";
import { contract as listAccountsContract } from "../src/http/routes/list-accounts.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import {
  ACCOUNT,
  Contract,
  fetchDocument,
  GENERATE,
  type Json,
  LIST,
  OPENAPI_URL,
  SANDBOX,
  TEMPORARY,
} from "./helpers/openapi-contract.js";

// The document itself: valid, complete, each operation its route's own contract. What real
// answers look like against it is openapi-answers.test.ts.

describe("the OpenAPI document", () => {
  let h: Harness;
  let document: Json;
  before(async () => {
    h = await createHarness();
    document = await fetchDocument(h);
  });
  after(() => h.close());

  test("is served without authentication, as JSON", async () => {
    const response = await h.app.inject({ method: "GET", url: OPENAPI_URL });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers["content-type"]), /^application\/json; charset=utf-8$/);
    assert.ok(response.headers["x-request-id"]);
    assert.equal(response.body, (await h.app.inject({ method: "GET", url: OPENAPI_URL })).body);
  });

  test("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    assert.equal(validator.version, "3.1");
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    new Contract(document); // and Ajv accepts every schema in it
  });

  test("documents every operation, each signed with all three headers", () => {
    const paths = document.paths as Record<string, Json>;
    assert.deepEqual(
      Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)),
      [
        `post ${GENERATE}`,
        `post ${TEMPORARY}`,
        `get ${LIST}`,
        `head ${LIST}`,
        `get ${ACCOUNT}`,
        `head ${ACCOUNT}`,
        `patch ${ACCOUNT}`,
        `post ${ACCOUNT}/deactivate`,
        `post ${ACCOUNT}/reactivate`,
        `post ${ACCOUNT}/identity`,
        "get /transactions",
        "head /transactions",
        "get /transactions/{id}",
        "head /transactions/{id}",
        "post /transactions/requery",
        "get /balance",
        "head /balance",
        `post ${SANDBOX}`,
        "get /events",
        "head /events",
        "get /events/{id}",
        "head /events/{id}",
        "get /events/{id}/attempts",
        "head /events/{id}/attempts",
        "post /events/{id}/redeliver",
        "post /webhooks",
        "get /webhooks",
        "head /webhooks",
        "get /webhooks/{id}",
        "head /webhooks/{id}",
        "patch /webhooks/{id}",
        "delete /webhooks/{id}",
        "post /webhooks/{id}/rotate-secret",
        "post /webhooks/{id}/test",
        "post /webhooks/{id}/recover",
        "get /banks",
        "head /banks",
        "get /banks/resolve",
        "head /banks/resolve",
        "get /sandbox/payout-accounts",
        "head /sandbox/payout-accounts",
        "post /payouts",
        "get /payouts",
        "head /payouts",
        "get /payouts/{id}",
        "head /payouts/{id}",
        "post /transactions/{id}/refund",
        "post /transactions/{id}/accept",
        "post /transactions/{id}/return",
        "get /settlements",
        "head /settlements",
        "get /settlements/{id}",
        "head /settlements/{id}",
        "get /settlements/{id}/transactions",
        "head /settlements/{id}/transactions",
      ],
    );
    assert.deepEqual(document.servers, [{ url: API, description: "This server" }]);
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    assert.deepEqual(
      Object.values(schemes).map(({ type, in: where, name }) => [type, where, name]),
      [
        ["apiKey", "header", "x-api-key"],
        ["apiKey", "header", "x-timestamp"],
        ["apiKey", "header", "x-signature"],
      ],
    );
    const statuses: Record<string, string[]> = {};
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item) as Array<[string, Json]>) {
        assert.deepEqual(operation.security, [{ ApiKey: [], Timestamp: [], Signature: [] }]);
        statuses[`${method} ${path}`] = Object.keys(operation.responses as Json);
      }
    }
    const failures = ["400", "401", "404", "409", "413", "415", "422", "429", "431", "500", "502", "503"];
    const listed = ["200", "400", "401", "404", "429", "431", "500", "503"];
    const lifecycle = ["200", ...failures];
    const sandbox = ["201", ...failures.filter((status) => status !== "502")];
    const webhookWrite = failures.filter((status) => status !== "502");
    // Money out: 403 while API payouts are off (or from another address); 202 once held.
    const moneyOut = ["202", ...failures.slice(0, 2), "403", ...failures.slice(2)];
    assert.deepEqual(statuses, {
      [`post ${GENERATE}`]: ["200", "201", ...failures],
      [`post ${TEMPORARY}`]: ["201", ...failures],
      [`get ${LIST}`]: listed,
      [`head ${LIST}`]: listed,
      [`get ${ACCOUNT}`]: listed,
      [`head ${ACCOUNT}`]: listed,
      [`patch ${ACCOUNT}`]: ["200", ...webhookWrite],
      [`post ${ACCOUNT}/deactivate`]: lifecycle,
      [`post ${ACCOUNT}/reactivate`]: lifecycle,
      [`post ${ACCOUNT}/identity`]: lifecycle,
      "get /transactions": listed,
      "head /transactions": listed,
      "get /transactions/{id}": listed,
      "head /transactions/{id}": listed,
      // Asked of the bank when not recorded: 502 when it cannot answer.
      "post /transactions/requery": ["200", "201", ...failures],
      "get /balance": listed,
      "head /balance": listed,
      [`post ${SANDBOX}`]: sandbox,
      "get /events": listed,
      "head /events": listed,
      "get /events/{id}": listed,
      "head /events/{id}": listed,
      "get /events/{id}/attempts": listed,
      "head /events/{id}/attempts": listed,
      "post /events/{id}/redeliver": ["202", ...webhookWrite],
      "post /webhooks": ["201", ...webhookWrite],
      "get /webhooks": listed,
      "head /webhooks": listed,
      "get /webhooks/{id}": listed,
      "head /webhooks/{id}": listed,
      "patch /webhooks/{id}": ["200", ...webhookWrite],
      "delete /webhooks/{id}": ["200", ...webhookWrite],
      "post /webhooks/{id}/rotate-secret": ["200", ...webhookWrite],
      "post /webhooks/{id}/test": ["202", ...webhookWrite],
      "post /webhooks/{id}/recover": ["202", ...webhookWrite],
      // Reads asked of the partner bank: 502 when it cannot answer; name enquiry's 422.
      "get /banks": ["200", "400", "401", "404", "429", "431", "500", "502", "503"],
      "head /banks": ["200", "400", "401", "404", "429", "431", "500", "502", "503"],
      "get /banks/resolve": ["200", "400", "401", "404", "422", "429", "431", "500", "502", "503"],
      "head /banks/resolve": ["200", "400", "401", "404", "422", "429", "431", "500", "502", "503"],
      "get /sandbox/payout-accounts": listed,
      "head /sandbox/payout-accounts": listed,
      "post /payouts": moneyOut,
      "get /payouts": listed,
      "head /payouts": listed,
      "get /payouts/{id}": listed,
      "head /payouts/{id}": listed,
      "post /transactions/{id}/refund": moneyOut,
      "post /transactions/{id}/accept": ["200", ...webhookWrite],
      "post /transactions/{id}/return": moneyOut,
      "get /settlements": listed,
      "head /settlements": listed,
      "get /settlements/{id}": listed,
      "head /settlements/{id}": listed,
      "get /settlements/{id}/transactions": listed,
      "head /settlements/{id}/transactions": listed,
    });
  });

  test("each operation is made from the contract its route file exports, at the route it serves", () => {
    const paths = document.paths as Record<string, Record<string, Json>>;
    const contracts = ROUTE_CONTRACTS;
    assert.ok(contracts.includes(generatePermanentContract) && contracts.includes(listAccountsContract));
    assert.ok(contracts.includes(generateTemporaryContract));
    for (const contract of contracts) {
      const { method, path } = contract;
      const documented = paths[documentPath(path)]?.[method];
      assert.deepEqual(documented, JSON.parse(JSON.stringify(operationOf(contract))), `${method} ${path}`);
      // Each answer the route declares (and is serialized from) is the schema the document names.
      const answers = Object.entries(answersOf(contract));
      assert.ok(answers.length > 0, `${method} ${path} declares its answers`);
      for (const [status, schema] of answers) {
        const responses = (documented as Json).responses as Record<string, Json>;
        const body = responses[status]?.content as Json;
        assert.deepEqual((body["application/json"] as Json).schema, {
          $ref: `#/components/schemas/${nameOf(schema)}`,
        });
      }
      assert.ok(
        h.app.hasRoute({ method: method.toUpperCase() as "GET" | "POST", url: `${API}${path}` }),
        `${method.toUpperCase()} ${API}${path} is served`,
      );
    }
    // Nothing else: every operation but the HEAD derived from a GET comes from a route's contract.
    const served = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => method !== "head" || item.get === undefined)
        .map((method) => `${method} ${path}`),
    );
    assert.deepEqual(
      served.sort(),
      contracts.map(({ method, path }) => `${method} ${documentPath(path)}`).sort(),
    );
    const { head, get } = paths[LIST] ?? {};
    assert.equal(head?.operationId, `${get?.operationId}Head`);
    assert.deepEqual(head?.parameters, get?.parameters);
    assert.deepEqual(Object.keys(head?.responses as Json), Object.keys(get?.responses as Json));
  });

  test("says who answers for the API and under which licence", () => {
    const info = document.info as Json;
    assert.equal(typeof (info.contact as Json | undefined)?.name, "string");
    const license = info.license as Json | undefined;
    assert.equal(typeof license?.name, "string");
    assert.match(String(license?.identifier), /^LicenseRef-/);
  });

  test("the signing example in the document is a real signature", () => {
    const { secretKey, body, timestamp, signature } = SIGNING_EXAMPLE;
    assert.equal(sign(secretKey, body, timestamp), signature);
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    assert.match(String(schemes.Signature?.description), new RegExp(signature));
  });
});

describe("with rate limits on", () => {
  let h: Harness;
  let business: TestBusiness;
  let contract: Contract;
  before(async () => {
    h = await createHarness({ rateLimits: { perKeyPerMinute: 1, perIpPerMinute: 1_000 } });
    business = await h.createBusiness();
    contract = new Contract(await fetchDocument(h));
  });
  after(() => h.close());

  test("429 and the RateLimit headers match the document; the document itself is never limited", async () => {
    const first = await h.request({ url: `${API}${LIST}`, as: business });
    assert.equal(first.statusCode, 200);
    assert.ok(first.headers["ratelimit-limit"]);
    contract.check("get", LIST, first);
    const limited = await h.request({ url: `${API}${GENERATE}`, body: customer(), as: business });
    assert.equal(limited.statusCode, 429);
    assert.ok(limited.headers["retry-after"]);
    contract.check("post", GENERATE, limited);
    for (let i = 0; i < 3; i++) {
      const document = await h.app.inject({ method: "GET", url: OPENAPI_URL });
      assert.equal(document.statusCode, 200);
      assert.equal(document.headers["ratelimit-limit"], undefined);
    }
  });
});
