import type SqliteDatabase from "better-sqlite3";
import { type LedgerAccountKind, type LedgerAccountToOpen, ledgerAccountsOf } from "../../ledger/kinds.js";
import type { LedgerPosting } from "../../ledger/ledger-port.js";
import { GENESIS_HASH } from "../../ledger/posting.js";
import { namedSql } from "../named-sql.js";
import type { LedgerWrites } from "../payout-writes.js";
import { prepared } from "../prepared.js";
import { LEDGER_HEADS } from "../statements.js";
import { type HeadRow, openedHeads } from "../transfer-writes.js";

/**
 * SQLite's ledger writes, each spelled once: a transfer runs them prepared, in the group commit
 * (transfer-writes.ts), a payout's transaction through the query builder (`sqliteLedgerWrites`).
 * SQLite's writes run one at a time, so "locked" heads need no lock of their own.
 */

/** Opens a ledger account a business does not have yet. */
const OPEN_LEDGER_ACCOUNT = `insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
  values (@id, @business_id, @kind, @currency, 0, 0, '${GENESIS_HASH}', @created_at) on conflict do nothing`;
/** One entry of a posting. */
const INSERT_ENTRY = `insert into ledger_entries
  (ledger_account_id, sequence, transaction_id, business_id, amount, balance_after, created_at, previous_hash, hash)
  values (@ledger_account_id, @sequence, @transaction_id, @business_id, @amount, @balance_after, @created_at,
          @previous_hash, @hash)`;
/** A ledger account's head after a posting. */
const MOVE_HEAD =
  "update ledger_accounts set balance = @balance, entry_count = @entryCount, last_hash = @lastHash where id = @id";

const openingRow = (account: LedgerAccountToOpen, businessId: string, now: string) => ({
  ...account,
  business_id: businessId,
  created_at: now,
});

const entryRows = (posting: LedgerPosting) =>
  posting.entries.map((entry) => ({
    ledger_account_id: entry.ledgerAccountId,
    sequence: entry.sequence,
    transaction_id: posting.id,
    business_id: posting.businessId,
    amount: entry.amount,
    balance_after: entry.balanceAfter,
    created_at: entry.createdAt,
    previous_hash: entry.previousHash,
    hash: entry.hash,
  }));

/** Inside a synchronous write: the business's heads, after opening those of `kinds` it lacks. */
export function openLedgerNow(
  db: SqliteDatabase.Database,
  businessId: string,
  kinds: readonly LedgerAccountKind[],
  now: string,
): HeadRow[] {
  const heads = prepared(db, LEDGER_HEADS).all({ business_id: businessId }) as HeadRow[];
  if (heads.length >= kinds.length) return heads;
  for (const account of ledgerAccountsOf(businessId, kinds))
    prepared(db, OPEN_LEDGER_ACCOUNT).run(openingRow(account, businessId, now));
  return prepared(db, LEDGER_HEADS).all({ business_id: businessId }) as HeadRow[];
}

/** Inside a synchronous write: the posting's entries and the heads it moved. */
export function postNow(db: SqliteDatabase.Database, posting: LedgerPosting): void {
  for (const row of entryRows(posting)) prepared(db, INSERT_ENTRY).run(row);
  for (const head of posting.heads) prepared(db, MOVE_HEAD).run(head);
}

/** The ledger port on SQLite, for a query builder's transaction: the same statements. */
export const sqliteLedgerWrites: LedgerWrites = {
  lockedHeads: (trx, businessId, accounts, now) =>
    openedHeads(
      async () => (await namedSql<HeadRow>(LEDGER_HEADS, { business_id: businessId }).execute(trx)).rows,
      async () => {
        for (const account of accounts) {
          await namedSql(OPEN_LEDGER_ACCOUNT, openingRow(account, businessId, now)).execute(trx);
        }
      },
      accounts.length,
    ),
  async post(trx, postings) {
    for (const posting of postings) {
      for (const row of entryRows(posting)) await namedSql(INSERT_ENTRY, row).execute(trx);
      for (const head of posting.heads) await namedSql(MOVE_HEAD, { ...head }).execute(trx);
    }
  },
};
