import type pg from "pg";
import { GENESIS_HASH } from "../../ledger/posting.js";
import type { PostgresStorage } from "../database.js";
import { LAST_TRANSACTION, LEDGER_HEADS } from "../statements.js";
import type { TransactionRow } from "../transaction-repository.js";
import {
  conflictRow,
  destination,
  type FoundRow,
  type HeadRow,
  headMap,
  type LedgerState,
  OUTCOME_ANSWERS,
  type TransferDecisions,
  type TransferKeys,
  type TransferOutcome,
  type TransferWrites,
} from "../transfer-writes.js";
import type { UnitOfWork } from "../unit-of-work.js";
import { commitEvent, ENDPOINTS_OF_NUMBER, endpointsRead } from "./event-writes.js";
import { inlineStatement } from "./inline.js";
import { type NamedStatement, named } from "./named.js";
import { clientTransaction } from "./transaction.js";
import { TransferBatches } from "./transfer-batches.js";
import {
  POST_TRANSFER,
  parseLookupJson,
  postingValues,
  RECORD_TRANSFER_CONFLICT,
} from "./transfer-posting.js";

/**
 * Ingestion on PostgreSQL: one transaction of statements, the posting itself one round trip.
 * Ingestions of one session id take turns on an advisory lock, transfers into one account on its
 * row, and one business's transfers on its ledger accounts' rows. One business's transfers in
 * flight are posted together, in one transaction (transfer-batches.ts); a transfer whose number's
 * business is not known yet, or a batch of one, goes alone (`ingest` here).
 */
export function postgresTransferWrites(storage: PostgresStorage): TransferWrites {
  const batches = new TransferBatches(storage, ({ transfer, decide, unit }, learn) =>
    ingest(storage, transfer, decide, unit, learn),
  );
  return {
    ingest: <R>(transfer: TransferKeys, decide: TransferDecisions<R>, unit: UnitOfWork | undefined) =>
      batches.ingest({ transfer, decide, unit }) as Promise<TransferOutcome<R>>,
  };
}

function ingest<R>(
  storage: PostgresStorage,
  { sessionId, accountNumber, now }: TransferKeys,
  decide: TransferDecisions<R>,
  unit: UnitOfWork | undefined,
  learn: (accountNumber: string, businessId: string) => void,
): Promise<TransferOutcome<R>> {
  return clientTransaction<TransferOutcome<R>>(
    storage,
    unit,
    async ({ client, answerFor, opened: [looked, enabled], commitWith }) => {
      const run = <Row extends pg.QueryResultRow>(
        statement: NamedStatement,
        values: Record<string, unknown>,
      ) => client.query<Row>(statement.query(values));
      const lookup = parseLookup((looked?.rows[0] as { lookup?: string } | undefined)?.lookup);
      if (lookup.existing) {
        const seen = decide.again(lookup.existing);
        if ("duplicate" in seen) return { result: seen.duplicate };
        await run(RECORD_TRANSFER_CONFLICT, conflictRow(seen.conflict));
        // Kept, and committed without an answer (OUTCOME_ANSWERS).
        return seen;
      }
      const found = destination(lookup.found);
      let ledger: LedgerState | undefined;
      if (found) {
        const business_id = found.account.business_id;
        learn(accountNumber, business_id);
        let heads = lookup.heads ?? [];
        let last = lookup.last ?? undefined;
        const accounts = decide.ledgerAccounts(business_id);
        if (heads.length < accounts.length) {
          await run(STATEMENTS.createHeads, {
            business_id,
            now,
            ids: accounts.map((a) => a.id),
            kinds: accounts.map((a) => a.kind),
            currencies: accounts.map((a) => a.currency),
          });
          heads = (await run<HeadRow>(STATEMENTS.heads, { business_id })).rows;
          last = (await run<NonNullable<LedgerState["last"]>>(STATEMENTS.last, { business_id })).rows[0];
        }
        ledger = { fee: found.fee, heads: headMap(heads), last };
      }
      const posting = decide.post(found && ledger && { ...found, ledger });
      const outcome = { result: posting.result };
      const values = postingValues(posting, answerFor(outcome));
      // Read with the look-up, under its locks, as the statement itself would read them.
      const endpoints = endpointsRead(enabled);
      await commitEvent({ client, commitWith }, POST_TRANSFER, values, posting.event, endpoints);
      return outcome;
    },
    OUTCOME_ANSWERS,
    // With BEGIN: the look-up's locks are taken in the transaction, and the business's endpoints
    // read after them, at no round trip of their own.
    [
      inlineStatement(STATEMENTS.lookup, { session_id: sessionId, account_number: accountNumber }),
      inlineStatement(ENDPOINTS_OF_NUMBER, { account_number: accountNumber }),
    ],
  );
}

/** What vas_transfer_lookup answers (migration 0017): the rows the separate statements would. */
interface Lookup {
  existing?: TransactionRow;
  found?: FoundRow;
  heads?: HeadRow[];
  last?: LedgerState["last"] | null;
}

/** What vas_transfer_lookup answered (its JSON text). */
export const parseLookup = (text: string | undefined) => parseLookupJson<Lookup>(text, "vas_transfer_lookup");

const STATEMENTS = {
  // The session's lock and recording, the account (locked), the business's heads (locked) and
  // newest transaction: one call, its plans kept per server connection (migration 0017).
  lookup: named("select vas_transfer_lookup(@session_id, @account_number) as lookup"),
  // A business's first transfer creates its ledger accounts, then reads them as the lookup does.
  heads: named(`${LEDGER_HEADS} for update`),
  // A business's first two transfers may race to create its accounts: the loser's rows conflict
  // on the id or on (business_id, kind), whichever index PostgreSQL checks first, so no target.
  createHeads:
    named(`insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
    select a.id, @business_id, a.kind, a.currency, 0, 0, '${GENESIS_HASH}', @now
    from unnest(@ids::text[], @kinds::text[], @currencies::text[]) as a(id, kind, currency)
    on conflict do nothing`),
  // Read after the heads' lock, in a statement of its own, so it sees the transfer that held it.
  last: named(LAST_TRANSACTION),
};
