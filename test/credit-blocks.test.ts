import assert from "node:assert/strict";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import type { Payout, Transaction } from "../src/core/api-types.js";
import { assertFailCode } from "./helpers/assertions.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  type Harness,
  permanentInputOf,
  type TestBusiness,
  verifyBusiness,
} from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { signedUpBusiness } from "./helpers/members.js";
import { notification } from "./helpers/notifications.js";
import { pageClient } from "./helpers/page-client.js";
import { payee } from "./helpers/payouts.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 46, item 7: erroneous credits. An operator blocks an amount of a credit its payer's bank
// disputes (out of available into held: not paid out, settled or refunded while it stands), then
// releases it or returns it to the payer (a refund from held, no fee); a return the bank does not
// make stands the block again. Each move audited, with its event; the business sees it.

const SUCCESSFUL = payee("successful");
const FAILED = payee("failed");
const SETTLE_MS = 2_000;
const PASSWORD = "correct horse battery staple 42";
const OPERATOR_PASSWORD = "lagos harbour ferry at dawn 7";

/** A NIP session id: 30 digits. */
const sessionId = () => Array.from({ length: 30 }, () => randomInt(10)).join("");

for (const dialect of DIALECTS) {
  describe(`blocks on disputed credits on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let clock = Date.now();
    let accountNumber: string;
    let operator: ReturnType<typeof pageClient>;
    let operatorId: string;
    const masterKey = randomBytes(32);
    before(async () => {
      h = await createHarness({
        dialect,
        masterKey,
        now: () => clock,
        env: { SANDBOX_PAYOUT_SETTLE_MS: String(SETTLE_MS), SIGN_IN_RATE_LIMIT_PER_MIN: "0" },
      });
      business = await h.createBusiness({ name: "Disputes Ltd" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      // A fee, so a credit's net is less than its amount.
      await h.services.collections.setFee(business.businessId, { basisPoints: 100, capKobo: null });
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      assert.equal(generated.statusCode, 201, generated.body);
      accountNumber = generated.json().data.accountNumber;
      // Money already in: a credit's whole amount is more than its own net.
      await credit(100_000);
      const signedIn = await signedInOperator(
        h.services,
        h.app,
        `ops.${dialect}@blocks.example`,
        OPERATOR_PASSWORD,
        { now: () => clock },
      );
      operator = signedIn.client;
      operatorId = signedIn.id;
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    /** A credit into the account from `from`, under a NIP session id of its own. */
    const credit = async (amount: number, from = SUCCESSFUL, into = accountNumber) => {
      const payer = {
        name: "Chidi Eze",
        accountNumber: from.accountNumber,
        bankName: "Sandbox",
        bankCode: from.bankCode,
      };
      const { transaction } = await h.services.collections.receive(
        notification(into, amount, new Date(clock).toISOString(), { payer, sessionId: sessionId() }),
      );
      return transaction;
    };
    const post = (path: string, body: unknown = {}) =>
      h.request({
        timestamp: ++clock,
        url: `${API}${path}`,
        body,
        as: business,
        headers: { "idempotency-key": randomUUID() },
      });
    const get = async (path: string) => (await h.request({ url: `${API}${path}`, as: business })).json().data;
    const bankTells = async (ms: number) => {
      clock += ms;
      await h.services.payoutTracker.run();
      await h.services.bankPayoutNotices?.run();
    };
    /** The console's form, sent as an operator does: the page first, then the form with its token. */
    const send = async (path: string, form: Record<string, string> = {}) => {
      const { token } = await operator.get("/admin/blocks?show=all");
      return operator.post(path, { _csrf: token ?? "", ...form });
    };
    const blockOf = async (transactionId: string) => {
      const [found] = await h.services.creditBlocks.ofCredit(business.businessId, transactionId);
      assert.ok(found, `a block on ${transactionId}`);
      return found;
    };
    const audited = async (action: string, blockId: string) => {
      const rows = await h.storage.db
        .selectFrom("audit_log")
        .select(["actor_type", "actor_id", "business_id", "detail"])
        .where("action", "=", action)
        .execute();
      return rows.filter((row) => (row.detail ?? "").includes(blockId));
    };

    test("a credit blocked by its session id leaves available for held; nothing pays it out; released, it is back", async () => {
      const paid = await credit(50_000);
      const before = await get("/balance");
      const blocked = await send("/admin/blocks", {
        credit: paid.sessionId,
        reason: "Recall 4411 from the payer's bank: sent in error",
      });
      assert.equal(blocked.statusCode, 303, blocked.body);
      assert.equal(blocked.headers.location, "/admin/blocks?done=blocked");
      const during = await get("/balance");
      assert.equal(before.available - during.available, 50_000, "out of available: the whole amount");
      assert.equal(during.held - before.held, 50_000, "into held");
      const block = await blockOf(paid.id);
      assert.deepEqual([block.state, block.amount, block.sessionId], ["blocked", 50_000, paid.sessionId]);
      const events = (await get("/events?type=payment.blocked")) as Array<{
        data: { id: string; amount: number; reason: string };
      }>;
      const event = events.find((e) => e.data.id === block.id);
      assert.deepEqual(
        [event?.data.amount, event?.data.reason],
        [50_000, "Recall 4411 from the payer's bank: sent in error"],
      );
      const [entry] = await audited("credit.blocked", block.id);
      assert.deepEqual(
        [entry?.actor_type, entry?.actor_id, entry?.business_id],
        ["operator", operatorId, business.businessId],
      );
      const listed = (await operator.get("/admin/blocks")).response.body;
      assert.ok(listed.includes(paid.id) && listed.includes("Standing"), "the console lists it standing");

      // While it stands, the business can neither refund it nor block it twice.
      assertFailCode(
        await post(`/transactions/${paid.id}/refund`, { amount: 1_000 }),
        422,
        "REFUND_EXCEEDS_PAYMENT",
      );
      const again = await send("/admin/blocks", { credit: paid.id, reason: "Again" });
      assert.equal(again.statusCode, 422);
      assert.match(again.body, /a block stands on it already/);

      const released = await send(`/admin/blocks/${block.id}/release`);
      assert.equal(released.statusCode, 303, released.body);
      const afterwards = await get("/balance");
      assert.deepEqual([afterwards.available, afterwards.held], [before.available, before.held]);
      assert.equal((await blockOf(paid.id)).state, "released");
      const releases = (await get("/events?type=payment.released")) as Array<{ data: { id: string } }>;
      assert.ok(
        releases.some((e) => e.data.id === block.id),
        "payment.released",
      );
      assert.equal((await audited("credit.released", block.id)).length, 1);
      const twice = await send(`/admin/blocks/${block.id}/release`);
      assert.equal(twice.statusCode, 422);
      assert.match(twice.body, /no longer stands: it was released/);
      await assertLedgerInvariants(h.storage.db);
    });

    test("a block needs its money in available: refused when it is not there, a part blocked; never past what is left", async () => {
      const other = await h.createBusiness({ name: "Thin Margins Ltd" });
      await h.services.collections.setFee(other.businessId, { basisPoints: 100, capKobo: null });
      const account = await h.request({ url: `${API}/account/generate`, body: customer(), as: other });
      const only = await credit(20_000, SUCCESSFUL, account.json().data.accountNumber);
      // Its available balance is the credit's net, NGN 198 (a 1 % fee): the whole NGN 200 is not there.
      await assert.rejects(
        h.services.creditBlocks.block(CLI, { credit: only.id, reason: "Dispute" }),
        (error: { code?: string; message: string }) =>
          error.code === "INSUFFICIENT_BALANCE" && /balance \(NGN 198\.00\)/.test(error.message),
      );
      await assert.rejects(
        h.services.creditBlocks.block(CLI, { credit: only.id, amount: 20_001, reason: "Dispute" }),
        (error: { code?: string }) => error.code === "CREDIT_NOT_BLOCKABLE",
      );
      const part = await h.services.creditBlocks.block(CLI, {
        credit: only.id,
        amount: 19_800,
        reason: "Dispute",
      });
      assert.deepEqual([part.amount, part.state], [19_800, "blocked"]);
      const balance = await h.services.collections.balance({
        businessId: other.businessId,
        businessName: "",
      });
      assert.deepEqual([balance.available, balance.held], [0, 19_800]);
      await assert.rejects(
        h.services.creditBlocks.block(CLI, { credit: `txn_${"0".repeat(32)}`, reason: "Dispute" }),
        (error: { code?: string }) => error.code === "TRANSACTION_NOT_FOUND",
      );
      const refused = await send("/admin/blocks", { credit: "not a credit!", reason: "Dispute" });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /Credit must be a transaction id/);
      await h.services.creditBlocks.release(CLI, part.id);
      await assertLedgerInvariants(h.storage.db);
    });

    test("returned to the payer: a refund from held, no fee, payment.returned; the bank's failure stands the block again", async () => {
      const paid = await credit(30_000);
      const block = await h.services.creditBlocks.block(CLI, { credit: paid.id, reason: "Recall 5120" });
      const before = await get("/balance");
      const returned = await send(`/admin/blocks/${block.id}/return`);
      assert.equal(returned.statusCode, 303, returned.body);
      const moved = await blockOf(paid.id);
      assert.equal(moved.state, "returned");
      const refund = (await get(`/payouts/${moved.refundId}`)) as Payout;
      assert.deepEqual(
        [refund.amount, refund.fee, refund.refundOf, refund.accountNumber, refund.status],
        [30_000, 0, paid.id, SUCCESSFUL.accountNumber, "pending"],
      );
      const during = await get("/balance");
      assert.equal(before.held - during.held, 30_000, "out of held");
      assert.equal(during.available, before.available, "available untouched");
      const events = (await get("/events?type=payment.returned")) as Array<{
        data: { block?: { id: string }; refund: Payout };
      }>;
      assert.equal(events.find((e) => e.data.block?.id === block.id)?.data.refund.id, refund.id);
      assert.equal((await audited("credit.returned", block.id)).length, 1);
      const twice = await send(`/admin/blocks/${block.id}/return`);
      assert.equal(twice.statusCode, 422);
      await bankTells(SETTLE_MS);
      await bankTells(SETTLE_MS);
      assert.equal(((await get(`/payouts/${refund.id}`)) as Payout).status, "successful");

      const failing = await credit(8_000, FAILED);
      const standing = await h.services.creditBlocks.block(CLI, {
        credit: failing.id,
        reason: "Recall 5121",
      });
      const back = await h.services.blockReturns.returnBlock(CLI, standing.id);
      await bankTells(SETTLE_MS);
      await bankTells(SETTLE_MS);
      assert.equal(((await get(`/payouts/${back.id}`)) as Payout).status, "failed");
      const again = await blockOf(failing.id);
      assert.deepEqual(
        [again.state, again.refundId],
        ["blocked", null],
        "standing again, to return or release",
      );
      assert.equal(((await get(`/transactions/${failing.id}`)) as Transaction).status, "successful");
      await h.services.creditBlocks.release(CLI, standing.id);
      await assertLedgerInvariants(h.storage.db);
    });

    test("a held credit is not blocked (it is accepted or returned); a reviewer reads blocks but does not move them", async () => {
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ allowedPayers: [{ name: "Ada Obi" }], onMismatch: "hold" }),
        as: business,
      });
      const held = await credit(6_000, SUCCESSFUL, generated.json().data.accountNumber);
      assert.equal(held.status, "held");
      await assert.rejects(
        h.services.creditBlocks.block(CLI, { credit: held.id, reason: "Dispute" }),
        (error: { code?: string; message: string }) =>
          error.code === "CREDIT_NOT_BLOCKABLE" && /it is held/.test(error.message),
      );
      const { client: reviewer } = await signedInOperator(
        h.services,
        h.app,
        `reviewer.${dialect}@blocks.example`,
        OPERATOR_PASSWORD,
        { role: "reviewer", now: () => clock },
      );
      const page = await reviewer.get("/admin/blocks");
      assert.equal(page.response.statusCode, 200);
      const paid = await credit(1_000);
      const refused = await reviewer.post("/admin/blocks", {
        _csrf: page.token ?? "",
        credit: paid.id,
        reason: "Dispute",
      });
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(await h.services.creditBlocks.ofCredit(business.businessId, paid.id), []);
    });

    test("the CLI blocks by session id, lists, returns, and refuses what the console refuses", async () => {
      const env = cliEnv(h, masterKey);
      const paid = await credit(4_000);
      const blocked = await runVas(
        ["credits", "block", paid.sessionId, "--reason", "Recall 9001", "--json"],
        env,
      );
      assert.equal(blocked.code, 0, blocked.stderr);
      const block = JSON.parse(blocked.stdout) as { id: string; amount: number; state: string };
      assert.deepEqual([block.amount, block.state], [4_000, "blocked"]);
      assert.equal((await audited("credit.blocked", block.id))[0]?.actor_type, "cli");
      const listed = await runVas(["credits", "blocks", "--business", business.businessId], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(block.id));
      const returned = await runVas(["credits", "return", block.id], env);
      assert.equal(returned.code, 0, returned.stderr);
      assert.match(returned.stdout, /Returning NGN 40\.00 to the payer: refund po_[0-9a-f]{32}, pending/);
      assert.equal((await blockOf(paid.id)).state, "returned");
      const again = await runVas(["credits", "release", block.id], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /no longer stands: it was returned/);
      const usage = await runVas(["credits", "block", paid.id], env);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--reason is required/);
    });

    test("the business sees a block on its payment's page, and cannot refund what it holds", async () => {
      const email = `owner.${dialect}@blocked.example`;
      const { business: mine } = await signedUpBusiness(h.services, {
        businessName: "Seen Ltd",
        email,
        password: PASSWORD,
      });
      await verifyBusiness(h.services, mine.businessId);
      const account = await h.services.accounts.generatePermanent(
        mine,
        CLI,
        permanentInputOf({ email: `amaka.${dialect}@customers.example` }),
      );
      const paid = await credit(12_000, SUCCESSFUL, account.account.accountNumber);
      await h.services.creditBlocks.block(CLI, {
        credit: paid.id,
        amount: 5_000,
        reason: "Recall 7001 from Sandbox Bank",
      });
      const owner = pageClient(h.app);
      const signedIn = await owner.signIn("/dashboard", email, PASSWORD);
      assert.equal(signedIn.statusCode, 303, signedIn.body);
      const shown = (await owner.get(`/dashboard/transactions/${paid.id}`)).response;
      assert.equal(shown.statusCode, 200);
      assert.match(shown.body, /Blocked: NGN 50\.00 of it/);
      assert.match(shown.body, /Recall 7001 from Sandbox Bank/);
      assert.match(shown.body, /A payout of up to NGN 70\.00/, "what is refundable leaves the block out");
    });
  });
}
