import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { statementPages } from "../providers/bank-statement.js";
import { embeddedStatement } from "../providers/virtual-bank-statement.js";
import { BankDatabase } from "./bank-database.js";
import { bankStore } from "./bank-store.js";

// The Virtual Bank server's statement over its own SQLite file (issue 27): its SQL pages in
// (time, id) order across ties, leaves out what the service refused (sent back) and what the
// sandbox forgot, and puts transfers out after the credits.

test("the bank server's statement pages its file in order, without refused or forgotten transfers", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-bank-store-"));
  const db = new BankDatabase(path.join(dir, "bank.sqlite"));
  try {
    const base = Date.parse("2026-03-10T10:00:00.000Z");
    // Seven credits, three at one instant (ordered by their order numbers), one before the window.
    const credits: Array<[string, number]> = [
      ["C5", 0],
      ["C1", 0],
      ["C3", 0],
      ["C2", 1],
      ["C4", 2],
      ["C6", 3],
      ["BEFORE", -1],
    ];
    for (const [orderNo, offset] of credits) {
      db.addTransfer({
        orderNo,
        accountNumber: "0000000000",
        amount: 100,
        currency: "NGN",
        payerName: "P",
        payerAccountNo: "0123456789",
        payerBankName: "B",
        payerBankCode: null,
        narration: "",
        paidTime: base + offset,
      });
    }
    // The service refused C2: the bank sent it back.
    db.recordAttempt("C2", { status: "refused", nextAttemptAt: 0, error: "422" });
    let forgotten: string[] = ["C4", "P2"];
    const store = bankStore(db, () => forgotten);
    for (const [reference, minute] of [
      ["P3", 5],
      ["P1", 5],
      ["P2", 6],
    ] as const) {
      await store.recordPayoutOnce({
        reference,
        bankCode: "058",
        accountNumber: "0123456789",
        accountName: "P",
        amount: 100,
        outcome: "successful",
        sessionId: null,
        acceptedAt: new Date(base + minute * 60_000).toISOString(),
        settlesAt: new Date(base + minute * 60_000).toISOString(),
        reversesAt: null,
        notified: "pending",
      });
    }
    const statement = embeddedStatement(store, (record) => ({
      reference: record.reference,
      status: "successful",
      reason: null,
      sessionId: null,
      code: "00",
    }));
    const window = { from: base, to: base + 60 * 60_000 };
    for (const size of [1, 2, 3, 500]) {
      const read: string[] = [];
      for await (const page of statementPages(statement, window, size)) {
        assert.ok(page.credits.length + page.debits.length <= size);
        read.push(...page.credits.map((c) => c.sessionId), ...page.debits.map((d) => d.reference));
      }
      assert.deepEqual(read, ["C1", "C3", "C5", "C6", "P1", "P3"], `pages of ${size}`);
    }
    assert.equal((await statement.findCredit("C6"))?.paidAt, new Date(base + 3).toISOString());
    assert.equal(await statement.findCredit("C2"), undefined, "sent back");
    assert.equal(await statement.findCredit("C4"), undefined, "forgotten");
    forgotten = [];
    assert.equal((await statement.findCredit("C4"))?.amount, 100, "remembered again");
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
