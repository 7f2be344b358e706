import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

let h: Harness;
let business: TestBusiness;
/** Account numbers in creation order. */
const created: Array<{ accountNumber: string; email: string; temporary: boolean }> = [];

for (const dialect of DIALECTS) {
  describe(`on ${dialect}`, () => {
    before(async () => {
      created.length = 0;
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Lister" });
      for (let i = 0; i < 23; i++) {
        const temporary = i % 3 === 2;
        const email = `customer${i}@example.com`;
        const response = await h.request({
          url: `${API}/account/generate${temporary ? "/temporary" : ""}`,
          body: customer({ email, name: `Customer ${i}` }),
          as: business,
        });
        assert.equal(response.statusCode, 201, response.body);
        created.push({ accountNumber: response.json().data.accountNumber, email, temporary });
      }
    });
    after(() => h.close());

    const list = (query = "", as: TestBusiness = business) =>
      h.request({ url: `${API}/account/list${query}`, as });

    describe("GET /account/list", () => {
      test("defaults to page 1 of 10, newest first, with the pagination object", async () => {
        const response = await list();
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.equal(body.status, "success");
        assert.deepEqual(body.pagination, { page: 1, limit: 10, total: 23, pages: 3 });
        assert.deepEqual(
          body.data.map((a: { accountNumber: string }) => a.accountNumber),
          created
            .slice(-10)
            .reverse()
            .map((a) => a.accountNumber),
        );
      });

      test("items carry the spec's five fields plus isTemporary, expiresAt and status", async () => {
        const { data } = (await list("?limit=100")).json();
        for (const item of data) {
          assert.deepEqual(Object.keys(item).sort(), [
            "accountName",
            "accountNumber",
            "bankName",
            "createdAt",
            "email",
            "expiresAt",
            "isTemporary",
            "status",
          ]);
          assert.equal(item.status, "active");
          assert.equal(item.bankName, "Virtual Bank");
          assert.match(item.accountNumber, /^\d{10}$/);
          assert.equal(item.createdAt, new Date(item.createdAt).toISOString());
          const expected = created.find((a) => a.accountNumber === item.accountNumber);
          assert.ok(expected);
          assert.equal(item.email, expected.email);
          assert.equal(item.isTemporary, expected.temporary);
          if (expected.temporary) assert.ok(Date.parse(item.expiresAt) > Date.parse(item.createdAt));
          else assert.equal(item.expiresAt, null);
        }
      });

      test("createdAt never increases down the list", async () => {
        const { data } = (await list("?limit=100")).json();
        for (let i = 1; i < data.length; i++) assert.ok(data[i - 1].createdAt >= data[i].createdAt);
      });

      test("pages partition the accounts with no gap or overlap", async () => {
        const seen: string[] = [];
        for (let page = 1; page <= 5; page++) {
          const body = (await list(`?page=${page}&limit=5`)).json();
          assert.deepEqual(body.pagination, { page, limit: 5, total: 23, pages: 5 });
          seen.push(...body.data.map((a: { accountNumber: string }) => a.accountNumber));
          assert.equal(body.data.length, page < 5 ? 5 : 3);
        }
        assert.deepEqual(seen, created.map((a) => a.accountNumber).reverse());
      });

      test("a page past the end returns empty data with the true totals", async () => {
        for (const page of [6, 1000, 9_007_199_254_740_991]) {
          const body = (await list(`?page=${page}&limit=5`)).json();
          assert.deepEqual(body.data, []);
          assert.deepEqual(body.pagination, { page, limit: 5, total: 23, pages: 5 });
        }
      });

      test("leading zeros are allowed, however many", async () => {
        const body = (await list(`?page=${"0".repeat(20)}2&limit=05`)).json();
        assert.deepEqual(body.pagination, { page: 2, limit: 5, total: 23, pages: 5 });
      });

      test("limit may be 1 or 100", async () => {
        assert.equal((await list("?limit=1")).json().data.length, 1);
        const all = (await list("?limit=100")).json();
        assert.equal(all.data.length, 23);
        assert.equal(all.pagination.pages, 1);
      });

      test("a business with no accounts gets an empty first page and zero pages", async () => {
        const empty = await h.createBusiness();
        const body = (await list("", empty)).json();
        assert.deepEqual(body, {
          status: "success",
          data: [],
          pagination: { page: 1, limit: 10, total: 0, pages: 0 },
        });
      });

      test("invalid page or limit is a 400 fail", async () => {
        const cases: Array<[string, RegExp]> = [
          ["?page=0", /^page must be/],
          ["?page=-1", /^page must be/],
          ["?page=1.5", /^page must be/],
          ["?page=abc", /^page must be/],
          ["?page=", /^page must be/],
          ["?page=1&page=2", /^page must be given once$/],
          ["?page=1&page=1", /^page must be given once$/],
          ["?limit=5&limit=5", /^limit must be given once$/],
          ["?page=9007199254740992", /^page must be at most 9007199254740991$/],
          ["?page=10000000000000000", /^page must be at most 9007199254740991$/],
          ["?page=99999999999999999999", /^page must be at most 9007199254740991$/],
          ["?limit=0", /^limit must be/],
          ["?limit=101", /^limit must be/],
          ["?limit=ten", /^limit must be/],
          ["?limit=1e1", /^limit must be/],
        ];
        for (const [query, message] of cases) {
          const response = await list(query);
          assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
          assert.equal(response.json().status, "fail");
          assert.match(response.json().message, message, query);
        }
      });

      test("unknown query parameters are ignored", async () => {
        const response = await list("?sort=asc&limit=2");
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().data.length, 2);
      });
    });
  });
}
