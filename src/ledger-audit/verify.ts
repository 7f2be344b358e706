import { type LedgerAccountKind, NON_NEGATIVE_KINDS } from "../ledger/kinds.js";
import { entryHash, GENESIS_HASH } from "../ledger/posting.js";
import { blockTotals } from "../storage/credit-block-repository.js";
import type { Executor } from "../storage/executor.js";
import { acceptedHeldTotals } from "../storage/held-credit-repository.js";
import {
  accountsWithWrongTotals,
  checkpointsOf,
  checkpointsWithoutLedgerAccount,
  entriesAfter,
  ledgerAccountsToVerify,
  miscomputedTransactions,
  transactionsWithWrongBalanceAfter,
  transactionTotals,
  unbalancedTransactions,
} from "../storage/ledger-audit.js";
import { payoutTotals } from "../storage/payout-audit.js";
import { readInSnapshot } from "../storage/snapshot.js";
import { CHECKPOINT_KEY_SETTING, checkpointProblem } from "./checkpoint.js";
import { verifyHeldCredits } from "./held-credits.js";
import { payoutEffects, verifyPayoutPostings } from "./payout-checks.js";

// `vas ledger verify`: recompute the ledger from its entries and say where anything stored
// disagrees. Every balance is recomputed from entries, every chain rehashed, every transaction
// summed; nothing stored is trusted. Every checkpoint is authenticated and found in its chain,
// so a tail removed after one shows. See docs/ledger.md.

/** One disagreement: where (an entry, a ledger account, a transaction, an account) and what. */
export interface Drift {
  where: string;
  problem: string;
}

export interface VerifyReport {
  ledgerAccounts: number;
  entries: number;
  transactions: number;
  /** Checkpoints checked (each against its MAC and its chain). */
  checkpoints: number;
  drifts: Drift[];
  /** Drifts found beyond the first MAX_DRIFTS (not listed). */
  moreDrifts: number;
}

/** How many drifts a report lists: a corrupted database must not exhaust memory. */
export const MAX_DRIFTS = 1000;
const PAGE = 2000;

class Findings {
  readonly drifts: Drift[] = [];
  more = 0;
  add(where: string, problem: string): void {
    if (this.drifts.length < MAX_DRIFTS) this.drifts.push({ where, problem });
    else this.more++;
  }
}

export interface VerifyOptions {
  businessId?: string;
  /** The checkpoints' MAC key (ledger/checkpoint.ts); without it their MACs cannot be checked. */
  checkpointKey?: Buffer;
}

/** Verifies the whole ledger, or one business's part of it. */
export function verifyLedger(db: Executor, options: VerifyOptions = {}): Promise<VerifyReport> {
  // One snapshot: a payout settling or a transfer landing while it reads is not a drift.
  return readInSnapshot(db, (snapshot) => verifyAt(snapshot, options));
}

async function verifyAt(db: Executor, options: VerifyOptions): Promise<VerifyReport> {
  const { businessId, checkpointKey } = options;
  const found = new Findings();
  const accounts = await ledgerAccountsToVerify(db, businessId);
  let entries = 0;
  let checkpoints = 0;
  const balances = new Map<string, number>();
  for (const account of accounts) {
    // Checkpoints before entries: each names an entry that already existed, so the walk after
    // finds it even while transfers land.
    const marks = await checkpointsOf(db, account.id);
    const walked = await walkChain(db, account.id, found, new Set(marks.map((m) => m.entryCount)));
    for (const mark of marks) {
      const position = mark.entryCount;
      const problem = checkpointProblem(
        checkpointKey,
        mark,
        walked.marked.get(position),
        walked.lastSequence,
      );
      if (problem) found.add(`checkpoint ${account.id}#${position}`, problem);
    }
    checkpoints += marks.length;
    entries += walked.entries;
    balances.set(account.id, walked.sum);
    const where = `ledger account ${account.id}`;
    if (Number(account.balance) !== walked.sum)
      found.add(where, `balance is ${account.balance}, its entries sum to ${walked.sum}`);
    if (Number(account.entry_count) !== walked.entries)
      found.add(where, `entry count is ${account.entry_count}, it has ${walked.entries} entries`);
    if (account.last_hash !== walked.lastHash)
      found.add(where, `last hash is ${account.last_hash}, its newest entry's is ${walked.lastHash}`);
    // The database refuses it (migration 0019): below zero, its guard was bypassed.
    if (NON_NEGATIVE_KINDS.includes(account.kind) && walked.lowest < 0)
      found.add(where, `its entries take the ${account.kind} balance below zero (to ${walked.lowest} kobo)`);
  }
  for (const orphan of await checkpointsWithoutLedgerAccount(db, businessId)) {
    checkpoints++;
    found.add(`checkpoint ${orphan.ledger_account_id}#${orphan.entry_count}`, "its ledger account is gone");
  }
  if (checkpoints > 0 && !checkpointKey)
    found.add(
      "checkpoints",
      `${checkpoints} checkpoints cannot be authenticated: their key (setting ${CHECKPOINT_KEY_SETTING}) is missing`,
    );
  for (const row of await unbalancedTransactions(db, businessId)) {
    const problem = Number(row.entries) === 0 ? "has no entries" : `entries sum to ${row.sum}, not 0`;
    found.add(`transaction ${row.id}`, problem);
  }
  for (const row of await miscomputedTransactions(db, businessId)) {
    found.add(
      `transaction ${row.id}`,
      `net ${row.net_amount} is not amount ${row.amount} less fee ${row.fee}, VAT ${row.vat} and stamp duty ${row.stamp_duty}`,
    );
  }
  for (const row of await transactionsWithWrongBalanceAfter(db, businessId)) {
    found.add(
      `transaction ${row.id}`,
      `balanceAfter is ${row.balance_after}, its last available entry says ${row.entry_balance_after}`,
    );
  }
  let transactions = 0;
  const payouts = payoutEffects(await payoutTotals(db, businessId));
  const inflows = new Map((await transactionTotals(db, businessId)).map((row) => [row.business_id, row]));
  // Held credits the business accepted (issue 46): out of held, their nets into available.
  const accepted = new Map((await acceptedHeldTotals(db, businessId)).map((row) => [row.business_id, row]));
  // Operators' blocks on disputed credits (issue 46, item 7): placed into held, released back.
  const blocks = new Map(
    (await blockTotals(db, businessId)).map((row) => [
      row.business_id,
      Number(row.placed) - Number(row.released),
    ]),
  );
  for (const id of new Set([...inflows.keys(), ...payouts.keys(), ...accepted.keys(), ...blocks.keys()])) {
    const row = inflows.get(id);
    const taken = accepted.get(id);
    const acceptedOf = (field: "amount" | "fee" | "vat" | "stamp_duty" | "net") =>
      Number(taken?.[field] ?? 0);
    const out = payouts.get(id) ?? new Map<LedgerAccountKind, number>();
    transactions += Number(row?.count ?? 0);
    const where = `business ${id}`;
    const balance = (kind: string) => balances.get(`${id}:${kind}`) ?? 0;
    const expect = (kind: string, value: number, what: string) => {
      if (balance(kind) !== value)
        found.add(where, `${kind} entries sum to ${balance(kind)}, ${what} is ${value}`);
    };
    const [held, paidOut, payoutFees, payoutsOut, payoutVat, payoutStampDuty] = (
      ["pending", "paid_out", "revenue", "available", "vat_payable", "stamp_duty_payable"] as const
    ).map((kind) => out.get(kind) ?? 0) as [number, number, number, number, number, number];
    expect("settlement", -Number(row?.amount ?? 0), "minus the transactions' amounts");
    expect(
      "revenue",
      Number(row?.fee ?? 0) + acceptedOf("fee") + payoutFees,
      "the transactions' (accepted credits' too) and the kept payouts' fees",
    );
    expect(
      "vat_payable",
      Number(row?.vat ?? 0) + acceptedOf("vat") + payoutVat,
      "the transactions' (accepted credits' too) and the kept payouts' VAT",
    );
    expect(
      "stamp_duty_payable",
      Number(row?.stamp_duty ?? 0) + acceptedOf("stamp_duty") + payoutStampDuty,
      "the transactions' (accepted credits' too) and the kept payouts' stamp duty",
    );
    expect("pending", held, "the pending payouts' amounts, fees and charges");
    const blocked = blocks.get(id) ?? 0;
    expect(
      "held",
      Number(row?.held ?? 0) - acceptedOf("amount") + (out.get("held") ?? 0) + blocked,
      "the held credits' amounts and the blocks', less those accepted, released and returned",
    );
    expect("paid_out", paidOut, "the successful payouts' amounts");
    expect(
      "available",
      Number(row?.net ?? 0) + acceptedOf("net") + payoutsOut - blocked,
      "the credited transactions' net amounts less the payouts held, paid out and their fees, and the blocks standing",
    );
    if (row && Number(row.max_ordinal) !== Number(row.count))
      found.add(where, `${row.count} transactions but the highest ordinal is ${row.max_ordinal}`);
  }
  await verifyPayoutPostings(db, (where, problem) => found.add(where, problem), businessId);
  const withHeld = accounts
    .filter((account) => account.kind === "held")
    .map((account) => account.business_id);
  await verifyHeldCredits(db, (where, problem) => found.add(where, problem), balances, withHeld, businessId);
  for (const row of await accountsWithWrongTotals(db, businessId)) {
    found.add(
      `account ${row.id}`,
      `totals say ${row.total_received} kobo in ${row.transfer_count} transfers; ` +
        `its transactions are ${row.sum} kobo in ${row.count}`,
    );
  }
  return {
    ledgerAccounts: accounts.length,
    entries,
    transactions,
    checkpoints,
    drifts: found.drifts,
    moreDrifts: found.more,
  };
}

/**
 * Walks one ledger account's entries in sequence order, recomputing each balance and hash.
 * After a bad entry it carries on from what that entry stored, so one corrupted row is one
 * drift rather than one per later entry; the sum is always the true sum of the amounts. The
 * hashes at the `marked` positions (its checkpoints) are kept for the caller.
 */
async function walkChain(db: Executor, ledgerAccountId: string, found: Findings, marked: Set<number>) {
  const hashes = new Map<number, string>();
  let sequence = 0;
  let hash = GENESIS_HASH;
  let balance = 0;
  let sum = 0;
  let lowest = 0;
  let entries = 0;
  for (;;) {
    const page = await entriesAfter(db, ledgerAccountId, sequence, PAGE);
    for (const entry of page) {
      const where = `entry ${ledgerAccountId}#${entry.sequence}`;
      const amount = Number(entry.amount);
      const balanceAfter = Number(entry.balance_after);
      if (entry.sequence !== sequence + 1) found.add(where, `follows #${sequence}: sequences have a gap`);
      if (entry.previous_hash !== hash) found.add(where, "previous hash is not the hash of the entry before");
      if (balanceAfter !== balance + amount)
        found.add(where, `balance after is ${balanceAfter}, ${balance} + ${amount} is ${balance + amount}`);
      const recomputed = entryHash(entry.previous_hash, {
        ledgerAccountId,
        sequence: entry.sequence,
        transactionId: entry.transaction_id,
        amount,
        balanceAfter,
        createdAt: entry.created_at,
      });
      if (recomputed !== entry.hash) found.add(where, "hash does not match the entry's fields");
      if (marked.has(entry.sequence)) hashes.set(entry.sequence, entry.hash);
      sequence = entry.sequence;
      hash = entry.hash;
      balance = balanceAfter;
      sum += amount;
      lowest = Math.min(lowest, sum);
      entries++;
    }
    if (page.length < PAGE)
      return { entries, sum, lowest, lastHash: hash, lastSequence: sequence, marked: hashes };
  }
}
