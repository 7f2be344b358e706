import assert from "node:assert/strict";
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { SANDBOX_BANKS, SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { isValidNuban } from "../src/providers/nuban.js";
import { assertFailCode } from "./helpers/assertions.js";
import { type BankProcess, clientKeyFiles, freePort, startBankProcess } from "./helpers/bank-process.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { signedBankNotification } from "./helpers/notifications.js";

// Issue 14: the service with PROVIDER=http against the Virtual Bank running as a process of its
// own (`vas bank serve`), over real ports, on each database: the spec's endpoints end to end,
// a bank that hangs, fails and recovers, the circuit breaker, and the bank's signed
// notifications (forged, stale, duplicated, dropped).

const APP_ID = "vas-test-app";
const BREAKER_HALF_OPEN_MS = 400;

for (const dialect of DIALECTS) {
  describe(`the bank over HTTP, as its own process, on ${dialect}`, () => {
    let dir: string;
    let bank: BankProcess;
    let h: Harness;
    let business: TestBusiness;
    let notifyUrl: string;
    let bankKey: KeyObject;
    const logs: Array<{ msg: string; code?: string; [key: string]: unknown }> = [];

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-bank-"));
      const { privateKeyFile: clientPrivate, publicKeyFile: clientPublic } = clientKeyFiles(dir);
      const port = await freePort();
      notifyUrl = `http://127.0.0.1:${port}/api/v1/bank/notifications`;
      bank = await startBankProcess({
        dataDir: path.join(dir, "bank"),
        appId: APP_ID,
        clientPublicKeyFile: clientPublic,
        notifyUrl,
      });
      bankKey = createPrivateKey(readFileSync(path.join(dir, "bank", "bank.pem"), "utf8"));
      h = await createHarness({
        dialect,
        logStream: { write: (line: string) => logs.push(JSON.parse(line)) },
        env: {
          PROVIDER: "http",
          BANK_URL: bank.url,
          BANK_APP_ID: APP_ID,
          BANK_PRIVATE_KEY_FILE: clientPrivate,
          BANK_PUBLIC_KEY_FILE: bank.publicKeyFile,
          BANK_TIMEOUT_MS: "500",
          BANK_CREATE_ATTEMPTS: "3",
          BANK_BREAKER_THRESHOLD: "4",
          BANK_BREAKER_HALF_OPEN_MS: String(BREAKER_HALF_OPEN_MS),
        },
      });
      await h.app.listen({ port, host: "127.0.0.1" });
      business = await h.createBusiness({ name: "Bank Test Foods" });
    });

    after(async () => {
      await h?.close();
      if (bank) assert.equal(await bank.stop(), 0, "the bank stops cleanly on SIGTERM");
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const generate = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      h.request({ url: `${API}/account/generate`, body, as: business, headers });
    const accountTotal = async () =>
      (await h.request({ url: `${API}/account/list`, as: business })).json().pagination.total as number;
    const bankAccountsFor = async (number: string) =>
      (await bank.accounts()).filter((account) => account.virtualAccountNo === number);

    test("the spec's three endpoints end to end: numbers come from the bank process", async () => {
      const permanent = await generate(customer({ email: "ada@bank.example" }));
      assert.equal(permanent.statusCode, 201, permanent.body);
      const number = permanent.json().data.accountNumber as string;
      assert.ok(isValidNuban("999240", number));
      assert.equal((await bankAccountsFor(number)).length, 1, "the bank opened it");
      const again = await generate(customer({ email: "ada@bank.example" }));
      assert.equal(again.statusCode, 200, "the same customer again: re-issued");
      const temporary = await h.request({
        url: `${API}/account/generate/temporary`,
        body: customer({ duration: 30 }),
        as: business,
      });
      assert.equal(temporary.statusCode, 201, temporary.body);
      assert.equal((await bankAccountsFor(temporary.json().data.accountNumber)).length, 1);
      const list = await h.request({ url: `${API}/account/list`, as: business });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().pagination.total, 2);
      const simulated = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber: number, amount: 100 },
        as: business,
      });
      assert.equal(simulated.statusCode, 404, "money arrives only from the bank: it has its own sandbox");
    });

    test("the bank's refusal reaches the client as the spec's 400, and nothing is written", async () => {
      const before = await accountTotal();
      const refused = await generate(customer({ bvn: "00000000001" }));
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(
        [refused.json().status, refused.json().message],
        ["fail", "BVN verification failed: no record found for this BVN"],
      );
      assert.equal(await accountTotal(), before);
    });

    test("a bank that acts on a create and never answers: the service asks by reference, one number, one account", async () => {
      const before = await accountTotal();
      const bankBefore = (await bank.accounts()).length;
      const callsBefore = await bank.calls();
      await bank.setFaults({ hangNext: 1 });
      const created = await generate(customer());
      assert.equal(created.statusCode, 201, created.body);
      const number = created.json().data.accountNumber as string;
      const calls = await bank.calls();
      assert.deepEqual(
        [calls.create - callsBefore.create, calls.query - callsBefore.query],
        [1, 1],
        "one create, then a query that found it: no second create",
      );
      assert.equal((await bank.accounts()).length, bankBefore + 1, "one account at the bank");
      assert.equal((await bankAccountsFor(number)).length, 1, "and it is the one answered");
      assert.equal(await accountTotal(), before + 1, "one account at the service");
    });

    test("5xx answers are retried with the same reference, each after a query: one account", async () => {
      const bankBefore = (await bank.accounts()).length;
      const callsBefore = await bank.calls();
      await bank.setFaults({ failNext: 2 });
      const created = await generate(customer());
      assert.equal(created.statusCode, 201, created.body);
      const calls = await bank.calls();
      // create (500), query (500), query (none), create (opened).
      assert.deepEqual([calls.create - callsBefore.create, calls.query - callsBefore.query], [2, 2]);
      assert.equal((await bank.accounts()).length, bankBefore + 1);
      assert.equal((await bank.faults()).failNext, 0);
    });

    test("a bank down for the whole request: 502, nothing written; the same Idempotency-Key later gets the account the bank opened", async () => {
      const before = await accountTotal();
      const bankBefore = (await bank.accounts()).length;
      // The create is acted on but its answer lost, then every query hangs too.
      await bank.setFaults({ hangNext: 3 });
      const key = randomBytes(8).toString("hex");
      const body = customer();
      const failed = await generate(body, { "idempotency-key": key });
      assertFailCode(failed, 502, "PROVIDER_UNAVAILABLE");
      assert.match(failed.json().message, /none was recorded\. Retry with the same Idempotency-Key/);
      assert.equal(await accountTotal(), before, "nothing half-written at the service");
      const orphans = (await bank.accounts()).slice(bankBefore);
      assert.equal(orphans.length, 1, "the bank opened one account for the reference");
      const retried = await generate(body, { "idempotency-key": key });
      assert.equal(retried.statusCode, 201, retried.body);
      assert.equal(retried.json().data.accountNumber, orphans[0]?.virtualAccountNo, "the same number");
      assert.equal((await bank.accounts()).length, bankBefore + 1, "still one account at the bank");
    });

    test("a bank slower than the timeout: 502, nothing written at the service", async () => {
      const before = await accountTotal();
      await bank.setFaults({ latencyMs: 800 });
      try {
        assertFailCode(await generate(customer()), 502, "PROVIDER_UNAVAILABLE");
      } finally {
        await bank.setFaults({ latencyMs: 0 });
      }
      assert.equal(await accountTotal(), before);
      // The breaker counted those timeouts: a success closes it before the next test.
      await new Promise((resolve) => setTimeout(resolve, 900));
      assert.equal((await generate(customer())).statusCode, 201);
    });

    test("the breaker opens while the bank fails, fails fast with 503, and closes when it is back", async () => {
      const breakerState = async () =>
        /vas_bank_breaker_state (\d)/.exec((await h.app.inject({ url: "/metrics" })).body)?.[1];
      // A generate asks the identity call first, which the bank's faults spare (issue 46), and its
      // success would close the count between two failing creates: the failures are a deactivate's.
      const number = (await generate(customer())).json().data.accountNumber as string;
      const deactivate = () =>
        h.request({ url: `${API}/account/${number}/deactivate`, body: "{}", as: business });
      await bank.setFaults({ failNext: 1_000 });
      // Two failures (the update, asked once more): below the threshold of four.
      assertFailCode(await deactivate(), 502, "PROVIDER_UNAVAILABLE");
      // The fourth opens it.
      assert.equal((await deactivate()).json().error.code, "PROVIDER_UNAVAILABLE");
      assert.equal(await breakerState(), "2", "open");
      const callsBefore = await bank.calls();
      const paused = await generate(customer());
      assertFailCode(paused, 503, "PROVIDER_UNAVAILABLE");
      assert.equal(paused.headers["retry-after"], String(Math.ceil(BREAKER_HALF_OPEN_MS / 1000)));
      assert.deepEqual(await bank.calls(), callsBefore, "no call reached the bank while open");
      await bank.setFaults({ failNext: 0 });
      await new Promise((resolve) => setTimeout(resolve, BREAKER_HALF_OPEN_MS + 100));
      const recovered = await generate(customer());
      assert.equal(recovered.statusCode, 201, recovered.body);
      assert.equal(await breakerState(), "0", "closed again");
      const told = logs.map((line) => line.msg).filter((msg) => msg.startsWith("bank circuit breaker"));
      assert.deepEqual(
        told.slice(-3).map((msg) => msg.split(":")[0]),
        ["bank circuit breaker open", "bank circuit breaker half-open", "bank circuit breaker closed"],
        "the operator reads it in the log",
      );
    });

    test("deactivate and reactivate reach the bank: a disabled account takes no payment there", async () => {
      const created = await generate(customer());
      const number = created.json().data.accountNumber as string;
      const off = await h.request({ url: `${API}/account/${number}/deactivate`, body: "{}", as: business });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal((await bankAccountsFor(number))[0]?.status, "Disabled");
      assert.equal((await bank.pay({ virtualAccountNo: number, amount: 100_00 })).status, 400);
      const on = await h.request({ url: `${API}/account/${number}/reactivate`, body: "{}", as: business });
      assert.equal(on.statusCode, 200, on.body);
      assert.equal((await bankAccountsFor(number))[0]?.status, "Enabled");
    });

    test("a payment at the bank is notified, signed, and credited once, even when sent 5 times at once", async () => {
      const number = (await generate(customer())).json().data.accountNumber as string;
      await bank.setFaults({ duplicateNotifications: 4 });
      const paid = await bank.pay({ virtualAccountNo: number, amount: 2_500_00, narration: "Invoice 7" });
      assert.equal(paid.status, 200);
      const orderNo = paid.body.data?.orderNo as string;
      const settled = await bank.settled(orderNo);
      await bank.setFaults({ duplicateNotifications: 0 });
      assert.equal(settled.status, "acknowledged", settled.lastError ?? "");
      const list = await h.request({ url: `${API}/transactions?accountNumber=${number}`, as: business });
      const items = list.json().data as Array<{ sessionId: string; amount: number; narration: string }>;
      assert.equal(items.length, 1, "credited once");
      assert.deepEqual(
        [items[0]?.sessionId, items[0]?.amount, items[0]?.narration],
        [orderNo, 2_500_00, "Invoice 7"],
      );
    });

    test("dropped notifications are sent again until acknowledged", async () => {
      const number = (await generate(customer())).json().data.accountNumber as string;
      await bank.setFaults({ dropNotifications: 2 });
      const orderNo = (await bank.pay({ virtualAccountNo: number, amount: 700_00 })).body.data
        ?.orderNo as string;
      const settled = await bank.settled(orderNo);
      assert.equal(settled.status, "acknowledged");
      assert.equal(settled.attempts, 3, "two lost, the third acknowledged");
      const list = await h.request({ url: `${API}/transactions?accountNumber=${number}`, as: business });
      assert.equal(list.json().data.length, 1);
    });

    test("a transfer the service refuses is refused for good at the bank: an account the service never recorded", async () => {
      // Its every answer lost, and the request not retried: the bank holds an orphan.
      const bankBefore = (await bank.accounts()).length;
      await bank.setFaults({ hangNext: 3 });
      assertFailCode(await generate(customer()), 502, "PROVIDER_UNAVAILABLE");
      const orphan = (await bank.accounts())[bankBefore];
      assert.ok(orphan, "the bank opened an account the service did not record");
      const orderNo = (await bank.pay({ virtualAccountNo: orphan.virtualAccountNo, amount: 50_00 })).body.data
        ?.orderNo as string;
      const settled = await bank.settled(orderNo);
      assert.equal(settled.status, "refused", "not retried: the bank reverses it");
      assert.equal(settled.attempts, 1);
      assert.match(settled.lastError ?? "", /^HTTP 422: .*UNKNOWN_ACCOUNT/);
    });

    describe("notifications posted to the service directly", () => {
      let number: string;
      before(async () => {
        number = (await generate(customer())).json().data.accountNumber as string;
      });

      const notification = (overrides: Record<string, unknown> = {}, key: KeyObject = bankKey) =>
        signedBankNotification(APP_ID, number, key, overrides);
      const post = (body: unknown) =>
        fetch(notifyUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as { status?: string; error?: { code?: string } },
        }));
      const credited = async () =>
        (await h.request({ url: `${API}/transactions?accountNumber=${number}`, as: business })).json().data
          .length as number;

      test("a genuine one is acknowledged in the bank's format, and again when repeated", async () => {
        const genuine = notification();
        assert.deepEqual(await post(genuine), {
          status: 200,
          body: { respCode: "00000000", respMsg: "success" },
        });
        assert.deepEqual((await post(genuine)).status, 200);
        assert.equal(await credited(), 1);
      });

      test("forged (another key, or a changed amount), stale, another app's and malformed ones are refused, nothing credited", async () => {
        const before = await credited();
        const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
        const forged = await post(notification({}, stranger));
        assert.deepEqual(
          [forged.status, forged.body.status, forged.body.error?.code],
          [401, "fail", "BANK_SIGNATURE_INVALID"],
        );
        const altered = { ...notification(), orderAmount: 9_999_999_00 };
        assert.equal((await post(altered)).status, 401);
        const stale = await post(notification({ requestTime: Date.now() - 6 * 60_000 }));
        assert.deepEqual([stale.status, stale.body.error?.code], [401, "BANK_MESSAGE_STALE"]);
        const otherApp = await post(notification({ appId: "someone-else" }));
        assert.deepEqual([otherApp.status, otherApp.body.error?.code], [401, "BANK_SIGNATURE_INVALID"]);
        const malformed = await post(notification({ orderAmount: 10.5 }));
        assert.deepEqual([malformed.status, malformed.body.error?.code], [400, "VALIDATION_FAILED"]);
        assert.equal((await post([1, 2])).status, 400);
        assert.equal(await credited(), before);
        const refusals = logs.filter((line) => line.msg === "bank notification refused");
        assert.ok(
          refusals.some((line) => line.code === "BANK_MESSAGE_STALE"),
          "refusals are logged with their code",
        );
        assert.ok(!JSON.stringify(refusals).includes("Chidi Eze"), "never the body");
      });

      test("out of order: a later transfer first, then the earlier one, both credited once", async () => {
        const before = await credited();
        const earlier = notification({ paidTime: Date.now() - 60_000 });
        const later = notification();
        assert.equal((await post(later)).status, 200);
        assert.equal((await post(earlier)).status, 200);
        assert.equal((await post(later)).status, 200);
        assert.equal(await credited(), before + 2);
      });
    });

    test("the bank list and name enquiry are asked of the bank, over its protocol", async () => {
      const before = await bank.calls();
      const listed = await h.request({ url: `${API}/banks`, as: business });
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(listed.json().data, SANDBOX_BANKS);
      const known = SANDBOX_PAYEES.find((p) => p.outcome === "successful");
      const unknown = SANDBOX_PAYEES.find((p) => p.outcome === "unresolvable");
      assert.ok(known && unknown);
      const ask = (p: typeof known) =>
        h.request({
          url: `${API}/banks/resolve?bankCode=${p.bankCode}&accountNumber=${p.accountNumber}`,
          as: business,
        });
      const resolved = await ask(known);
      assert.equal(resolved.statusCode, 200, resolved.body);
      assert.equal(resolved.json().data.accountName, known.accountName);
      assertFailCode(await ask(unknown), 422, "ACCOUNT_NOT_RESOLVED");
      const after = await bank.calls();
      assert.equal(after.banks - before.banks, 1, "the list is kept: asked once for three requests");
      assert.equal(after.nameEnquiry - before.nameEnquiry, 2);
    });
  });
}
