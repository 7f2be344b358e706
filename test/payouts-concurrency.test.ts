import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import { CLI } from "../src/core/actor.js";
import { verifyLedger } from "../src/ledger-audit/verify.js";
import { cliEnv } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { payee, payoutTo } from "./helpers/payouts.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";

// Issue 26, item 3: no overdraft, ever. 100 payouts that together exceed the balance, sent at
// once to two server processes on one database, accept exactly those that fit; the others are
// 422 INSUFFICIENT_BALANCE with nothing held; `available` never went below zero (the ledger's
// entries say so: `vas ledger verify` walks every balance they passed through).

const PAYEE = payee("successful");
const FUNDED = 1_000_000; // NGN 10,000
const AMOUNT = 100_000; // NGN 1,000, fee NGN 10: 101,000 kobo each
const FEE = 1_000;
const FIT = Math.floor(FUNDED / (AMOUNT + FEE)); // 9

for (const dialect of DIALECTS) {
  describe(`100 payouts at once from two processes on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let business: TestBusiness;
    const servers: ServerProcess[] = [];
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      business = await h.createBusiness({ name: "Racing Payouts Ltd" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      const accountNumber = generated.json().data.accountNumber as string;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: FUNDED },
        as: business,
      });
      assert.equal(paid.statusCode, 201, paid.body);
      const env = cliEnv(h, masterKey) as Record<string, string>;
      servers.push(await startServerProcess(env));
      servers.push(await startServerProcess(env));
    });
    after(async () => {
      for (const server of servers) await server.stop();
      await h.close();
    });

    /** A signed POST to a real process, as an integrator would send it. */
    async function post(base: string, path: string, payload: unknown, as: TestBusiness = business) {
      const body = JSON.stringify(payload);
      const timestamp = String(Date.now());
      const response = await fetch(`${base}${API}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": as.apiKey,
          "x-timestamp": timestamp,
          "x-signature": sign(as.secretKey, body, timestamp),
          "idempotency-key": randomUUID(),
        },
        body,
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    }

    /** POST /payouts to a real process; each its own reference (a version 1 signature covers the body only). */
    const payout = (base: string, i: number, as: TestBusiness = business) =>
      post(base, "/payouts", payoutTo(PAYEE, AMOUNT, { reference: `race-${i}` }), as);

    test("exactly those that fit are accepted; available never below zero", async () => {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => payout((servers[i % 2] as ServerProcess).url, i)),
      );
      const accepted = answers.filter((a) => a.status === 202);
      const refused = answers.filter((a) => a.status === 422);
      const tally = answers.map((a) => `${a.status} ${a.body.error?.code ?? ""}`).sort();
      const counts = [...new Set(tally)]
        .map((t) => `${t} x${tally.filter((x) => x === t).length}`)
        .join(", ");
      assert.equal(accepted.length, FIT, counts);
      assert.equal(refused.length, 100 - FIT, counts);
      for (const answer of refused) assert.equal(answer.body.error?.code, "INSUFFICIENT_BALANCE");
      const balance = (await h.request({ url: `${API}/balance`, as: business })).json().data;
      assert.equal(balance.available, FUNDED - FIT * (AMOUNT + FEE));
      assert.equal(balance.pending + balance.totalPaidOut + balance.totalFees, FIT * (AMOUNT + FEE));
      const list = await h.request({ url: `${API}/payouts?limit=100`, as: business });
      assert.equal(list.json().pagination.total, FIT, "one payout per accepted request, none for a refusal");
      const report = await verifyLedger(h.storage.db);
      assert.deepEqual(report.drifts, [], "no balance ever below zero, every hold accounted for");
    });

    // Issue 43, item 1: each process keeps its keys' records for a moment, but money moves and
    // numbers are issued on the status as committed: nothing sent after the suspension has
    // returned is accepted, by either process, on any channel.
    test("a suspension stops payouts and generates at once in both processes", async () => {
      const suspended = await h.createBusiness({ name: "Suspended Mid-Flight Ltd" });
      await h.services.payoutSettings.setApiPayouts(suspended.businessId, true);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: suspended });
      const accountNumber = generated.json().data.accountNumber as string;
      const funded = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: 100 * (AMOUNT + FEE) },
        as: suspended,
      });
      assert.equal(funded.statusCode, 201, funded.body);
      // Both processes have the key's record in their cache: each answered it once.
      for (const [n, server] of servers.entries()) {
        assert.equal((await payout(server.url, 1000 + n, suspended)).status, 202);
      }

      let suspendedAt = Number.POSITIVE_INFINITY;
      const answers: Array<{ sentAt: number; kind: string; status: number; code?: string }> = [];
      let serial = 0;
      const sender = async (server: ServerProcess) => {
        while (performance.now() < suspendedAt + 1_200) {
          const i = serial++;
          const sentAt = performance.now();
          const [kind, answer] =
            i % 2 === 0
              ? ["payout", await payout(server.url, 2000 + i, suspended)]
              : ["generate", await post(server.url, "/account/generate", customer(), suspended)];
          answers.push({ sentAt, kind, status: answer.status, code: answer.body.error?.code });
        }
      };
      const senders = servers.flatMap((server) => [sender(server), sender(server)]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await h.services.businesses.setVerificationStatus(
        suspended.businessId,
        "rejected",
        CLI,
        "Fraud report",
      );
      suspendedAt = performance.now();
      await Promise.all(senders);

      const late = answers.filter((a) => a.sentAt > suspendedAt);
      assert.ok(late.length >= 8, `requests were sent after the suspension (${late.length})`);
      for (const answer of late) {
        assert.deepEqual([answer.status, answer.code], [401, "BUSINESS_NOT_VERIFIED"], answer.kind);
      }
      const rowsOf = async (table: "payouts" | "accounts") =>
        Number(
          (
            await h.storage.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as("n"))
              .where("business_id", "=", suspended.businessId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const accepted = (kind: string, status: number) =>
        answers.filter((a) => a.kind === kind && a.status === status).length;
      assert.equal(
        await rowsOf("payouts"),
        accepted("payout", 202) + 2,
        "a payout for each 202, none for a refusal",
      );
      assert.equal(
        await rowsOf("accounts"),
        accepted("generate", 201) + 1,
        "an account for each 201, none for a refusal",
      );
      assert.deepEqual((await verifyLedger(h.storage.db)).drifts, []);
    });
  });
}
