import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  AMOUNT_OUT_STATUSES,
  holdLegs,
  ledgerEffect,
  PHASES_OF_STATUS,
  phaseEntries,
  postHoldLegs,
  reversalLegs,
  voidHoldLegs,
} from "./holds.js";
import { EVERY_LEDGER_ACCOUNT_KIND, type LedgerAccountKind, ledgerAccountId } from "./kinds.js";
import { type AccountHead, GENESIS_HASH, type Leg, transferLegs } from "./posting.js";

/** A business's balances, moved by postings as the database moves the heads. */
class Books {
  readonly balance = new Map<LedgerAccountKind, number>();
  post(legs: Leg[]): void {
    assert.equal(
      legs.reduce((sum, leg) => sum + leg.amount, 0),
      0,
      "every posting sums to zero",
    );
    for (const leg of legs) this.balance.set(leg.kind, this.of(leg.kind) + leg.amount);
  }
  of(kind: LedgerAccountKind): number {
    return this.balance.get(kind) ?? 0;
  }
}

type Step =
  | { op: "receive"; amount: number; fee: number }
  | { op: "payout"; amount: number; fee: number }
  | { op: "settle"; which: number; paid: boolean }
  | { op: "reverse"; which: number };

const kobo = fc.integer({ min: 1, max: 5_000_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  kobo.chain((amount) =>
    fc.record({
      op: fc.constant("receive" as const),
      amount: fc.constant(amount),
      fee: fc.integer({ min: 0, max: amount }),
    }),
  ),
  fc.record({ op: fc.constant("payout" as const), amount: kobo, fee: fc.integer({ min: 0, max: 5_000 }) }),
  fc.record({ op: fc.constant("settle" as const), which: fc.nat(), paid: fc.boolean() }),
  fc.record({ op: fc.constant("reverse" as const), which: fc.nat() }),
);

describe("two-phase payouts on the ledger", () => {
  test("the four postings move exactly the amount and the fee", () => {
    assert.deepEqual(holdLegs(10_000, 1_000), [
      { kind: "available", amount: -11_000 },
      { kind: "pending", amount: 11_000 },
    ]);
    assert.deepEqual(postHoldLegs(10_000, 1_000), [
      { kind: "pending", amount: -11_000 },
      { kind: "paid_out", amount: 10_000 },
      { kind: "revenue", amount: 1_000 },
    ]);
    assert.deepEqual(postHoldLegs(10_000, 0), [
      { kind: "pending", amount: -10_000 },
      { kind: "paid_out", amount: 10_000 },
    ]);
    assert.deepEqual(voidHoldLegs(10_000, 1_000), [
      { kind: "pending", amount: -11_000 },
      { kind: "available", amount: 11_000 },
    ]);
    assert.deepEqual(reversalLegs(10_000), [
      { kind: "paid_out", amount: -10_000 },
      { kind: "available", amount: 10_000 },
    ]);
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1])
      assert.throws(() => holdLegs(bad, 0), RangeError);
    assert.throws(() => holdLegs(100, -1), RangeError);
    assert.throws(() => postHoldLegs(Number.MAX_SAFE_INTEGER, 1), RangeError);
  });

  test("whatever happens, money is conserved, nothing goes below zero, and each hold ends once", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const books = new Books();
        const open: Array<{ amount: number; fee: number }> = [];
        const paid: number[] = [];
        let received = 0;
        let paidOut = 0;
        let ended = 0;
        let holds = 0;
        for (const s of steps) {
          if (s.op === "receive") {
            books.post(transferLegs(s.amount, s.fee));
            received += s.amount;
          } else if (s.op === "payout") {
            // Refused, with nothing held, when available does not cover amount and fee.
            if (books.of("available") < s.amount + s.fee) continue;
            books.post(holdLegs(s.amount, s.fee));
            open.push({ amount: s.amount, fee: s.fee });
            holds++;
          } else if (s.op === "settle") {
            if (open.length === 0) continue;
            const [hold] = open.splice(s.which % open.length, 1);
            assert.ok(hold);
            books.post(s.paid ? postHoldLegs(hold.amount, hold.fee) : voidHoldLegs(hold.amount, hold.fee));
            if (s.paid) {
              paid.push(hold.amount);
              paidOut += hold.amount;
            }
            ended++;
          } else {
            if (paid.length === 0) continue;
            const [amount] = paid.splice(s.which % paid.length, 1);
            assert.ok(amount !== undefined);
            books.post(reversalLegs(amount));
            paidOut -= amount;
          }
          assert.ok(books.of("available") >= 0, "available never negative");
          assert.equal(
            books.of("pending"),
            open.reduce((sum, hold) => sum + hold.amount + hold.fee, 0),
            "pending is exactly the open holds",
          );
          assert.equal(books.of("paid_out"), paidOut, "paid_out is what the bank paid and kept");
          assert.equal(-books.of("settlement"), received, "minus settlement is what came in");
          assert.equal(
            books.of("available") + books.of("pending") + books.of("paid_out") + books.of("revenue"),
            received,
            "what came in = available + pending + paid out + fees",
          );
          assert.equal(
            [...books.balance.values()].reduce((sum, balance) => sum + balance, 0),
            0,
            "the books balance",
          );
        }
        assert.equal(ended + open.length, holds, "every hold is open or ended, once");
      }),
      { numRuns: 500 },
    );
  });
});

describe("what the ledger shows of each payout status (PHASES_OF_STATUS)", () => {
  test("each status's effect is its phases' legs: held, paid out, returned, or returned but the fee", () => {
    const effect = (status: keyof typeof PHASES_OF_STATUS) =>
      Object.fromEntries(ledgerEffect(status, 1_000, 50));
    assert.deepEqual(effect("pending"), { available: -1_050, pending: 1_050 });
    assert.deepEqual(effect("successful"), { available: -1_050, pending: 0, paid_out: 1_000, revenue: 50 });
    assert.deepEqual(effect("failed"), { available: 0, pending: 0 });
    assert.deepEqual(effect("reversed"), { available: -50, pending: 0, paid_out: 0, revenue: 50 });
  });

  test("sums of payouts have the sum of their effects (verify reads sums by status)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(PHASES_OF_STATUS) as Array<keyof typeof PHASES_OF_STATUS>)),
        fc.array(
          fc.record({ amount: fc.integer({ min: 1, max: 1e9 }), fee: fc.integer({ min: 0, max: 1e6 }) }),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        (status, payouts) => {
          const summed = new Map<LedgerAccountKind, number>();
          for (const { amount, fee } of payouts) {
            for (const [kind, kobo] of ledgerEffect(status, amount, fee))
              summed.set(kind, (summed.get(kind) ?? 0) + kobo);
          }
          const total = ledgerEffect(
            status,
            payouts.reduce((sum, p) => sum + p.amount, 0),
            payouts.reduce((sum, p) => sum + p.fee, 0),
          );
          for (const [kind, kobo] of summed) assert.equal(total.get(kind) ?? 0, kobo, kind);
        },
      ),
    );
  });

  test("a payout counts toward limits and against its payment while its amount is out: pending or successful", () => {
    assert.deepEqual([...AMOUNT_OUT_STATUSES].sort(), ["pending", "successful"]);
  });
});

describe("a phase's entries", () => {
  const heads = () =>
    new Map<LedgerAccountKind, AccountHead>(
      EVERY_LEDGER_ACCOUNT_KIND.map((kind) => [
        kind,
        {
          id: ledgerAccountId("biz", kind),
          balance: kind === "available" ? 20_000 : 0,
          entryCount: 0,
          lastHash: GENESIS_HASH,
        },
      ]),
    );

  test("a post: its legs' entries under the id, chained, and only the heads they moved, after them", () => {
    const on = heads();
    phaseEntries("hold", 10_000, 50, on, "pst_1", "2026-01-02T03:04:05.000Z");
    const { entries, moved } = phaseEntries("post", 10_000, 50, on, "pst_2", "2026-01-02T03:04:05.000Z");
    assert.deepEqual(
      entries.map((entry) => [entry.ledgerAccountId, entry.amount, entry.sequence, entry.transactionId]),
      [
        ["biz:pending", -10_050, 2, "pst_2"],
        ["biz:paid_out", 10_000, 1, "pst_2"],
        ["biz:revenue", 50, 1, "pst_2"],
      ],
    );
    assert.deepEqual(
      moved.map((head) => [head.id, head.balance]),
      [
        ["biz:paid_out", 10_000],
        ["biz:pending", 0],
        ["biz:revenue", 50],
      ],
    );
    assert.equal(on.get("available")?.balance, 20_000 - 10_050);
    for (const head of moved) assert.equal(head, on.get(head.id.slice(4) as LedgerAccountKind));
  });
});
