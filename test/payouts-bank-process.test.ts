import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Faults } from "../src/bank/faults.js";
import type { Payout } from "../src/core/api-types.js";
import { verifyLedger } from "../src/ledger-audit/verify.js";
import { type BankProcess, clientKeyFiles, freePort, startBankProcess } from "./helpers/bank-process.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { type Destination, makePayout, payee } from "./helpers/payouts.js";

// Issue 26, item 7: payouts with PROVIDER=http against the Virtual Bank as a process of its own,
// over real ports, on each database. Each way a bank fails (it refuses, fails after accepting,
// hangs after acting, reverses after success, drops the status notification, answers 5xx) ends
// every payout in exactly one final state; the bank executed each reference once; the ledger
// verifies.

const APP_ID = "vas-payout-app";

for (const dialect of DIALECTS) {
  describe(`payouts through the bank process on ${dialect}`, () => {
    let dir: string;
    let bank: BankProcess;
    let h: Harness;
    let business: TestBusiness;
    const made: Payout[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-payout-bank-"));
      const { privateKeyFile: clientPrivate, publicKeyFile: clientPublic } = clientKeyFiles(dir);
      const port = await freePort();
      bank = await startBankProcess({
        dataDir: path.join(dir, "bank"),
        appId: APP_ID,
        clientPublicKeyFile: clientPublic,
        notifyUrl: `http://127.0.0.1:${port}/api/v1/bank/notifications`,
        payoutSettleMs: 100,
        payoutReverseMs: 300,
      });
      h = await createHarness({
        dialect,
        env: {
          PROVIDER: "http",
          BANK_URL: bank.url,
          BANK_APP_ID: APP_ID,
          BANK_PRIVATE_KEY_FILE: clientPrivate,
          BANK_PUBLIC_KEY_FILE: bank.publicKeyFile,
          BANK_TIMEOUT_MS: "500",
          BANK_BREAKER_THRESHOLD: "50",
          PAYOUT_CHECK_INTERVAL_MS: "50",
        },
      });
      await h.app.listen({ port, host: "127.0.0.1" });
      business = await h.createBusiness({ name: "Bank Payouts Ltd" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const account = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      assert.equal(account.statusCode, 201, account.body);
      const paid = await bank.pay({
        virtualAccountNo: account.json().data.accountNumber,
        amount: 50_000_000,
      });
      const settled = await bank.settled(paid.body.data?.orderNo ?? "");
      assert.equal(settled.status, "acknowledged");
    });

    after(async () => {
      await h?.close();
      if (bank) assert.equal(await bank.stop(), 0);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Makes a payout, then sets these faults at the bank (its name enquiry is answered), and checks until it is final. */
    async function payOut(destination: Destination, faults: Partial<Faults>) {
      const payout = await makePayout(h, business, destination, 100_000);
      made.push(payout);
      await bank.setFaults(faults);
      return waitFor(payout.id, (p) => p.status !== "pending");
    }

    /** Runs the tracker (as the job does) until the payout passes `done`. */
    async function waitFor(id: string, done: (payout: Payout) => boolean): Promise<Payout> {
      for (let i = 0; i < 200; i++) {
        await h.services.payoutTracker.run();
        const current = (await h.request({ url: `${API}/payouts/${id}`, as: business })).json()
          .data as Payout;
        if (done(current)) return current;
        await sleep(50);
      }
      throw new Error(`payout ${id} did not get there:\n${bank.output()}`);
    }

    test("a bank that pays: successful, its notification applied once, with the NIP session id it gave", async () => {
      const payout = await payOut(payee("successful"), {});
      assert.equal(payout.status, "successful");
      assert.match(payout.sessionId ?? "", /^\d{30}$/);
      const atBank = (await bank.transfersOut()).find((transfer) => transfer.reference === payout.id);
      assert.equal(atBank?.session_id, payout.sessionId, "the bank's session id, not one of the service's");
    });

    test("a bank that answers a NIP timeout (FAILED, 97): the payout waits for the final code, success or refusal", async () => {
      const paid = await payOut(payee("unknown_successful"), {});
      assert.equal(paid.status, "successful");
      assert.match(paid.sessionId ?? "", /^\d{30}$/);
      const refused = await payOut(payee("unknown_failed"), {});
      assert.equal(refused.status, "failed");
      assert.equal(refused.failureReason, "Unable to locate record");
      const codes = (await h.services.payoutListing.find(refused.id)).nipCodes ?? "";
      assert.match(codes, /^97(,01)*,25$/, "a timeout first, never taken as the refusal");
    });

    test("a bank that refuses the transfer: failed with its words, everything back", async () => {
      const before = (await h.request({ url: `${API}/balance`, as: business })).json().data;
      const payout = await payOut(payee("successful"), { refuseTransfers: 1 });
      assert.equal(payout.status, "failed");
      assert.equal(payout.failureReason, "transfer refused by the bank (fault injected)");
      assert.deepEqual((await h.request({ url: `${API}/balance`, as: business })).json().data, before);
    });

    test("a bank that fails after accepting: failed, the hold voided", async () => {
      const payout = await payOut(payee("failed"), {});
      assert.equal(payout.status, "failed");
      assert.equal(payout.failureReason, "Account dormant");
    });

    test("a bank that hangs after acting: the same reference again, one transfer", async () => {
      const payout = await payOut(payee("successful"), { hangNext: 1 });
      assert.equal(payout.status, "successful");
      const calls = await bank.calls();
      assert.ok(calls.transferOut >= 2, "asked again after the hang");
    });

    test("a bank that answers 5xx: asked again until it acts, once", async () => {
      const payout = await payOut(payee("successful"), { failNext: 3 });
      assert.equal(payout.status, "successful");
    });

    test("a bank whose status notifications are lost: the service's queries find the outcome", async () => {
      const payout = await payOut(payee("failed"), { dropNotifications: 1_000 });
      assert.equal(payout.status, "failed");
      await bank.setFaults({ dropNotifications: 0 });
    });

    test("a bank that reverses after success: reversed, the amount back, the fee kept", async () => {
      const paid = await payOut(payee("reversed"), {});
      assert.equal(paid.status, "successful");
      const reversed = await waitFor(paid.id, (p) => p.status === "reversed");
      assert.equal(reversed.failureReason, "Returned by the receiving bank");
    });

    test("every payout ended once, the bank executed each reference once, the ledger verifies", async () => {
      const out = await bank.transfersOut();
      const references = out.map((transfer) => transfer.reference);
      assert.equal(new Set(references).size, references.length, "one transfer per reference");
      for (const payout of made) {
        const current = (await h.request({ url: `${API}/payouts/${payout.id}`, as: business })).json()
          .data as Payout;
        assert.notEqual(current.status, "pending");
        const executed = references.filter((reference) => reference === payout.id).length;
        assert.equal(executed, current.failureReason?.includes("fault injected") ? 0 : 1, payout.id);
      }
      const events = await h.request({ url: `${API}/events?limit=100`, as: business });
      const payoutEvents = (events.json().data as Array<{ type: string; data: Payout }>).filter((e) =>
        e.type.startsWith("payout."),
      );
      // One per final state (and one more for the reversal).
      assert.equal(payoutEvents.length, made.length + 1);
      assert.deepEqual((await verifyLedger(h.storage.db)).drifts, []);
    });
  });
}
