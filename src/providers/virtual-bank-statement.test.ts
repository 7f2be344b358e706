import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { decodeCursor, encodeCursor, statementPages } from "./bank-statement.js";
import type { TransferNotification } from "./transfer-notification.js";
import { embeddedStatement } from "./virtual-bank-statement.js";
import type { BankPayoutRecord, IsoPosition, IsoWindow, VirtualBankStore } from "./virtual-bank-store.js";

// The statement's paging (issue 27): whatever the page size and however the entries fall on
// the window's edges and on equal times, every credit of the window comes once, in (time, id)
// order, then every transfer out, and nothing outside the window.

const DAY = Date.parse("2026-03-10T00:00:00.000Z");
const iso = (offset: number) => new Date(DAY + offset).toISOString();

/** A store over two arrays, answering the three reads the statement makes as SQL would. */
function storeOf(credits: TransferNotification[], payouts: BankPayoutRecord[]): VirtualBankStore {
  const byKey = <T>(rows: T[], time: (row: T) => string, id: (row: T) => string) =>
    [...rows].sort((a, b) => (time(a) === time(b) ? (id(a) < id(b) ? -1 : 1) : time(a) < time(b) ? -1 : 1));
  const page = <T>(
    rows: T[],
    time: (row: T) => string,
    id: (row: T) => string,
    window: IsoWindow,
    after: IsoPosition | undefined,
    limit: number,
  ) =>
    byKey(rows, time, id)
      .filter((row) => time(row) >= window.from && time(row) < window.to)
      .filter((row) => !after || time(row) > after.time || (time(row) === after.time && id(row) > after.id))
      .slice(0, limit);
  const refuse = () => Promise.reject(new Error("not read by the statement"));
  return {
    creditsBetween: async (window, after, limit) =>
      page(
        credits,
        (c) => c.paidAt,
        (c) => c.sessionId,
        window,
        after,
        limit,
      ),
    payoutsBetween: async (window, after, limit) =>
      page(
        payouts,
        (p) => p.acceptedAt,
        (p) => p.reference,
        window,
        after,
        limit,
      ),
    findCredit: async (sessionId) => credits.find((c) => c.sessionId === sessionId),
    reserveSerials: refuse,
    openOnce: refuse,
    findByReference: refuse,
    setStatus: refuse,
    recordPayoutOnce: refuse,
    findPayout: refuse,
    payoutsToNotify: refuse,
    markNotified: refuse,
  };
}

const credit = (sessionId: string, offset: number): TransferNotification => ({
  sessionId,
  accountNumber: "0000000000",
  amount: 100,
  currency: "NGN",
  payer: { name: "P", accountNumber: "0123456789", bankName: "B" },
  narration: "",
  paidAt: iso(offset),
});

const payout = (reference: string, offset: number): BankPayoutRecord => ({
  reference,
  bankCode: "058",
  accountNumber: "0123456789",
  accountName: "P",
  amount: 100,
  outcome: "successful",
  sessionId: null,
  acceptedAt: iso(offset),
  settlesAt: iso(offset),
  reversesAt: null,
  notified: "pending",
});

/** Offsets around a window of [0, 100): before it, on its edges, inside it, with ties. */
const offset = fc.integer({ min: -3, max: 103 });

describe("the embedded bank's statement", () => {
  test("pages cover the window: every credit once in order, then every transfer out, nothing outside", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), offset), {
          selector: ([id]) => id,
          maxLength: 25,
        }),
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), offset), {
          selector: ([id]) => id,
          maxLength: 25,
        }),
        fc.integer({ min: 1, max: 7 }),
        async (credits, payouts, size) => {
          const store = storeOf(
            credits.map(([id, at]) => credit(id, at)),
            payouts.map(([id, at]) => payout(id, at)),
          );
          const statement = embeddedStatement(store, (record) => ({
            reference: record.reference,
            status: "successful",
            reason: null,
            sessionId: null,
            code: "00",
          }));
          const window = { from: DAY, to: DAY + 100 };
          const seenCredits: string[] = [];
          const seenDebits: string[] = [];
          let pages = 0;
          for await (const page of statementPages(statement, window, size)) {
            assert.ok(page.credits.length + page.debits.length <= size);
            seenCredits.push(...page.credits.map((c) => c.sessionId));
            seenDebits.push(...page.debits.map((d) => d.reference));
            assert.ok(++pages < 100, "the pages end");
          }
          const expected = (rows: Array<[string, number]>) =>
            rows
              .filter(([, at]) => at >= 0 && at < 100)
              .sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : x - y))
              .map(([id]) => id);
          assert.deepEqual(seenCredits, expected(credits));
          assert.deepEqual(seenDebits, expected(payouts));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("statementPages reads to the end; a cursor the bank did not make is refused", async () => {
    const store = storeOf([credit("a", 1), credit("b", 2)], [payout("x", 3)]);
    const statement = embeddedStatement(store, (record) => ({
      reference: record.reference,
      status: "pending",
      reason: null,
      sessionId: null,
      code: "09",
    }));
    const read: number[] = [];
    for await (const page of statementPages(statement, { from: DAY, to: DAY + 100 })) {
      read.push(page.credits.length + page.debits.length);
    }
    assert.deepEqual(read, [3]);
    await assert.rejects(statement.statementPage({ from: DAY, to: DAY + 100 }, "not-a-cursor"), /cursor/);
    assert.equal(decodeCursor(encodeCursor({ kind: "credit", time: 5, id: "a" }))?.kind, "credit");
    assert.equal(decodeCursor(Buffer.from('{"kind":"debit","time":5}').toString("base64url")), undefined);
  });
});
