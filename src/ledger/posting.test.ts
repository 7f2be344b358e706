import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { NO_CHARGES } from "./charges.js";
import type { LedgerAccountKind } from "./kinds.js";
import {
  type AccountHead,
  appendEntry,
  assertBalanced,
  entryHash,
  firstBalanceBeyondLimit,
  GENESIS_HASH,
  MAX_BALANCE_KOBO,
  postLegs,
  postTransfer,
  staysWithinBalanceLimit,
  transferLegs,
} from "./posting.js";

test("a transfer without a fee: settlement debited, available credited", () => {
  assert.deepEqual(transferLegs(150_000, 0), [
    { kind: "settlement", amount: -150_000 },
    { kind: "available", amount: 150_000 },
  ]);
});

test("a transfer with a fee moves the fee from available to revenue", () => {
  assert.deepEqual(transferLegs(150_000, 2_250), [
    { kind: "settlement", amount: -150_000 },
    { kind: "available", amount: 150_000 },
    { kind: "available", amount: -2_250 },
    { kind: "revenue", amount: 2_250 },
  ]);
});

test("a charged transfer credits available the net, and each of fee, VAT and stamp duty its own account", () => {
  assert.deepEqual(transferLegs(1_500_000, 22_500, { vat: 1_688, stampDuty: 5_000 }), [
    { kind: "settlement", amount: -1_500_000 },
    { kind: "available", amount: 1_470_812 },
    { kind: "revenue", amount: 22_500 },
    { kind: "vat_payable", amount: 1_688 },
    { kind: "stamp_duty_payable", amount: 5_000 },
  ]);
  assert.deepEqual(transferLegs(10_000, 0, { vat: 0, stampDuty: 50 }), [
    { kind: "settlement", amount: -10_000 },
    { kind: "available", amount: 9_950 },
    { kind: "stamp_duty_payable", amount: 50 },
  ]);
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 40 }),
      fc.nat(1_000),
      fc.nat(1_000),
      fc.nat(1_000),
      (amount, fee, vat, stampDuty) => {
        fc.pre(fee + vat + stampDuty <= amount);
        const legs = transferLegs(amount, fee, { vat, stampDuty });
        assert.equal(
          legs.reduce((sum, leg) => sum + leg.amount, 0),
          0,
        );
        const on = (kind: string) =>
          legs.filter((leg) => leg.kind === kind).reduce((t, l) => t + l.amount, 0);
        assert.equal(on("available"), amount - fee - vat - stampDuty);
        assert.deepEqual([on("revenue"), on("vat_payable"), on("stamp_duty_payable")], [fee, vat, stampDuty]);
      },
    ),
  );
  assert.throws(() => transferLegs(100, 90, { vat: 7, stampDuty: 5 }), RangeError, "more than the credit");
});

test("every posting sums to zero; impossible amounts and fees are refused", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 10_000_000_000 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (amount, share) => {
        const fee = Math.floor(amount * share);
        const legs = transferLegs(amount, fee);
        assert.equal(
          legs.reduce((sum, leg) => sum + leg.amount, 0),
          0,
        );
      },
    ),
  );
  assert.throws(() => transferLegs(0, 0), RangeError);
  assert.throws(() => transferLegs(100, 101), RangeError);
  assert.throws(() => transferLegs(100.5, 0), RangeError);
  assert.throws(() => transferLegs(100, -1), RangeError);
  assert.throws(() => assertBalanced([{ amount: 1 }, { amount: -2 }]), /unbalanced/);
});

test("the entry hash is SHA-256 over the previous hash and the fields, one per line (known vector)", () => {
  // printf '%s\n%s\n%s\n%s\n%s\n%s\n%s' <64 zeros> biz-1:available 1 txn_1 150000 150000 \
  //   2026-01-01T00:00:00.000Z | openssl dgst -sha256
  const hash = entryHash(GENESIS_HASH, {
    ledgerAccountId: "biz-1:available",
    sequence: 1,
    transactionId: "txn_1",
    amount: 150_000,
    balanceAfter: 150_000,
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  assert.equal(hash, "2403279971095da9eab6c3da9fc7c33ee25e5a69700dabd088b94235d59f8aff");
});

test("appending chains entries: sequence, balance after and hash follow from the head", () => {
  let head: AccountHead = { id: "b:available", balance: 0, entryCount: 0, lastHash: GENESIS_HASH };
  const first = appendEntry(head, "txn_1", 1_000, "2026-01-01T00:00:00.000Z");
  assert.equal(first.entry.sequence, 1);
  assert.equal(first.entry.balanceAfter, 1_000);
  assert.equal(first.entry.previousHash, GENESIS_HASH);
  head = first.head;
  const second = appendEntry(head, "txn_2", -15, "2026-01-01T00:00:01.000Z");
  assert.equal(second.entry.sequence, 2);
  assert.equal(second.entry.balanceAfter, 985);
  assert.equal(second.entry.previousHash, first.entry.hash);
  assert.equal(second.head.lastHash, second.entry.hash);
  // Change any field of the first entry and the second's hash no longer follows from it.
  const tampered = entryHash(GENESIS_HASH, { ...first.entry, amount: 1_001 });
  assert.notEqual(tampered, first.entry.hash);
});

/** A business's heads with these balances, each account holding `entries` entries. */
const heads = (available: number, settlement: number, revenue = 0, entries = 1) =>
  new Map<LedgerAccountKind, AccountHead>(
    (
      [
        ["available", available],
        ["revenue", revenue],
        ["settlement", settlement],
      ] as const
    ).map(([kind, balance]) => [
      kind,
      { id: `b:${kind}`, balance, entryCount: entries, lastHash: GENESIS_HASH },
    ]),
  );

describe("balances near 2^53", () => {
  const MAX = MAX_BALANCE_KOBO;

  test("the limit is 2^53 - 1 kobo, either sign, checked exactly where doubles would round", () => {
    assert.equal(MAX, 2 ** 53 - 1);
    assert.equal(staysWithinBalanceLimit(MAX - 1, 1), true);
    assert.equal(staysWithinBalanceLimit(MAX, 1), false);
    assert.equal(staysWithinBalanceLimit(MAX - 1, 2), false);
    assert.equal(staysWithinBalanceLimit(-MAX, -1), false);
    assert.equal(staysWithinBalanceLimit(-MAX, 1), true);
    // 2^53 + 1 is no double: in floating point MAX + 2 "equals" MAX + 1.
    assert.equal(staysWithinBalanceLimit(MAX, MAX), false);
    assert.equal(staysWithinBalanceLimit(MAX, -MAX), true);
  });

  test("a posting that reaches the limit exactly fits; one kobo more names the account", () => {
    assert.equal(firstBalanceBeyondLimit(heads(MAX - 500, -(MAX - 500)), transferLegs(500, 0)), undefined);
    assert.equal(firstBalanceBeyondLimit(heads(MAX - 500, -(MAX - 500)), transferLegs(501, 0)), "settlement");
    // The settlement account has room, the available balance has not (after payouts, say).
    assert.equal(firstBalanceBeyondLimit(heads(MAX - 10, -5), transferLegs(11, 0)), "available");
    assert.equal(firstBalanceBeyondLimit(heads(0, -5, MAX - 1), transferLegs(100, 2)), "revenue");
    // Absent accounts (a business's first transfer) start at zero.
    assert.equal(firstBalanceBeyondLimit(new Map(), transferLegs(MAX, MAX)), undefined);
  });

  test("the balance between two legs counts: the credit before the fee is taken back", () => {
    // Ends at MAX - 5, but the entry of the credit would store MAX + 10.
    assert.equal(firstBalanceBeyondLimit(heads(MAX - 10, -10), transferLegs(20, 15)), "available");
    assert.equal(firstBalanceBeyondLimit(heads(MAX - 20, -20), transferLegs(20, 15)), undefined);
  });

  test("whatever fits posts exactly; appending past the limit still throws as a last defence", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX }),
        fc.integer({ min: 1, max: MAX }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (received, amount, share) => {
          const fee = Math.floor(amount * share);
          const start = heads(received, -received);
          const legs = transferLegs(amount, fee);
          const beyond = firstBalanceBeyondLimit(start, legs);
          if (beyond !== undefined) {
            assert.throws(() => postLegs(start, "txn", legs, "2026-01-01T00:00:00.000Z"), RangeError);
            return;
          }
          const entries = postLegs(start, "txn", legs, "2026-01-01T00:00:00.000Z");
          for (const entry of entries) assert.ok(Number.isSafeInteger(entry.balanceAfter));
          assert.equal(BigInt(start.get("settlement")?.balance ?? 0), -BigInt(received) - BigInt(amount));
        },
      ),
    );
    const head: AccountHead = { id: "b:available", balance: MAX, entryCount: 1, lastHash: GENESIS_HASH };
    assert.throws(() => appendEntry(head, "txn", 1, "2026-01-01T00:00:00.000Z"), RangeError);
  });
});

describe("postTransfer: a transfer's whole posting in one call", () => {
  const fresh = (available: number, settlement: number) => heads(available, settlement, 0, 3);
  const transfer = {
    transactionId: "txn_1",
    amount: 100_000,
    schedule: { basisPoints: 150, capKobo: null },
    charges: NO_CHARGES,
    createdAt: "2026-12-07T10:00:00.000Z",
    received: 0,
  };

  test("the fee by the schedule, the legs chained onto the heads, and the available balance after", () => {
    const heads = fresh(500, -500);
    const posted = postTransfer(heads, transfer);
    assert.ok(!("beyondLimit" in posted));
    assert.equal(posted.fee, 1_500);
    assert.deepEqual(
      posted.entries.map((entry) => [
        entry.ledgerAccountId,
        entry.amount,
        entry.balanceAfter,
        entry.sequence,
      ]),
      [
        ["b:settlement", -100_000, -100_500, 4],
        ["b:available", 100_000, 100_500, 4],
        ["b:available", -1_500, 99_000, 5],
        ["b:revenue", 1_500, 1_500, 4],
      ],
    );
    assert.equal(posted.available, 99_000);
    assert.equal(heads.get("available")?.balance, 99_000, "the heads moved along");
    assert.equal(heads.get("available")?.lastHash, posted.entries[2]?.hash);
  });

  test("a ledger account carried past the limit is answered, and nothing is posted", () => {
    const heads = fresh(MAX_BALANCE_KOBO - 10, -10);
    const before = structuredClone([...heads]);
    assert.deepEqual(postTransfer(heads, { ...transfer, amount: 11 }), { beyondLimit: "available" });
    assert.deepEqual([...heads], before);
  });

  test("the account's total received carried past the limit is answered as received", () => {
    const heads = fresh(0, 0);
    const before = structuredClone([...heads]);
    assert.deepEqual(postTransfer(heads, { ...transfer, amount: 11, received: MAX_BALANCE_KOBO - 10 }), {
      beyondLimit: "received",
    });
    assert.deepEqual([...heads], before);
  });
});
