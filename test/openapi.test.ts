import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { LightMyRequestResponse } from "fastify";
import { sign } from "../src/auth/signature.js";
import { numberSpaceExhausted } from "../src/errors.js";
import { documentPath, ROUTE_CONTRACTS } from "../src/http/openapi.js";
import { SIGNING_EXAMPLE } from "../src/http/openapi-components.js";
import { contract as generatePermanentContract } from "../src/http/routes/generate-permanent.js";
import { contract as generateTemporaryContract } from "../src/http/routes/generate-temporary.js";
import { contract as listAccountsContract } from "../src/http/routes/list-accounts.js";
import type { AccountProvider, VirtualAccountRequest } from "../src/providers/account-provider.js";
import { WrappedBank } from "./helpers/banks.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  BODY_LIMIT,
  createHarness,
  customer,
  type Harness,
  type TestBusiness,
} from "./helpers/harness.js";

const addFormats = addFormatsModule.default;

const OPENAPI_URL = `${API}/openapi.json`;
const GENERATE = "/account/generate";
const TEMPORARY = "/account/generate/temporary";
const LIST = "/account/list";
const ACCOUNT = "/account/{accountNumber}";
const SANDBOX = "/sandbox/transfers";
/** Where the document's `$ref`s resolve, for Ajv. */
const BASE = "https://vas.test/openapi.json";

type Json = Record<string, unknown>;

/** The embedded bank, plus identity numbers that hold, break or exhaust it on demand. */
class ScriptedBank extends WrappedBank {
  static readonly HOLD = "99999999901";
  static readonly DUPLICATE = "99999999902";
  static readonly EXHAUSTED = "99999999903";
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  private entered: (() => void) | undefined;

  /** Holds the next HOLD request; resolves once it has arrived. */
  hold(): Promise<void> {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
    return new Promise((resolve) => {
      this.entered = resolve;
    });
  }

  release(): void {
    this.open?.();
  }

  override async createVirtualAccount(request: VirtualAccountRequest) {
    switch (request.licenseNumber) {
      case ScriptedBank.HOLD:
        this.entered?.();
        await this.gate;
        break;
      case ScriptedBank.EXHAUSTED:
        throw numberSpaceExhausted();
      case ScriptedBank.DUPLICATE:
        // The same number twice breaks an invariant the database enforces: a 500.
        return {
          accountNumber: "0000014579",
          accountName: request.virtualAccountName,
          accountReference: request.accountReference,
        };
    }
    return this.inner.createVirtualAccount(request);
  }
}

/** Builds a harness whose provider is a ScriptedBank over the embedded one. */
async function scriptedHarness(options: Parameters<typeof createHarness>[0]) {
  let bank: ScriptedBank | undefined;
  const h = await createHarness({
    ...options,
    provider: ({ embedded }: { embedded: AccountProvider }) => {
      bank = new ScriptedBank(embedded);
      return bank;
    },
  });
  return { h, bank: bank as ScriptedBank };
}

async function fetchDocument(h: Harness): Promise<Json> {
  const response = await h.app.inject({ method: "GET", url: OPENAPI_URL });
  assert.equal(response.statusCode, 200);
  return response.json();
}

/** The document's declarations, and Ajv validators compiled from them (its `$ref`s resolved by Ajv). */
class Contract {
  // Strict, except that `anyOf: [{ required: ["bvn"] }, ...]` names properties declared beside it.
  private readonly ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    addFormats(this.ajv);
    // The whole document is the schema resource that its `#/components/...` references point into.
    this.ajv.addVocabulary(["openapi", "info", "servers", "tags", "paths", "components"]);
    this.ajv.addSchema(document, BASE);
  }

  /** The value at a JSON pointer of the document. */
  at(pointer: string): Json | undefined {
    const parts = pointer.split("/").slice(1);
    let node: unknown = this.document;
    for (const part of parts)
      node = (node as Json | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    return node as Json | undefined;
  }

  /** A validator for the schema at a JSON pointer of the document. */
  validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${BASE}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** Where the response declared for an operation and status is, past any `$ref`. */
  responsePointer(method: string, path: string, status: number): string {
    let pointer = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}/responses/${status}`;
    let node = this.at(pointer);
    assert.ok(node, `${method.toUpperCase()} ${path} documents a ${status}`);
    while (typeof node.$ref === "string") {
      pointer = node.$ref.slice(1);
      node = this.at(pointer);
      assert.ok(node, `${pointer} exists`);
    }
    return pointer;
  }

  /** Asserts that a real response is one the document declares: its status, body and headers. */
  check(
    method: "get" | "post" | "head" | "patch" | "delete",
    path: string,
    response: LightMyRequestResponse,
  ): void {
    const pointer = this.responsePointer(method, path, response.statusCode);
    if (method === "head") {
      assert.equal(this.at(`${pointer}/content`), undefined, `HEAD ${path} declares no body`);
      assert.equal(response.body, "");
      this.checkHeaders(this.at(`${pointer}/headers`) ?? {}, response);
    } else this.checkAt(pointer, response, `${method.toUpperCase()} ${path}`);
  }

  /** Asserts that a real response matches the response declared at `pointer`. */
  checkAt(pointer: string, response: LightMyRequestResponse, what = pointer): void {
    assert.match(String(response.headers["content-type"]), /^application\/json/);
    const validate = this.validator(`${pointer}/content/application~1json/schema`);
    assert.ok(
      validate(response.json()),
      `${what} ${response.statusCode}: ${JSON.stringify(validate.errors)}\n${response.body}`,
    );
    this.checkHeaders(this.at(`${pointer}/headers`) ?? {}, response);
  }

  private checkHeaders(declared: Json, response: LightMyRequestResponse): void {
    const names = new Map(Object.keys(declared).map((name) => [name.toLowerCase(), name]));
    for (const [lower, name] of names) {
      const reference = (declared[name] as Json).$ref;
      const header = typeof reference === "string" ? this.at(reference.slice(1)) : (declared[name] as Json);
      assert.ok(header, `header ${name} is declared`);
      const value = response.headers[lower];
      if (header.required === true) assert.ok(value !== undefined, `header ${name} is sent`);
      if (value === undefined) continue;
      const schema = header.schema as Json;
      const typed = schema.type === "integer" ? Number(value) : value;
      assert.ok(this.ajv.validate(schema, typed), `header ${name}: ${String(value)}`);
    }
    for (const sent of DOCUMENTED_HEADERS) {
      if (response.headers[sent] !== undefined) assert.ok(names.has(sent), `header ${sent} is documented`);
    }
  }
}

/** Response headers of the API that the document must declare wherever they are sent. */
const DOCUMENTED_HEADERS = [
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "retry-after",
  "idempotent-replayed",
];

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
        `post ${ACCOUNT}/deactivate`,
        `post ${ACCOUNT}/reactivate`,
        "get /transactions",
        "head /transactions",
        "get /transactions/{id}",
        "head /transactions/{id}",
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
    assert.deepEqual(statuses, {
      [`post ${GENERATE}`]: ["200", "201", ...failures],
      [`post ${TEMPORARY}`]: ["201", ...failures],
      [`get ${LIST}`]: listed,
      [`head ${LIST}`]: listed,
      [`get ${ACCOUNT}`]: listed,
      [`head ${ACCOUNT}`]: listed,
      [`post ${ACCOUNT}/deactivate`]: lifecycle,
      [`post ${ACCOUNT}/reactivate`]: lifecycle,
      "get /transactions": listed,
      "head /transactions": listed,
      "get /transactions/{id}": listed,
      "head /transactions/{id}": listed,
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
    });
  });

  test("each operation is exactly the contract its route file exports, at the route it serves", () => {
    const paths = document.paths as Record<string, Record<string, Json>>;
    const contracts = ROUTE_CONTRACTS;
    assert.ok(contracts.includes(generatePermanentContract) && contracts.includes(listAccountsContract));
    assert.ok(contracts.includes(generateTemporaryContract));
    for (const { method, path, operation } of contracts) {
      const documented = paths[documentPath(path)]?.[method];
      assert.deepEqual(documented, JSON.parse(JSON.stringify(operation)), `${method} ${path}`);
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

for (const dialect of DIALECTS) {
  describe(`on ${dialect}, every response matches the document`, () => {
    let h: Harness;
    let bank: ScriptedBank;
    let business: TestBusiness;
    let contract: Contract;
    before(async () => {
      ({ h, bank } = await scriptedHarness({ dialect }));
      business = await h.createBusiness();
      contract = new Contract(await fetchDocument(h));
    });
    after(() => h.close());

    const post = (path: string, body: unknown, headers?: Record<string, string | undefined>) =>
      h.request({ url: `${API}${path}`, body, as: business, ...(headers ? { headers } : {}) });

    test("generate permanent: 201 when created, 200 when re-issued", async () => {
      const body = customer();
      const created = await post(GENERATE, body);
      assert.equal(created.statusCode, 201);
      contract.check("post", GENERATE, created);
      const reissued = await post(GENERATE, { ...body, bvn: undefined, nin: "12345678901" });
      assert.equal(reissued.statusCode, 200);
      contract.check("post", GENERATE, reissued);
    });

    test("generate temporary: 201, with and without a duration", async () => {
      for (const body of [
        customer(),
        customer({ duration: 30 }),
        customer({ bvn: undefined, NIN: "12345678901" }),
      ]) {
        const response = await post(TEMPORARY, body);
        assert.equal(response.statusCode, 201);
        contract.check("post", TEMPORARY, response);
      }
    });

    test("list: 200 with accounts, and past the end", async () => {
      for (const query of ["", "?page=1&limit=2", "?page=999"]) {
        const response = await h.request({ url: `${API}${LIST}${query}`, as: business });
        assert.equal(response.statusCode, 200);
        contract.check("get", LIST, response);
      }
      const empty = await h.createBusiness({ name: "Empty Ltd" });
      const none = await h.request({ url: `${API}${LIST}`, as: empty });
      contract.check("get", LIST, none);
    });

    test("400: validation, JSON, the bank's refusal, a malformed Idempotency-Key, a bad page", async () => {
      const bad = [
        await post(GENERATE, customer({ name: undefined })),
        await post(TEMPORARY, customer({ duration: 0 })),
        await post(GENERATE, "[1,2]"),
        await post(GENERATE, customer({ bvn: "00000000001" })),
        await post(GENERATE, customer(), { "idempotency-key": "has space" }),
      ];
      for (const [i, response] of bad.entries()) {
        assert.equal(response.statusCode, 400);
        contract.check("post", i === 1 ? TEMPORARY : GENERATE, response);
      }
      const page = await h.request({ url: `${API}${LIST}?page=0`, as: business });
      assert.equal(page.statusCode, 400);
      contract.check("get", LIST, page);
    });

    test("401 on every operation", async () => {
      for (const [method, path] of [
        ["post", GENERATE],
        ["post", TEMPORARY],
        ["get", LIST],
      ] as const) {
        const response = await h.request({
          method: method === "post" ? "POST" : "GET",
          url: `${API}${path}`,
          ...(method === "post" ? { body: customer() } : {}),
          as: business,
          signature: "0".repeat(64),
        });
        assert.equal(response.statusCode, 401);
        contract.check(method, path, response);
        const anonymous = await h.app.inject({
          method: method === "post" ? "POST" : "GET",
          url: `${API}${path}`,
        });
        assert.equal(anonymous.statusCode, 401);
        contract.check(method, path, anonymous);
      }
    });

    test("404 for an unknown path or method is the NotFound response every operation declares", async () => {
      for (const [method, url] of [
        ["GET", `${API}/account/nope`],
        ["GET", `${API}/account/12345`],
        ["DELETE", `${API}${LIST}`],
        ["GET", `${API}${GENERATE}`],
        ["PUT", `${API}${TEMPORARY}`],
      ] as const) {
        const response = await h.request({ method, url, as: business });
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().error.code, "NOT_FOUND");
        contract.checkAt("/components/responses/NotFound", response, `${method} ${url}`);
      }
      for (const [method, path] of [
        ["post", GENERATE],
        ["post", TEMPORARY],
        ["get", LIST],
      ] as const) {
        assert.equal(contract.responsePointer(method, path, 404), "/components/responses/NotFound");
      }
    });

    test("collections: every answer of the account, transaction, balance and sandbox operations", async () => {
      const number = (await post(GENERATE, customer())).json().data.accountNumber as string;
      const temporary = (await post(TEMPORARY, customer())).json().data.accountNumber as string;
      const get = (url: string) => h.request({ url: `${API}${url}`, as: business });
      const checks: Array<
        [method: "get" | "post" | "head", path: string, response: LightMyRequestResponse, status: number]
      > = [];
      const paid = await post(SANDBOX, { accountNumber: number, amount: 150_000 });
      checks.push(["post", SANDBOX, paid, 201]);
      checks.push([
        "post",
        SANDBOX,
        await post(SANDBOX, { accountNumber: number, amount: 2_000_000_000 }),
        422,
      ]);
      checks.push(["post", SANDBOX, await post(SANDBOX, { accountNumber: "0000000000", amount: 1 }), 404]);
      checks.push(["post", SANDBOX, await post(SANDBOX, { accountNumber: number, amount: 1.5 }), 400]);
      checks.push(["get", ACCOUNT, await get(`/account/${number}`), 200]);
      checks.push(["get", ACCOUNT, await get("/account/0000000000"), 404]);
      checks.push(["post", `${ACCOUNT}/deactivate`, await post(`/account/${number}/deactivate`, ""), 200]);
      checks.push(["post", `${ACCOUNT}/reactivate`, await post(`/account/${number}/reactivate`, "{}"), 200]);
      checks.push([
        "post",
        `${ACCOUNT}/deactivate`,
        await post(`/account/${temporary}/deactivate`, " "),
        422,
      ]);
      checks.push([
        "post",
        `${ACCOUNT}/deactivate`,
        await post("/account/0000000000/deactivate", "{ }"),
        404,
      ]);
      checks.push(["get", "/transactions", await get("/transactions?limit=5"), 200]);
      checks.push(["get", "/transactions", await get("/transactions?from=yesterday"), 400]);
      checks.push(["get", "/transactions", await get("/transactions?accountNumber=0000000000"), 404]);
      checks.push(["get", "/transactions/{id}", await get(`/transactions/${paid.json().data.id}`), 200]);
      checks.push(["get", "/transactions/{id}", await get("/transactions/txn_nope"), 404]);
      checks.push(["get", "/balance", await get("/balance"), 200]);
      const events = await get("/events?limit=5");
      checks.push(["get", "/events", events, 200]);
      checks.push(["get", "/events", await get("/events?type=nope"), 400]);
      checks.push(["get", "/events/{id}", await get(`/events/${events.json().data[0].id}`), 200]);
      checks.push(["get", "/events/{id}", await get("/events/evt_nope"), 404]);
      checks.push(["get", "/balance", await get("/balance?at=2026-01-01T00:00:00Z"), 200]);
      checks.push(["get", "/balance", await get("/balance?at=soon"), 400]);
      const session = paid.json().data.sessionId;
      checks.push(["get", "/transactions", await get(`/transactions?sessionId=${session}`), 200]);
      checks.push([
        "get",
        "/transactions",
        await get("/transactions?timeField=createdAt&from=2026-01-01T00:00:00Z"),
        200,
      ]);
      checks.push(["get", "/transactions", await get("/transactions?timeField=later"), 400]);
      checks.push([
        "head",
        "/balance",
        await h.request({ method: "HEAD", url: `${API}/balance`, as: business }),
        200,
      ]);
      for (const [method, path, response, status] of checks) {
        assert.equal(response.statusCode, status, `${method} ${path}: ${response.body}`);
        contract.check(method, path, response);
      }
    });

    test("webhooks: every answer of the endpoint, attempt, redelivery and recovery operations", async () => {
      let n = 0;
      const send = (
        method: "GET" | "POST" | "PATCH" | "DELETE",
        url: string,
        body?: Record<string, unknown>,
      ) =>
        h.request({
          method,
          url: `${API}${url}`,
          ...(body || method === "POST" || method === "PATCH" ? { body: { ...body, n: ++n } } : {}),
          as: business,
        });
      const checks: Array<
        [
          method: "get" | "post" | "patch" | "delete",
          path: string,
          response: LightMyRequestResponse,
          status: number,
        ]
      > = [];
      const created = await send("POST", "/webhooks", { url: "http://127.0.0.1:9/hook" });
      checks.push(["post", "/webhooks", created, 201]);
      checks.push(["post", "/webhooks", await send("POST", "/webhooks", { url: 7 }), 400]);
      const id = created.json().data.id;
      checks.push(["get", "/webhooks", await send("GET", "/webhooks"), 200]);
      checks.push(["get", "/webhooks/{id}", await send("GET", `/webhooks/${id}`), 200]);
      checks.push(["get", "/webhooks/{id}", await send("GET", "/webhooks/we_nope"), 404]);
      checks.push([
        "patch",
        "/webhooks/{id}",
        await send("PATCH", `/webhooks/${id}`, { enabled: false }),
        200,
      ]);
      checks.push([
        "post",
        "/webhooks/{id}/rotate-secret",
        await send("POST", `/webhooks/${id}/rotate-secret`),
        200,
      ]);
      const tested = await send("POST", `/webhooks/${id}/test`);
      checks.push(["post", "/webhooks/{id}/test", tested, 202]);
      const eventId = tested.json().data.eventId;
      checks.push(["get", "/events/{id}/attempts", await send("GET", `/events/${eventId}/attempts`), 200]);
      checks.push([
        "post",
        "/events/{id}/redeliver",
        await send("POST", `/events/${eventId}/redeliver`),
        202,
      ]);
      checks.push(["post", "/webhooks/{id}/recover", await send("POST", `/webhooks/${id}/recover`, {}), 400]);
      checks.push(["delete", "/webhooks/{id}", await send("DELETE", `/webhooks/${id}`), 200]);
      checks.push([
        "post",
        "/webhooks/{id}/recover",
        await send("POST", `/webhooks/${id}/recover`, { since: new Date().toISOString() }),
        404,
      ]);
      for (const [method, path, response, status] of checks) {
        assert.equal(response.statusCode, status, `${method} ${path}: ${response.body}`);
        contract.check(method, path, response);
      }
    });

    test("HEAD /account/list: answered as GET is, without a body, as documented", async () => {
      await post(GENERATE, customer());
      const head = (headers: Record<string, string> = {}, url = `${API}${LIST}`) => {
        const timestamp = String(Date.now());
        return h.app.inject({
          method: "HEAD",
          url,
          headers: {
            "x-api-key": business.apiKey,
            "x-timestamp": timestamp,
            "x-signature": sign(business.secretKey, "{}", timestamp),
            ...headers,
          },
        });
      };
      const ok = await head();
      assert.equal(ok.statusCode, 200);
      contract.check("head", LIST, ok);
      const get = await h.request({ url: `${API}${LIST}`, as: business });
      assert.equal(ok.headers["content-length"], get.headers["content-length"]);
      for (const [response, status] of [
        [await head({ "x-signature": "0".repeat(64) }), 401],
        [await head({}, `${API}${LIST}?page=0`), 400],
      ] as const) {
        assert.equal(response.statusCode, status);
        contract.check("head", LIST, response);
      }
    });

    test("Idempotency-Key: 409 while the first runs, the replay, 422 for another body", async () => {
      const body = customer({ bvn: ScriptedBank.HOLD });
      const key = { "idempotency-key": `key-${Date.now()}` };
      const arrived = bank.hold();
      const first = post(GENERATE, body, key);
      await arrived;
      const running = await post(GENERATE, body, key);
      assert.equal(running.statusCode, 409);
      contract.check("post", GENERATE, running);
      bank.release();
      assert.equal((await first).statusCode, 201);
      const replayed = await post(GENERATE, body, key);
      assert.equal(replayed.statusCode, 201);
      assert.equal(replayed.headers["idempotent-replayed"], "true");
      contract.check("post", GENERATE, replayed);
      const reused = await post(GENERATE, customer(), key);
      assert.equal(reused.statusCode, 422);
      contract.check("post", GENERATE, reused);
    });

    test("413 for a body over the limit, 415 for another content type", async () => {
      const large = await post(TEMPORARY, JSON.stringify({ name: "x".repeat(BODY_LIMIT) }));
      assert.equal(large.statusCode, 413);
      contract.check("post", TEMPORARY, large);
      const text = await post(GENERATE, JSON.stringify(customer()), { "content-type": "text/plain" });
      assert.equal(text.statusCode, 415);
      contract.check("post", GENERATE, text);
    });

    test("500, 502 and 503 from the bank", async () => {
      assert.equal((await post(GENERATE, customer({ bvn: ScriptedBank.DUPLICATE }))).statusCode, 201);
      const broken = await post(GENERATE, customer({ bvn: ScriptedBank.DUPLICATE }));
      assert.equal(broken.statusCode, 500);
      contract.check("post", GENERATE, broken);
      const unavailable = await post(TEMPORARY, customer({ bvn: "00000000003" }));
      assert.equal(unavailable.statusCode, 502);
      contract.check("post", TEMPORARY, unavailable);
      const exhausted = await post(TEMPORARY, customer({ nin: ScriptedBank.EXHAUSTED, bvn: undefined }));
      assert.equal(exhausted.statusCode, 503);
      contract.check("post", TEMPORARY, exhausted);
    });

    test("the request schemas refuse what the server refuses and accept what it accepts", async () => {
      const cases: Array<[string, Json]> = [
        [GENERATE, customer()],
        [GENERATE, customer({ bvn: undefined, ninNumber: "12345678901", extra: true })],
        [GENERATE, customer({ bvn: undefined })],
        [GENERATE, customer({ bvn: "1234567890" })],
        [GENERATE, customer({ name: "" })],
        [GENERATE, customer({ email: "ada@localhost" })],
        [TEMPORARY, customer({ duration: 10_080 })],
        [TEMPORARY, customer({ duration: 10_081 })],
        [TEMPORARY, customer({ duration: 1.5 })],
        [TEMPORARY, customer({ duration: "30" })],
        // As sent, before the server trims, lower-cases and normalises; null is "not sent".
        [
          TEMPORARY,
          { name: " Ada ", email: "  Ada@Example.com ", bvn: "22345678901", nin: null, duration: null },
        ],
        [GENERATE, customer({ name: "\tAda Obi\n", email: "\u00a0ADA.OBI@EXAMPLE.COM\u3000" })],
        [GENERATE, customer({ email: `ada-${Date.now()}@\u212aano.ng` })],
        [GENERATE, customer({ name: "Ada\tObi" })],
        [GENERATE, customer({ name: "Ada \u202eObi" })],
        [GENERATE, customer({ name: " \t " })],
        [GENERATE, customer({ email: `${"a".repeat(65)}@example.com` })],
        [GENERATE, customer({ name: null })],
        [GENERATE, customer({ bvn: null, NIN: "12345678901", ninNumber: 5 })],
        [GENERATE, customer({ bvn: null, nin: null })],
        [GENERATE, customer({ BVN: "not digits" })],
        [GENERATE, customer({ bvn: "22345678901\n" })],
      ];
      for (const [path, body] of cases) {
        const schema = path === GENERATE ? "PermanentAccountRequest" : "TemporaryAccountRequest";
        const valid = contract.validator(`/components/schemas/${schema}`)(body);
        const response = await post(path, body);
        assert.equal(valid, response.statusCode < 400, `${path} ${JSON.stringify(body)}: ${response.body}`);
      }
    });
  });
}

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
