import { sql } from "kysely";
import type { LedgerCheckpoint } from "../core/ledger-checkpoint.js";
import type { Storage } from "./database.js";
import type { Executor } from "./executor.js";
import type { LedgerCheckpointsTable } from "./schema-ledger.js";
import { writeTransaction } from "./transactions.js";

// What a checkpoint run reads and writes (src/ledger/checkpoint.ts decides and signs; verify's
// reads of checkpoints are in ledger-audit.ts).

/** A ledger account's head, confirmed by the entry it points at. */
export interface CheckpointableHead {
  ledgerAccountId: string;
  businessId: string;
  entryCount: number;
  headHash: string;
}

/**
 * Up to `limit` ledger accounts after `afterId` (id order) whose head has moved past their
 * newest checkpoint. A head is taken only when the entry at its count carries its hash: a head
 * that disagrees with its chain is verify's to report, never a checkpoint's to vouch for. A
 * head below its newest checkpoint (a vanished tail) is not checkpointed either.
 */
export async function headsToCheckpoint(
  db: Executor,
  afterId: string,
  limit: number,
): Promise<CheckpointableHead[]> {
  const rows = await db
    .selectFrom("ledger_accounts as a")
    .innerJoin("ledger_entries as e", (join) =>
      join
        .onRef("e.ledger_account_id", "=", "a.id")
        .onRef("e.sequence", "=", "a.entry_count")
        .onRef("e.hash", "=", "a.last_hash"),
    )
    .select(["a.id", "a.business_id", "a.entry_count", "a.last_hash"])
    .where("a.id", ">", afterId)
    .where("a.entry_count", ">", (eb) =>
      eb
        .selectFrom("ledger_checkpoints as c")
        .select(sql<number>`coalesce(max(c.entry_count), 0)`.as("newest"))
        .whereRef("c.ledger_account_id", "=", "a.id"),
    )
    .orderBy("a.id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ledgerAccountId: row.id,
    businessId: row.business_id,
    entryCount: Number(row.entry_count),
    headHash: row.last_hash,
  }));
}

/** A checkpoint's row as the domain reads it. */
export const checkpointOf = (row: LedgerCheckpointsTable): LedgerCheckpoint => ({
  ledgerAccountId: row.ledger_account_id,
  entryCount: Number(row.entry_count),
  headHash: row.head_hash,
  businessId: row.business_id,
  runId: row.run_id,
  createdAt: row.created_at,
  mac: row.mac,
});

/**
 * Records checkpoints, in one transaction; a position another process checkpointed first is
 * kept as it is (the primary key is the position). Returns those this call inserted.
 */
export async function insertCheckpoints(
  storage: Storage,
  checkpoints: readonly LedgerCheckpoint[],
): Promise<LedgerCheckpoint[]> {
  if (checkpoints.length === 0) return [];
  const rows = await writeTransaction(storage, (trx) =>
    trx
      .insertInto("ledger_checkpoints")
      .values(
        checkpoints.map((checkpoint) => ({
          ledger_account_id: checkpoint.ledgerAccountId,
          entry_count: checkpoint.entryCount,
          head_hash: checkpoint.headHash,
          business_id: checkpoint.businessId,
          run_id: checkpoint.runId,
          created_at: checkpoint.createdAt,
          mac: checkpoint.mac,
        })),
      )
      .onConflict((oc) => oc.columns(["ledger_account_id", "entry_count"]).doNothing())
      .returningAll()
      .execute(),
  );
  return rows.map(checkpointOf);
}
