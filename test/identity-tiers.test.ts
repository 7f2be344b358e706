import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CBN_TIER_LIMITS } from "../src/accounts/tiers.js";
import { loadConfig } from "../src/config/load.js";
import { AppError } from "../src/errors.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  endpointAt,
  type Harness,
  type TestBusiness,
} from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification } from "./helpers/notifications.js";

// Identity tiers (issue 46, item 5): an account's tier follows the identities it was opened with,
// and a credit past its tier's largest single credit, day's total or total is refused at the
// notification (the bank reverses it) with its reason and a payment.declined event, once per
// session id; two credits racing for the last of a day's limit are checked one after the other.

/** The CBN's values, as an operator would write them (the defaults; the suites' harness turns them off). */
const CBN_ENV = {
  TIER1_LIMITS: "5000000,30000000,30000000",
  TIER2_LIMITS: "10000000,50000000,50000000",
  TIER3_LIMITS: "none,none,none",
};

test("the tiers' limits default to the CBN's values, and an operator's are read as single,daily,total", () => {
  const base = { NODE_ENV: "test", DATABASE_URL: "sqlite::memory:", VAS_MASTER_KEY: "11".repeat(32) };
  assert.deepEqual(loadConfig(base).tierLimits, CBN_TIER_LIMITS);
  assert.deepEqual(loadConfig({ ...base, TIER1_LIMITS: "100, none ,300" }).tierLimits[1], {
    single: 100,
    daily: null,
    total: 300,
  });
  for (const bad of ["100,200", "a,b,c", "1.5,2,3", "-1,2,3", "1,2,3,4"]) {
    assert.throws(() => loadConfig({ ...base, TIER2_LIMITS: bad }), /TIER2_LIMITS must be three values/, bad);
  }
});

for (const dialect of DIALECTS) {
  describe(`identity tiers on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let clock = Date.parse("2026-03-02T10:00:00.000Z");
    const masterKey = randomBytes(32);
    before(async () => {
      h = await createHarness({ dialect, env: CBN_ENV, now: () => clock, masterKey });
      business = await h.createBusiness({ name: "Tiers Ltd" });
      await h.services.webhooks.create(
        { businessId: business.businessId, businessName: business.name },
        endpointAt("http://127.0.0.1:9/closed"),
      );
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    const open = async (body: Record<string, unknown>, path = "/account/generate") => {
      const response = await h.request({ url: `${API}${path}`, body: customer(body), as: business });
      assert.equal(response.statusCode, 201, response.body);
      return (response.json().data as { accountNumber: string }).accountNumber;
    };
    const detail = async (accountNumber: string) => {
      const response = await h.request({ url: `${API}/account/${accountNumber}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data as { tier: number; totalReceived: number };
    };
    const pay = (accountNumber: string, amount: number) =>
      notification(accountNumber, amount, new Date(clock).toISOString());
    const refused = async (body: ReturnType<typeof pay>, code: string) => {
      const error = await h.services.collections.receive(body).then(
        () => assert.fail(`${code} expected, but it was credited`),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof AppError && error.code === code, `${code}: ${String(error)}`);
      assert.equal(error.statusCode, 422, "a 4xx: the bank reverses it, never retries");
      return error.message;
    };
    const declined = async () => {
      const response = await h.request({
        url: `${API}/events?type=payment.declined&limit=100`,
        as: business,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data as Array<{
        accountNumber: string;
        data: {
          accountNumber: string;
          amount: number;
          currency: string;
          sessionId: string;
          payer: { name: string };
          reason: { code: string; message: string };
          declinedAt: string;
        };
        deliveries: unknown[];
      }>;
    };

    test("an account's tier follows the identities it was opened with", async () => {
      assert.equal((await detail(await open({ bvn: "22345678901" }))).tier, 1, "a BVN alone");
      assert.equal((await detail(await open({ bvn: undefined, nin: "32345678901" }))).tier, 1, "a NIN alone");
      assert.equal((await detail(await open({ bvn: "22345678901", nin: "32345678901" }))).tier, 2, "both");
      assert.equal(
        (
          await detail(
            await open({ BVN: "22345678901", ninNumber: "32345678901" }, "/account/generate/temporary"),
          )
        ).tier,
        2,
        "both, under other names, on a temporary account",
      );
      // As before the tiers, a NIN that is not 11 digits beside a BVN is ignored: the account holds one.
      assert.equal((await detail(await open({ bvn: "22345678901", nin: "123" }))).tier, 1);
    });

    test("each of tier 1's limits refuses a credit with its reason and one payment.declined event", async () => {
      const number = await open({ bvn: "22345678901" });
      const before = (await declined()).length;

      const tooLarge = pay(number, 5_000_001);
      assert.match(
        await refused(tooLarge, "TIER_SINGLE_LIMIT"),
        /5000001 kobo is above the largest single credit of a tier 1 account, 5000000 kobo \(NGN 50,000\.00\)/,
      );
      // The bank sending the same notification again is refused again, without a second event.
      await refused(tooLarge, "TIER_SINGLE_LIMIT");

      for (let i = 0; i < 6; i++) await h.services.collections.receive(pay(number, 5_000_000));
      assert.equal((await detail(number)).totalReceived, 30_000_000);
      assert.match(
        await refused(pay(number, 1), "TIER_DAILY_LIMIT"),
        /most a tier 1 account may receive in a day/,
      );

      // The next day in Africa/Lagos (23:00 UTC) the day's total starts again; the total does not.
      clock = Date.parse("2026-03-02T23:00:00.000Z");
      assert.match(await refused(pay(number, 1), "TIER_TOTAL_LIMIT"), /most a tier 1 account may receive$/);

      const events = (await declined()).slice(0, (await declined()).length - before);
      assert.deepEqual(
        events.map((event) => event.data.reason.code).sort(),
        ["TIER_DAILY_LIMIT", "TIER_SINGLE_LIMIT", "TIER_TOTAL_LIMIT"],
        "one event per declined session id",
      );
      const single = events.find((event) => event.data.reason.code === "TIER_SINGLE_LIMIT");
      assert.ok(single);
      assert.equal(single.accountNumber, number);
      assert.deepEqual(
        { ...single.data, reason: single.data.reason.code },
        {
          accountNumber: number,
          amount: 5_000_001,
          currency: "NGN",
          sessionId: tooLarge.sessionId,
          payer: { ...tooLarge.payer, bankCode: null },
          reason: "TIER_SINGLE_LIMIT",
          declinedAt: single.data.declinedAt,
        },
      );
      assert.match(single.data.reason.message, /^5000001 kobo is above/);
      assert.equal(single.deliveries.length, 1, "delivered to the business's endpoint");
      assert.equal((await detail(number)).totalReceived, 30_000_000, "nothing declined was credited");
    });

    // The clock stands still: each request is signed at its own millisecond, or a body sent twice
    // would be a replay of the first.
    let stamp = 0;
    const addIdentity = (accountNumber: string, body: unknown, as: TestBusiness = business) =>
      h.request({
        url: `${API}/account/${accountNumber}/identity`,
        body,
        as,
        timestamp: clock + (++stamp % 60_000),
      });
    const failed = (response: Awaited<ReturnType<typeof addIdentity>>, status: number, code: string) => {
      assert.equal(response.statusCode, status, response.body);
      assert.equal(response.json().status, "fail");
      assert.equal(response.json().error.code, code);
      return response.json().message as string;
    };

    test("POST /account/{accountNumber}/identity adds the missing identity and raises the tier", async () => {
      const number = await open({ bvn: "22345678901" });
      // Tier 1: a credit of NGN 100,000 is past its largest single credit.
      await refused(pay(number, 10_000_000), "TIER_SINGLE_LIMIT");

      const added = await addIdentity(number, { nin: "32345678901" });
      assert.equal(added.statusCode, 200, added.body);
      assert.equal(added.json().data.tier, 2);
      assert.equal(added.json().data.accountNumber, number);
      assert.ok(!added.body.includes("32345678901"), "the number is never answered");
      assert.equal((await detail(number)).tier, 2);
      await h.services.collections.receive(pay(number, 10_000_000));

      // The same identity again: the account as it is; another: 409.
      const again = await addIdentity(number, { NIN: "32345678901" });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().data.tier, 2);
      assert.match(
        failed(await addIdentity(number, { nin: "32345678902" }), 409, "CONFLICT"),
        /holds a BVN and a NIN/,
      );

      // A NIN account is given its BVN.
      const ninOnly = await open({ bvn: undefined, nin: "32345678903" });
      const bvnAdded = await addIdentity(ninOnly, { bvn: "22345678903" });
      assert.equal(bvnAdded.statusCode, 200, bvnAdded.body);
      assert.equal(bvnAdded.json().data.tier, 2);

      // The stored row keeps a fingerprint and the last 4 digits, never the number.
      const rows = await h.storage.db
        .selectFrom("accounts")
        .select(["second_identity_fingerprint", "second_identity_last4"])
        .where("account_number", "in", [number, ninOnly])
        .execute();
      assert.deepEqual(rows.map((row) => row.second_identity_last4).sort(), ["8903", "8901"].sort());
      for (const row of rows) assert.match(row.second_identity_fingerprint ?? "", /^[0-9a-f]{64}$/);
    });

    test("two requests racing to add an identity: one adds it, the other is 409", async () => {
      const number = await open({ bvn: "22345678901" });
      const answers = await Promise.all([
        addIdentity(number, { nin: "32345678905" }),
        addIdentity(number, { nin: "32345678906" }),
      ]);
      assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [200, 409], answers[1]?.body);
      const [won] = answers.filter((answer) => answer.statusCode === 200);
      assert.equal(won?.json().data.tier, 2);
      const row = await h.storage.db
        .selectFrom("accounts")
        .select("second_identity_last4")
        .where("account_number", "=", number)
        .executeTakeFirstOrThrow();
      const winner = answers[0]?.statusCode === 200 ? "8905" : "8906";
      assert.equal(row.second_identity_last4, winner, "the one answered 200 is the one kept");
    });

    test("an identity registered in another name is 422 IDENTITY_MISMATCH, and nothing changes", async () => {
      const number = await open({ name: "Chidi Eze", bvn: "22345678901" });
      assert.equal(
        failed(await addIdentity(number, { nin: "00000000002" }), 422, "IDENTITY_MISMATCH"),
        'The NIN is registered in another name than "Chidi Eze": the names must share at least two words',
      );
      // The sandbox's registered number is Adaeze Ngozi Okafor's: two shared words match, one does not.
      failed(await addIdentity(number, { nin: "00000000004" }), 422, "IDENTITY_MISMATCH");
      const adaeze = await open({ name: "ADAEZE OKAFOR", bvn: "22345678904" });
      assert.equal((await addIdentity(adaeze, { nin: "00000000004" })).json().data.tier, 2);
      // No record at the bank: its refusal, as at generate; unreachable: 502.
      failed(await addIdentity(number, { nin: "00000000001" }), 400, "PROVIDER_REJECTED");
      failed(await addIdentity(number, { nin: "00000000003" }), 502, "PROVIDER_UNAVAILABLE");
      assert.equal((await detail(number)).tier, 1, "still tier 1");
    });

    test("POST /account/{accountNumber}/identity: validation, the kind held already, another business's account", async () => {
      const number = await open({ bvn: "22345678901" });
      assert.equal(failed(await addIdentity(number, {}), 400, "VALIDATION_FAILED"), "bvn or nin is required");
      assert.equal(
        failed(await addIdentity(number, { nin: "123" }), 400, "VALIDATION_FAILED"),
        "nin must be a string of exactly 11 digits",
      );
      assert.equal(
        failed(await addIdentity(number, { ninNumber: 32345678901 }), 400, "VALIDATION_FAILED"),
        "ninNumber must be a string of exactly 11 digits",
      );
      assert.equal(
        failed(await addIdentity(number, { bvn: "22345678909" }), 409, "CONFLICT"),
        "The account holds a BVN already: send its NIN (nin)",
      );
      failed(await addIdentity("0000000000", { nin: "32345678901" }), 404, "ACCOUNT_NOT_FOUND");
      const other = await h.createBusiness({ name: "Other Ltd" });
      failed(await addIdentity(number, { nin: "32345678901" }, other), 404, "ACCOUNT_NOT_FOUND");
      assert.equal((await detail(number)).tier, 1);
    });

    test("opening checks the holder's name against the bank's record of each identity", async () => {
      const generate = (body: Record<string, unknown>) =>
        h.request({ url: `${API}/account/generate`, body: customer(body), as: business });
      const email = "okafor@example.com";
      failed(await generate({ name: "Adaeze Bello", email, bvn: "00000000004" }), 422, "IDENTITY_MISMATCH");
      failed(
        await generate({ name: "Adaeze Okafor", email, bvn: "22345678901", nin: "00000000002" }),
        422,
        "IDENTITY_MISMATCH",
      );
      const listed = await h.request({ url: `${API}/account/list?limit=100`, as: business });
      assert.ok(
        !(listed.json().data as Array<{ email: string }>).some((account) => account.email === email),
        "nothing opened",
      );
      const opened = await generate({ name: "Okafor Adaeze", email, bvn: "00000000004" });
      assert.equal(opened.statusCode, 201, opened.body);
    });

    test("the operator's KYC level raises every account of the business, now and when opened or re-issued", async () => {
      const kyc = await h.createBusiness({ name: "Kyc Ltd" });
      const as = async (body: Record<string, unknown>) => {
        const response = await h.request({ url: `${API}/account/generate`, body: customer(body), as: kyc });
        assert.ok([200, 201].includes(response.statusCode), response.body);
        return (response.json().data as { accountNumber: string }).accountNumber;
      };
      const tierOf = async (accountNumber: string) =>
        (await h.request({ url: `${API}/account/${accountNumber}`, as: kyc })).json().data.tier as number;
      const one = await as({ bvn: "22345678901" });
      const both = await as({ bvn: "22345678901", nin: "32345678901" });
      const env = cliEnv(h, masterKey);

      const set = await runVas(["business", "set-kyc-tier", kyc.businessId, "3"], { ...env, ...CBN_ENV });
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /KYC tier for .*: 3/);
      assert.deepEqual([await tierOf(one), await tierOf(both)], [3, 3]);
      // Tier 3 has no limits: NGN 1,000,000 in one credit.
      await h.services.collections.receive(pay(one, 100_000_000));
      const later = await as({ bvn: "22345678901" });
      assert.equal(await tierOf(later), 3, "opened under the level");
      const email = "reissued@example.com";
      const reissued = await as({ email, bvn: "22345678901" });
      assert.equal(await tierOf(reissued), 3);
      const again = await as({ email, bvn: "22345678902" });
      assert.equal(await tierOf(again), 3, "re-issued under the level");

      // Back to none: each account's identities' tier.
      await h.services.lifecycle.setKycLevel(kyc.businessId, null);
      assert.deepEqual([await tierOf(one), await tierOf(both), await tierOf(later)], [1, 2, 1]);
      await refused(pay(one, 5_000_001), "TIER_SINGLE_LIMIT");
      // A level below an account's identities leaves it as they make it.
      await h.services.lifecycle.setKycLevel(kyc.businessId, 1);
      assert.deepEqual([await tierOf(one), await tierOf(both)], [1, 2]);

      const unknown = await runVas(["business", "set-kyc-tier", randomUUID(), "2"], { ...env, ...CBN_ENV });
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /no business has id/);
      const bad = await runVas(["business", "set-kyc-tier", kyc.businessId, "4"], { ...env, ...CBN_ENV });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /must be 1, 2, 3 or none/);
    });

    test("a day's limit holds when credits race for its last kobo", async () => {
      const number = await open({ bvn: "22345678901", nin: "32345678901" });
      assert.equal((await detail(number)).tier, 2);
      await h.services.collections.receive(pay(number, 10_000_000));
      // 40,000,000 kobo of the day's 50,000,000 left, raced for by six credits of 10,000,000.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, () => h.services.collections.receive(pay(number, 10_000_000))),
      );
      const accepted = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
      const codes = outcomes.flatMap((outcome) =>
        outcome.status === "rejected" && outcome.reason instanceof AppError ? [outcome.reason.code] : [],
      );
      assert.equal(accepted, 4);
      assert.deepEqual(codes, ["TIER_DAILY_LIMIT", "TIER_DAILY_LIMIT"]);
      assert.equal((await detail(number)).totalReceived, 50_000_000);
    });
  });
}
