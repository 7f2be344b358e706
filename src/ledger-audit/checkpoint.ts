import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../businesses/secret-box.js";
import { loadServiceKey, ServiceKey, settingContext } from "../businesses/service-keys.js";
import type { LedgerCheckpoint } from "../core/ledger-checkpoint.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { headsToCheckpoint, insertCheckpoints } from "../storage/ledger-checkpoints.js";
import { getSetting } from "../storage/settings-repository.js";

// Ledger checkpoints: each ledger account's entry count and head hash at a moment, under a MAC.
// The hash chain proves the entries up to a head, not that the head has not moved back: with
// checkpoints, `vas ledger verify` finds a tail removed after a checkpoint (docs/ledger.md says
// what they cannot find).

/**
 * The settings row of the checkpoints' MAC key: a service key, random and sealed by the master
 * key, so rotating the master key re-seals it and every checkpoint stays verifiable. Someone who
 * can write the database but lacks the master key can neither read it nor seal another in its
 * place.
 */
export const CHECKPOINT_KEY_SETTING = ServiceKey.ledgerCheckpoint;

/** The checkpoints' MAC key, created on first use (the first process to store one wins). */
export function loadCheckpointKey(db: Executor, box: SecretBox): Promise<Buffer> {
  return loadServiceKey(db, box, ServiceKey.ledgerCheckpoint);
}

/** The MAC key if one was ever created; verify only reads (it never makes a key to check with). */
export async function readCheckpointKey(db: Executor, box: SecretBox): Promise<Buffer | undefined> {
  const stored = await getSetting(db, CHECKPOINT_KEY_SETTING);
  if (stored === undefined) return undefined;
  try {
    return Buffer.from(box.open(stored, settingContext(CHECKPOINT_KEY_SETTING)), "base64");
  } catch (error) {
    throw new Error(`the ledger checkpoint key (setting ${CHECKPOINT_KEY_SETTING}) cannot be opened`, {
      cause: error,
    });
  }
}

type Signed = Omit<LedgerCheckpoint, "mac">;

/**
 * HMAC-SHA256 (hex) over a checkpoint's fields, one per line behind a version tag. No field can
 * hold a newline (ids, a hex hash, an ISO time, a count), so the message is unambiguous.
 */
export function checkpointMac(key: Buffer, checkpoint: Signed): string {
  return createHmac("sha256", key)
    .update(
      [
        "vas-ledger-checkpoint-v1",
        checkpoint.runId,
        checkpoint.businessId,
        checkpoint.ledgerAccountId,
        checkpoint.entryCount,
        checkpoint.headHash,
        checkpoint.createdAt,
      ].join("\n"),
    )
    .digest("hex");
}

/** Whether the checkpoint's stored MAC is the one its fields and the key give (constant-time). */
export function checkpointMacValid(key: Buffer, checkpoint: LedgerCheckpoint): boolean {
  const expected = Buffer.from(checkpointMac(key, checkpoint), "hex");
  const stored = Buffer.from(checkpoint.mac, "hex");
  return stored.length === expected.length && timingSafeEqual(stored, expected);
}

/**
 * What is wrong with a checkpoint against its account's chain, or undefined when nothing is:
 * `hashAt` is the hash of the chain's entry at the checkpoint's position (undefined when there
 * is none), `chainEnd` the sequence of its newest entry. Without a key, only the position is
 * checked (and verify says the MACs went unchecked).
 */
export function checkpointProblem(
  key: Buffer | undefined,
  checkpoint: LedgerCheckpoint,
  hashAt: string | undefined,
  chainEnd: number,
): string | undefined {
  // A forged checkpoint says nothing about the chain: report the forgery alone.
  if (key && !checkpointMacValid(key, checkpoint))
    return "its MAC does not verify: the checkpoint was forged or altered";
  const position = checkpoint.entryCount;
  if (hashAt === undefined)
    return `the chain has no entry #${position} (it ends at #${chainEnd}): entries were removed after this checkpoint`;
  if (hashAt !== checkpoint.headHash)
    return `entry #${position} has hash ${hashAt}, the checkpoint recorded ${checkpoint.headHash}: the chain was rewritten after it`;
  return undefined;
}

/** One ledger account's head as a run recorded it. */
export interface Checkpoint {
  ledgerAccountId: string;
  businessId: string;
  entryCount: number;
  headHash: string;
}

/** What one checkpoint run recorded (nothing when no head moved since the last run). */
export interface CheckpointRun {
  runId: string;
  recordedAt: string;
  checkpoints: Checkpoint[];
}

const PAGE = 500;

/**
 * Records a checkpoint of every ledger account whose head moved past its newest checkpoint.
 * Each page of accounts is one transaction; every head is a fact about its own chain, so a run
 * needs no snapshot across accounts, and runs racing in several processes record each position
 * once.
 */
export async function recordCheckpoint(
  storage: Storage,
  box: SecretBox,
  now: () => number = Date.now,
): Promise<CheckpointRun> {
  const key = await loadCheckpointKey(storage.db, box);
  const run: CheckpointRun = {
    runId: randomUUID(),
    recordedAt: new Date(now()).toISOString(),
    checkpoints: [],
  };
  let after = "";
  for (;;) {
    const heads = await headsToCheckpoint(storage.db, after, PAGE);
    const signed = heads.map((head) => {
      const fields: Signed = { ...head, runId: run.runId, createdAt: run.recordedAt };
      return { ...fields, mac: checkpointMac(key, fields) };
    });
    for (const recorded of await insertCheckpoints(storage, signed)) {
      const { ledgerAccountId, businessId, entryCount, headHash } = recorded;
      run.checkpoints.push({ ledgerAccountId, businessId, entryCount, headHash });
    }
    const last = heads.at(-1);
    if (!last || heads.length < PAGE) break;
    after = last.ledgerAccountId;
  }
  run.checkpoints.sort((a, b) => (a.ledgerAccountId < b.ledgerAccountId ? -1 : 1));
  return run;
}
