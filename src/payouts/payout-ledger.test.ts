import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PayoutStatus } from "../core/api-types.js";
import { EVERY_LEDGER_ACCOUNT_KIND, ledgerAccountId } from "../ledger/kinds.js";
import type { Heads } from "../ledger/ledger-port.js";
import type { PayoutRecord } from "../ledger/ledger-records.js";
import { GENESIS_HASH } from "../ledger/posting.js";
import { holdPosting, movePosting, postingTime } from "./payout-ledger.js";

// What a payout's posting says before the ledger's port writes it: the phases in order, each
// chained onto the heads the one before left, and each phase's event with the payout it leaves.

const BUSINESS = "biz_1";
const AT = "2026-01-02T03:04:05.000Z";

const freshHeads = (available: number): Heads =>
  new Map(
    EVERY_LEDGER_ACCOUNT_KIND.map((kind) => [
      kind,
      {
        id: ledgerAccountId(BUSINESS, kind),
        balance: kind === "available" ? available : 0,
        entryCount: 0,
        lastHash: GENESIS_HASH,
      },
    ]),
  );

const SESSION = "999999261207221509482713650912";

const payout = (status: PayoutStatus, extra: Partial<PayoutRecord> = {}): PayoutRecord => ({
  id: "po_1",
  business_id: BUSINESS,
  reference: "ref-1",
  amount: 10_000,
  fee: 50,
  vat: 0,
  stamp_duty: 0,
  currency: "NGN",
  bank_code: "058",
  bank_name: "GTBank",
  account_number: "0123456789",
  account_name: "ADA OBI",
  narration: "Payout",
  fingerprint: "f",
  status,
  failure_reason: null,
  refund_of: null,
  created_at: AT,
  updated_at: AT,
  submitted_at: null,
  checks: 0,
  next_check_at: AT,
  settlement_id: null,
  session_id: null,
  nip_codes: null,
  attention_at: null,
  ...extra,
});

const eventsOf = (posting: { events: readonly { row: { type: string; data: string } }[] }) =>
  posting.events.map((event) => ({
    type: event.row.type,
    status: (JSON.parse(event.row.data) as { status: string }).status,
  }));

describe("a payout's posting", () => {
  test("made: its hold alone, no event, and a settlement's row when it is one", () => {
    const heads = freshHeads(20_000);
    const settlement = {
      id: "stl_1",
      business_id: BUSINESS,
      payout_id: "po_1",
      trigger: "manual" as const,
      period: null,
      covered_after: 0,
      covered_through: 0,
      transaction_count: 0,
      first_recorded_at: null,
      last_recorded_at: null,
      created_at: AT,
    };
    const posting = holdPosting(payout("pending"), heads, AT, settlement);
    assert.deepEqual(posting.payout, { made: payout("pending") });
    assert.deepEqual(
      posting.phases.map((phase) => phase.phase),
      ["hold"],
    );
    assert.equal(posting.events.length, 0);
    assert.equal(posting.settlement, settlement);
    assert.equal(holdPosting(payout("pending"), freshHeads(20_000), AT, undefined).settlement, undefined);
    const [hold] = posting.phases;
    assert.equal(
      hold?.entries.reduce((sum, entry) => sum + entry.amount, 0),
      0,
    );
    assert.equal(heads.get("available")?.balance, 20_000 - 10_050);
  });

  test("moved through two phases: each chained on the last, each with its event, the payout at the end", () => {
    const heads = freshHeads(20_000);
    const held = holdPosting(payout("pending"), heads, AT, undefined);
    const posting = movePosting(
      payout("pending"),
      ["post", "reversal"],
      { reason: "returned by the bank", sessionId: SESSION, code: "00" },
      heads,
      AT,
    );
    assert.deepEqual(
      posting.phases.map((phase) => phase.phase),
      ["post", "reversal"],
    );
    assert.equal(posting.payout.from, "pending");
    assert.equal(posting.payout.moved.status, "reversed");
    assert.equal(posting.payout.moved.failure_reason, "returned by the bank");
    assert.equal(posting.payout.moved.next_check_at, null);
    // The bank's session id is kept on the payout; its code joins those seen.
    assert.equal(posting.payout.moved.session_id, SESSION);
    assert.equal(posting.payout.moved.nip_codes, "00");
    assert.deepEqual(eventsOf(posting), [
      { type: "payout.successful", status: "successful" },
      { type: "payout.reversed", status: "reversed" },
    ]);
    // Every entry follows the one before it on its ledger account, across the phases.
    const last = new Map<string, { sequence: number; hash: string }>();
    for (const phase of [...held.phases, ...posting.phases]) {
      for (const entry of phase.entries) {
        const before = last.get(entry.ledgerAccountId);
        assert.equal(entry.sequence, (before?.sequence ?? 0) + 1);
        assert.equal(entry.previousHash, before?.hash ?? GENESIS_HASH);
        last.set(entry.ledgerAccountId, { sequence: entry.sequence, hash: entry.hash });
      }
      for (const head of phase.heads) assert.equal(last.get(head.id)?.hash, head.lastHash);
    }
    // The amount came back; the fee was earned.
    assert.equal(heads.get("available")?.balance, 20_000 - 50);
  });

  test("a refund's end is refund.*, its reason kept on a void", () => {
    const heads = freshHeads(20_000);
    holdPosting(payout("pending"), heads, AT, undefined);
    const refund = payout("pending", { refund_of: "txn_1" });
    const posting = movePosting(
      refund,
      ["void"],
      { reason: "account closed", sessionId: null, code: "07" },
      heads,
      AT,
    );
    assert.deepEqual(eventsOf(posting), [{ type: "refund.failed", status: "failed" }]);
    assert.equal(posting.payout.moved.failure_reason, "account closed");
    assert.equal(heads.get("available")?.balance, 20_000);
  });

  test("carries now, or the newest entry's time when a clock ahead wrote later: never back within a business", () => {
    assert.equal(postingTime(undefined, AT), AT);
    assert.equal(postingTime("2026-01-02T03:04:04.000Z", AT), AT);
    assert.equal(postingTime("2026-01-02T03:04:06.000Z", AT), "2026-01-02T03:04:06.000Z");
  });
});
