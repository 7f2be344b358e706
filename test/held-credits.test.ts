import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AppError } from "../src/errors.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification as makeNotification } from "./helpers/notifications.js";

// Issue 46, item 6: who may pay in (allowedPayers) and what a credit an account's rules do not take
// becomes (onMismatch): declined (the bank reverses it, payment.declined) or held (the business's
// held balance, payment.held), for a payer not named and for the expected amount's policies alike.

const PAYER = { name: "Ada Obi", accountNumber: "0123456789", bankName: "Example Bank", bankCode: "058" };
const STRANGER = { name: "Chidi Eze", accountNumber: "0987654321", bankName: "Other Bank", bankCode: "044" };

for (const dialect of DIALECTS) {
  describe(`held credits on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Held Ltd" });
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    const notification = (accountNumber: string, amount: number, payer = PAYER) =>
      makeNotification(accountNumber, amount, new Date().toISOString(), { payer });
    const receive = (body: ReturnType<typeof notification>) => h.services.collections.receive(body);
    const get = async (url: string) => {
      const response = await h.request({ url: `${API}${url}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data;
    };
    const open = async (path: string, body: Record<string, unknown>) => {
      const response = await h.request({ url: `${API}${path}`, body: customer(body), as: business });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data.accountNumber as string;
    };
    const eventsOf = async (type: string) =>
      (await get(`/events?type=${type}&limit=100`)) as Array<{
        data: { id?: string; status?: string; sessionId: string; reason: { code: string; message: string } };
      }>;
    const refused = async (body: ReturnType<typeof notification>, code: string) => {
      const error = await receive(body).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof AppError && error.code === code, `${code}: ${String(error)}`);
      assert.equal(error.statusCode, 422, "a 4xx: the bank reverses it");
    };

    test("the payer rules are set at generate and shown on the account; bad ones are 400", async () => {
      const number = await open("/account/generate", {
        allowedPayers: [
          { accountNumber: PAYER.accountNumber, bankCode: PAYER.bankCode },
          { name: "Ngozi Okafor" },
        ],
        onMismatch: "hold",
      });
      const detail = await get(`/account/${number}`);
      assert.deepEqual(detail.allowedPayers, [
        { accountNumber: PAYER.accountNumber, bankCode: PAYER.bankCode },
        { name: "Ngozi Okafor" },
      ]);
      assert.equal(detail.onMismatch, "hold");
      const plain = await get(`/account/${await open("/account/generate", {})}`);
      assert.equal(plain.allowedPayers, null, "anyone, by default");
      assert.equal(plain.onMismatch, "decline", "decline, by default");
      for (const bad of [
        { allowedPayers: [] },
        { allowedPayers: [{ accountNumber: "123", bankCode: "058" }] },
        { allowedPayers: [{ name: "" }] },
        { allowedPayers: "anyone" },
        { onMismatch: "keep" },
      ]) {
        const response = await h.request({
          url: `${API}/account/generate/temporary`,
          body: customer(bad),
          as: business,
        });
        assert.equal(response.statusCode, 400, `${JSON.stringify(bad)}: ${response.body}`);
        assert.equal(response.json().status, "fail");
      }
    });

    test("decline: a payer not named is refused with payment.declined; a named one, by account or by name, is credited", async () => {
      const number = await open("/account/generate", {
        allowedPayers: [
          { accountNumber: PAYER.accountNumber, bankCode: PAYER.bankCode },
          { name: "Ngozi Okafor" },
        ],
      });
      const stranger = notification(number, 5_000, STRANGER);
      await refused(stranger, "PAYER_NOT_ALLOWED");
      const declined = (await eventsOf("payment.declined")).find(
        (e) => e.data.sessionId === stranger.sessionId,
      );
      assert.equal(declined?.data.reason.code, "PAYER_NOT_ALLOWED");
      assert.equal((await receive(notification(number, 5_000))).transaction.status, "successful");
      const byName = { ...STRANGER, name: "OKAFOR NGOZI ADAEZE" };
      assert.equal((await receive(notification(number, 7_000, byName))).transaction.status, "successful");
      // The same account number at another bank is someone else.
      await refused(
        notification(number, 5_000, { ...PAYER, name: "Somebody Else", bankCode: "044" }),
        "PAYER_NOT_ALLOWED",
      );
      assert.equal((await get(`/account/${number}`)).totalReceived, 12_000);
    });

    test("hold: a payer not named is credited to held, not to available, with payment.held", async () => {
      const number = await open("/account/generate", {
        allowedPayers: [{ name: PAYER.name }],
        onMismatch: "hold",
      });
      const before = await get("/balance");
      const held = await receive(notification(number, 20_000, STRANGER));
      assert.equal(held.transaction.status, "held");
      assert.equal(held.transaction.fee, 0, "no fee until it is accepted");
      const after = await get("/balance");
      assert.equal(after.held - before.held, 20_000);
      assert.equal(after.available, before.available, "nothing available to pay out");
      assert.equal(after.totalReceived - before.totalReceived, 20_000, "the money came in");
      const event = (await eventsOf("payment.held")).find((e) => e.data.id === held.transaction.id);
      assert.equal(event?.data.status, "held");
      assert.equal(event?.data.reason.code, "PAYER_NOT_ALLOWED");
      assert.equal((await get(`/transactions/${held.transaction.id}`)).status, "held");
      assert.equal((await get(`/account/${number}`)).totalReceived, 0, "received once accepted");
      await assertLedgerInvariants(h.storage.db);
    });

    test("hold with an expected amount: a mismatch and a second payment are held, the right one is still taken", async () => {
      const number = await open("/account/generate/temporary", {
        duration: 600,
        expectedAmount: 50_000,
        onMismatch: "hold",
      });
      const wrong = await receive(notification(number, 49_000));
      assert.equal(wrong.transaction.status, "held", "AMOUNT_MISMATCH, held");
      assert.equal(wrong.payment, null);
      const right = await receive(notification(number, 50_000));
      assert.equal(right.transaction.status, "successful", "a held credit is not a payment");
      assert.deepEqual(right.payment, { expectedAmount: 50_000, amountPaid: 50_000, variance: 0 });
      const again = await receive(notification(number, 50_000));
      assert.equal(again.transaction.status, "held", "ALREADY_PAID, held");
      const reasons = (await eventsOf("payment.held"))
        .filter((e) => [wrong.transaction.id, again.transaction.id].includes(e.data.id ?? ""))
        .map((e) => e.data.reason.code)
        .sort();
      assert.deepEqual(reasons, ["ALREADY_PAID", "AMOUNT_MISMATCH"]);
      const detail = await get(`/account/${number}`);
      assert.equal(detail.paymentStatus, "paid");
      assert.equal(detail.totalReceived, 50_000);
    });

    test("accept: held → available with its fee and charges taken then, payment.accepted, once", async () => {
      await h.services.collections.setFee(business.businessId, { basisPoints: 100, capKobo: null });
      const number = await open("/account/generate", {
        allowedPayers: [{ name: PAYER.name }],
        onMismatch: "hold",
      });
      const held = await receive(notification(number, 40_000, STRANGER));
      const before = await get("/balance");
      const accept = (id: string) =>
        h.request({ url: `${API}/transactions/${id}/accept`, body: {}, as: business });
      const response = await accept(held.transaction.id);
      assert.equal(response.statusCode, 200, response.body);
      const accepted = response.json().data;
      assert.equal(accepted.status, "successful");
      assert.equal(accepted.fee, 400, "1 % of 40,000, the fee in force at acceptance");
      assert.equal(
        accepted.netAmount,
        40_000 - 400 - accepted.charges.reduce((t: number, c: { amount: number }) => t + c.amount, 0),
      );
      const after = await get("/balance");
      assert.equal(before.held - after.held, 40_000, "out of held");
      assert.equal(after.available - before.available, accepted.netAmount, "its net into available");
      assert.equal(after.totalFees - before.totalFees, 400);
      assert.equal(after.totalReceived, before.totalReceived, "it came in at its arrival");
      assert.deepEqual(await get(`/transactions/${held.transaction.id}`), accepted);
      const event = (await eventsOf("payment.accepted")).find((e) => e.data.id === held.transaction.id);
      assert.equal(event?.data.status, "successful");
      const again = await accept(held.transaction.id);
      assert.equal(again.statusCode, 422, again.body);
      assert.equal(again.json().error.code, "CREDIT_NOT_HELD");
      const credited = await receive(notification(number, 1_000));
      const notHeld = await accept(credited.transaction.id);
      assert.equal(notHeld.statusCode, 422);
      assert.equal(notHeld.json().error.code, "CREDIT_NOT_HELD");
      const unknown = await accept("txn_00000000000000000000000000000000");
      assert.equal(unknown.statusCode, 404);
      const other = await h.createBusiness({ name: "Other Ltd" });
      const theirs = await h.request({
        url: `${API}/transactions/${held.transaction.id}/accept`,
        body: {},
        as: other,
      });
      assert.equal(theirs.statusCode, 404, "another business's held credit is not found");
      await h.services.collections.setFee(business.businessId, { basisPoints: 0, capKobo: null });
      await assertLedgerInvariants(h.storage.db);
    });

    test("two acceptances of one held credit at once: one accepts it, the other is refused", async () => {
      const number = await open("/account/generate", {
        allowedPayers: [{ name: PAYER.name }],
        onMismatch: "hold",
      });
      const held = await receive(notification(number, 9_000, STRANGER));
      const results = await Promise.all(
        // Two requests (their bodies differ, so neither is the other's replay).
        [1, 2].map((n) =>
          h.request({ url: `${API}/transactions/${held.transaction.id}/accept`, body: { n }, as: business }),
        ),
      );
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 422]);
      await assertLedgerInvariants(h.storage.db);
    });

    test("decline with an expected amount: refused as before, now with payment.declined", async () => {
      const number = await open("/account/generate/temporary", { duration: 600, expectedAmount: 50_000 });
      const wrong = notification(number, 49_000);
      await refused(wrong, "AMOUNT_MISMATCH");
      const declined = (await eventsOf("payment.declined")).find((e) => e.data.sessionId === wrong.sessionId);
      assert.equal(declined?.data.reason.code, "AMOUNT_MISMATCH");
    });
  });
}
