import { randomUUID } from "node:crypto";
import type SqliteDatabase from "better-sqlite3";
import type pg from "pg";
import { type AccountHead, type ChainedEntry, GENESIS_HASH } from "../ledger/posting.js";
import type { AccountByNumber } from "./account-repository.js";
import type { ConflictInput } from "./conflict-repository.js";
import type { Storage } from "./database.js";
import {
  type EndpointTypes,
  type EventToWrite,
  eventCte,
  eventRowValues,
  writeDeliveriesOnClient,
  writeEventNow,
} from "./event-writes.js";
import { LEDGER_ACCOUNT_KINDS, ledgerAccountId } from "./ledger-repository.js";
import { prepared } from "./prepared.js";
import type { AccountRow, LedgerAccountKind } from "./schema.js";
import type { TransactionRow } from "./transaction-repository.js";
import { type AnswerRecords, CommitThenRefuse, clientTransaction, groupWrite } from "./transactions.js";

/** What the domain posts a transfer onto, read under the locks: the fee, the ledger heads, the last transaction. */
export interface LedgerState {
  fee: { basisPoints: number; capKobo: number | null };
  heads: Map<LedgerAccountKind, AccountHead>;
  /** The business's newest transaction (undefined before its first). */
  last: Pick<TransactionRow, "ordinal" | "created_at"> | undefined;
}

/** A transfer posted by the domain: what storage writes, and the result to answer with. */
export interface TransferPosting<R> {
  transaction: TransactionRow;
  entries: readonly ChainedEntry[];
  /** The ledger accounts' heads after the entries. */
  heads: Iterable<AccountHead>;
  event: EventToWrite;
  result: R;
}

/** A session id recorded before: the same transfer again (answer `duplicate`), or a conflict to keep. */
export type SeenBefore<R> = { duplicate: R } | { conflict: ConflictInput; seenAt: string };

/**
 * The domain's decisions, made under storage's locks from what it read: synchronous and pure
 * (on SQLite they run inside the write itself). `post` throws a refusal (the acceptance rules),
 * which writes nothing.
 */
export interface TransferDecisions<R> {
  /** The session id was recorded before, as `existing`. */
  again(existing: TransactionRow): SeenBefore<R>;
  /** A new session id: accept into the account `found` by its number (if any) and post it onto its ledger. */
  post(found: (AccountByNumber & { ledger: LedgerState }) | undefined): TransferPosting<R>;
}

/** What storage looks a notification up by, and when (a business's ledger accounts are created then). */
export interface TransferKeys {
  sessionId: string;
  accountNumber: string;
  now: string;
}

/** What ingesting did: answered (recorded now, or the first recording), or refused as a conflict, kept. */
export type TransferOutcome<R> = { result: R } | { conflict: ConflictInput };

/**
 * Records a bank notification, its ledger postings, balances and event in one write transaction
 * (issue 12's hot path): on SQLite one synchronous write in the group commit, on statements
 * prepared once; on PostgreSQL one transaction of statements, the posting itself one
 * round trip. Ingestions of one session id take turns (PostgreSQL: an advisory lock; SQLite's
 * writes run one at a time), and so do transfers into one account (its row) and one business's
 * transfers (its ledger accounts' rows). A conflict is kept, and commits without an answer.
 */
export function ingestTransfer<R>(
  storage: Storage,
  transfer: TransferKeys,
  decide: TransferDecisions<R>,
): Promise<TransferOutcome<R>> {
  if (storage.pool) return ingestOnPostgres(storage, transfer, decide);
  if (!storage.group) throw new Error("storage has neither a group commit (SQLite) nor a pool (PostgreSQL)");
  return groupWrite(storage.group, (db) => ingestNow(db, transfer, decide), OUTCOME_ANSWERS);
}

/** A unit of work answers with an outcome's result; a conflict stores no answer. */
const OUTCOME_ANSWERS = {
  answers: (outcome: TransferOutcome<unknown>) => "result" in outcome,
  answer: (outcome: TransferOutcome<unknown>) => ("result" in outcome ? outcome.result : undefined),
};

function ingestNow<R>(
  db: SqliteDatabase.Database,
  { sessionId, accountNumber, now }: TransferKeys,
  decide: TransferDecisions<R>,
): TransferOutcome<R> {
  const existing = prepared(db, SQLITE.findBySession).get(sessionId) as TransactionRow | undefined;
  if (existing) {
    const seen = decide.again(existing);
    if ("duplicate" in seen) return { result: seen.duplicate };
    prepared(db, SQLITE.recordConflict).run(conflictRow(seen.conflict, seen.seenAt));
    return { conflict: seen.conflict };
  }
  const found = destination(prepared(db, SQLITE.findAccount).get(accountNumber) as FoundRow | undefined);
  let ledger: LedgerState | undefined;
  if (found) {
    const businessId = found.account.business_id;
    let heads = prepared(db, SQLITE.heads).all(businessId) as HeadRow[];
    if (heads.length < LEDGER_ACCOUNT_KINDS.length) {
      for (const row of newLedgerAccounts(businessId, now)) prepared(db, SQLITE.createHead).run(row);
      heads = prepared(db, SQLITE.heads).all(businessId) as HeadRow[];
    }
    const last = prepared(db, SQLITE.last).get(businessId) as LedgerState["last"];
    ledger = { fee: found.fee, heads: headMap(heads), last };
  }
  const posting = decide.post(found && ledger && { ...found, ledger });
  const { transaction } = posting;
  prepared(db, SQLITE.insertTransaction).run(transaction);
  for (const entry of posting.entries) {
    prepared(db, SQLITE.insertEntry).run(entryRow(transaction, entry));
  }
  for (const head of posting.heads) prepared(db, SQLITE.moveHead).run(head);
  prepared(db, SQLITE.countTransfer).run(transaction.amount, transaction.account_id);
  writeEventNow(db, posting.event);
  return { result: posting.result };
}

async function ingestOnPostgres<R>(
  storage: Storage,
  { sessionId, accountNumber, now }: TransferKeys,
  decide: TransferDecisions<R>,
): Promise<TransferOutcome<R>> {
  return clientTransaction<TransferOutcome<R>>(
    storage,
    async (client, answerFor) => {
      const run = <Row extends pg.QueryResultRow>(name: keyof typeof POSTGRES, values: unknown[]) =>
        client.query<Row>({ text: POSTGRES[name], values });
      await run("lockSession", [`vas:session:${sessionId}`]);
      const existing = (await run<TransactionRow>("findBySession", [sessionId])).rows[0];
      if (existing) {
        const seen = decide.again(existing);
        if ("duplicate" in seen) return { result: seen.duplicate };
        const row = conflictRow(seen.conflict, seen.seenAt);
        await run(
          "recordConflict",
          CONFLICT_COLUMNS.map((column) => row[column]),
        );
        throw new CommitThenRefuse(new TransferConflict(seen.conflict));
      }
      const found = destination((await run<FoundRow>("findAccount", [accountNumber])).rows[0]);
      let ledger: LedgerState | undefined;
      if (found) {
        const businessId = found.account.business_id;
        let heads = (await run<HeadRow>("heads", [businessId])).rows;
        if (heads.length < LEDGER_ACCOUNT_KINDS.length) {
          await run("createHeads", [businessId, now]);
          heads = (await run<HeadRow>("heads", [businessId])).rows;
        }
        const last = (await run<NonNullable<LedgerState["last"]>>("last", [businessId])).rows[0];
        ledger = { fee: found.fee, heads: headMap(heads), last };
      }
      const posting = decide.post(found && ledger && { ...found, ledger });
      const outcome = { result: posting.result };
      const { transaction, entries } = posting;
      const heads = [...posting.heads];
      const answer: AnswerRecords | undefined = answerFor(outcome);
      const written = await run<{ event_sequence: number; endpoints: EndpointTypes[] }>("post", [
        ...TRANSACTION_COLUMNS.map((column) => transaction[column]),
        entries.map((e) => e.ledgerAccountId),
        entries.map((e) => e.sequence),
        entries.map((e) => e.amount),
        entries.map((e) => e.balanceAfter),
        entries.map((e) => e.previousHash),
        entries.map((e) => e.hash),
        heads.map((h) => h.id),
        heads.map((h) => h.balance),
        heads.map((h) => h.entryCount),
        heads.map((h) => h.lastHash),
        answer?.statusCode ?? null,
        answer?.response ?? null,
        answer?.kinds ?? [],
        answer?.keys ?? [],
        posting.event.counter,
        posting.event.row.id,
        ...eventRowValues(posting.event),
        answer?.businessIds ?? [],
      ]);
      const { event_sequence, endpoints } = written.rows[0] as {
        event_sequence: number;
        endpoints: EndpointTypes[];
      };
      await writeDeliveriesOnClient(client, posting.event, event_sequence, endpoints);
      return outcome;
    },
    OUTCOME_ANSWERS,
  ).catch((error: unknown) => {
    if (error instanceof TransferConflict) return { conflict: error.conflict };
    throw error;
  });
}

/** A conflict on its way out of the PostgreSQL transaction that kept it. */
class TransferConflict extends Error {
  constructor(readonly conflict: ConflictInput) {
    super(`session id ${conflict.sessionId} conflicts with its first recording`);
  }
}

interface HeadRow {
  id: string;
  kind: LedgerAccountKind;
  balance: number;
  entry_count: number;
  last_hash: string;
}

const headMap = (rows: readonly HeadRow[]) =>
  new Map<LedgerAccountKind, AccountHead>(
    rows.map((row) => [
      row.kind,
      {
        id: row.id,
        balance: Number(row.balance),
        entryCount: Number(row.entry_count),
        lastHash: row.last_hash,
      },
    ]),
  );

const newLedgerAccounts = (businessId: string, now: string) =>
  LEDGER_ACCOUNT_KINDS.map((kind) => ({
    id: ledgerAccountId(businessId, kind),
    business_id: businessId,
    kind,
    currency: "NGN",
    created_at: now,
  }));

/** The account found by number, with its number's retirement and its business's fee. */
type FoundRow = AccountRow & {
  number_retired_at: string | null;
  fee_basis_points: number;
  fee_cap_kobo: number | null;
};

function destination(row: FoundRow | undefined) {
  if (!row) return undefined;
  const { number_retired_at, fee_basis_points, fee_cap_kobo, ...account } = row;
  return {
    account,
    retiredAt: number_retired_at,
    fee: {
      basisPoints: Number(fee_basis_points),
      capKobo: fee_cap_kobo === null ? null : Number(fee_cap_kobo),
    },
  };
}

const entryRow = (transaction: TransactionRow, entry: ChainedEntry) => ({
  ledger_account_id: entry.ledgerAccountId,
  sequence: entry.sequence,
  transaction_id: transaction.id,
  business_id: transaction.business_id,
  amount: entry.amount,
  balance_after: entry.balanceAfter,
  created_at: entry.createdAt,
  previous_hash: entry.previousHash,
  hash: entry.hash,
});

const conflictRow = (conflict: ConflictInput, now: string) => ({
  id: `cfl_${randomUUID().replaceAll("-", "")}`,
  session_id: conflict.sessionId,
  transaction_id: conflict.transactionId,
  business_id: conflict.businessId,
  account_number: conflict.accountNumber,
  amount: conflict.amount,
  currency: conflict.currency,
  now,
});
const CONFLICT_COLUMNS = [
  "id",
  "session_id",
  "transaction_id",
  "business_id",
  "account_number",
  "amount",
  "currency",
  "now",
] as const;

const TRANSACTION_COLUMNS = [
  "id",
  "business_id",
  "account_id",
  "account_number",
  "ordinal",
  "account_ordinal",
  "session_id",
  "amount",
  "fee",
  "net_amount",
  "currency",
  "balance_after",
  "payer_name",
  "payer_account_number",
  "payer_bank_name",
  "narration",
  "status",
  "value_at",
  "created_at",
] as const satisfies readonly (keyof TransactionRow)[];

const FIND_ACCOUNT = `select a.*, n.retired_at as number_retired_at, b.fee_basis_points, b.fee_cap_kobo
  from account_numbers n
  join accounts a on a.id = n.account_id
  join businesses b on b.id = a.business_id
  where n.account_number = `;
const HEADS = `select id, kind, balance, entry_count, last_hash from ledger_accounts where business_id = `;
const LAST = "select ordinal, created_at from transactions where business_id = ";
const CONFLICT_UPSERT = (
  p: (name: (typeof CONFLICT_COLUMNS)[number]) => string,
) => `insert into transfer_conflicts
  (id, session_id, transaction_id, business_id, account_number, amount, currency, attempts, first_seen_at, last_seen_at)
  values (${p("id")}, ${p("session_id")}, ${p("transaction_id")}, ${p("business_id")}, ${p("account_number")},
          ${p("amount")}, ${p("currency")}, 1, ${p("now")}, ${p("now")})
  on conflict (session_id, account_number, amount, currency)
  do update set attempts = transfer_conflicts.attempts + 1, last_seen_at = excluded.last_seen_at`;

const SQLITE = {
  findBySession: "select * from transactions where session_id = ?",
  findAccount: `${FIND_ACCOUNT}?`,
  heads: `${HEADS}? order by id`,
  createHead: `insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
    values (@id, @business_id, @kind, @currency, 0, 0, '${GENESIS_HASH}', @created_at) on conflict do nothing`,
  last: `${LAST}? order by ordinal desc limit 1`,
  insertTransaction: `insert into transactions (${TRANSACTION_COLUMNS.join(", ")})
    values (${TRANSACTION_COLUMNS.map((c) => `@${c}`).join(", ")})`,
  insertEntry: `insert into ledger_entries
    (ledger_account_id, sequence, transaction_id, business_id, amount, balance_after, created_at, previous_hash, hash)
    values (@ledger_account_id, @sequence, @transaction_id, @business_id, @amount, @balance_after, @created_at,
            @previous_hash, @hash)`,
  moveHead:
    "update ledger_accounts set balance = @balance, entry_count = @entryCount, last_hash = @lastHash where id = @id",
  countTransfer:
    "update accounts set total_received = total_received + ?, transfer_count = transfer_count + 1 where id = ?",
  recordConflict: CONFLICT_UPSERT((name) => `@${name}`),
};

const postgresEvent = eventCte({ counter: 34, id: 35, business: 2, row: 36 });

const POSTGRES = {
  lockSession: "select pg_advisory_xact_lock(hashtextextended($1, 0))",
  findBySession: "select * from transactions where session_id = $1",
  // Transfers into one account take turns on its row.
  findAccount: `${FIND_ACCOUNT}$1 for update of a`,
  // One business's transfers take turns on its ledger accounts, always locked in the same order.
  heads: `${HEADS}$1 order by id for update`,
  // A business's first two transfers may race to create its accounts: the loser's rows conflict
  // on the id or on (business_id, kind), whichever index PostgreSQL checks first, so no target.
  createHeads: `insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
    select $1 || ':' || kind, $1, kind, 'NGN', 0, 0, '${GENESIS_HASH}', $2
    from unnest(array['${LEDGER_ACCOUNT_KINDS.join("','")}']) as kind
    on conflict do nothing`,
  // Read after the heads' lock, in a statement of its own, so it sees the transfer that held it.
  last: `${LAST}$1 order by ordinal desc limit 1`,
  recordConflict: CONFLICT_UPSERT((name) => `$${CONFLICT_COLUMNS.indexOf(name) + 1}`),
  // $1..$19 the transaction (TRANSACTION_COLUMNS); $20..$25 its entries; $26..$29 the heads after
  // them; $30..$33 and $40 the answer and the request records it completes; $34..$39 the event (eventCte).
  // Every part of one statement, so one round trip; the foreign keys are checked at its end.
  post: `with transaction_written as (
  insert into transactions (${TRANSACTION_COLUMNS.join(", ")})
  values (${TRANSACTION_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})
), entries_written as (
  insert into ledger_entries
    (ledger_account_id, sequence, transaction_id, business_id, amount, balance_after, created_at, previous_hash, hash)
  select e.account, e.sequence, $1, $2, e.amount, e.balance_after, $19, e.previous_hash, e.hash
  from unnest($20::text[], $21::integer[], $22::bigint[], $23::bigint[], $24::text[], $25::text[])
    as e(account, sequence, amount, balance_after, previous_hash, hash)
), heads_moved as (
  update ledger_accounts l set balance = h.balance, entry_count = h.entry_count, last_hash = h.last_hash
  from unnest($26::text[], $27::bigint[], $28::integer[], $29::text[]) as h(id, balance, entry_count, last_hash)
  where l.id = h.id
), account_counted as (
  update accounts set total_received = total_received + $8::bigint, transfer_count = transfer_count + 1
  where id = $3
), answered as (
  update request_records r set state = 'done', status_code = $30::integer, response = $31
  from unnest($32::text[], $33::text[], $40::text[]) as k(kind, key, business_id)
  where r.business_id = k.business_id and r.kind = k.kind and r.key = k.key
), ${postgresEvent.ctes}
select ${postgresEvent.select}`,
};
