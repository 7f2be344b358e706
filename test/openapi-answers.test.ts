import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { sign } from "../src/auth/signature.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, BODY_LIMIT, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import {
  ACCOUNT,
  Contract,
  fetchDocument,
  GENERATE,
  type Json,
  LIST,
  SANDBOX,
  ScriptedBank,
  scriptedHarness,
  TEMPORARY,
} from "./helpers/openapi-contract.js";

// Every answer the API gives, success and failure, on each database, matches what the OpenAPI
// document declares for it: status, body and headers.

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
        [
          method: "get" | "post" | "head" | "patch",
          path: string,
          response: LightMyRequestResponse,
          status: number,
        ]
      > = [];
      const patch = (url: string, body: unknown) =>
        h.request({ method: "PATCH", url: `${API}${url}`, body, as: business });
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
      checks.push([
        "patch",
        ACCOUNT,
        await patch(`/account/${temporary}`, { allowedPayers: [{ name: "Ada Obi" }] }),
        200,
      ]);
      checks.push([
        "patch",
        ACCOUNT,
        await patch(`/account/${number}`, { allowedPayers: null, extra: 1 }),
        400,
      ]);
      checks.push(["patch", ACCOUNT, await patch("/account/0000000000", { onMismatch: "hold" }), 404]);
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
