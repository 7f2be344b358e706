import assert from "node:assert/strict";
import type { Kysely } from "kysely";
import { verifyLedger } from "../../src/ledger-audit/verify.js";
import type { Database } from "../../src/storage/schema.js";

/**
 * The ledger's invariants, read back from the database by what `vas ledger verify` runs: every
 * transaction's entries sum to zero; every ledger account's balance, entry count and chain
 * recompute from its entries; each business's accounts agree with its transactions; each
 * account's totals agree with its transactions.
 */
export async function assertLedgerInvariants(db: Kysely<Database>): Promise<void> {
  const report = await verifyLedger(db);
  assert.deepEqual(report.drifts, [], "the ledger verifies");
  assert.equal(report.moreDrifts, 0);
}
