import type pg from "pg";
import { ledgerAccountsOf } from "../../ledger/kinds.js";
import type { PostgresStorage } from "../database.js";
import { LAST_TRANSACTION } from "../statements.js";
import type {
  HeadRow,
  LedgerState,
  TransferDecisions,
  TransferKeys,
  TransferOutcome,
  TransferWrites,
} from "../transfer-writes.js";
import type { UnitOfWork } from "../unit-of-work.js";
import {
  deliveryStatements,
  ENDPOINTS_OF_BUSINESS,
  ENDPOINTS_OF_NUMBER,
  endpointsRead,
} from "./event-writes.js";
import { inlineStatement } from "./inline.js";
import { LOCKED_HEADS, OPEN_LEDGER as OPEN_LEDGER_ACCOUNTS, openingValues } from "./ledger-writes.js";
import { named } from "./named.js";
import { clientTransaction, resultsOf } from "./transaction.js";
import { TransferBatches } from "./transfer-batches.js";
import { decideAll, type Lookups, type Plan, type TransferItem } from "./transfer-plan.js";
import { POST_TRANSFERS, parseLookupJson, postingsValues } from "./transfer-posting.js";

/**
 * Ingestion on PostgreSQL. One business's transfers in flight are posted together, in one
 * transaction (transfer-batches.ts); a transfer alone, whose number's business is not known yet,
 * is a batch of one: every transfer is looked up by one function (vas_transfer_lookups) and posted
 * by one statement (POST_TRANSFERS). Ingestions of one session id take turns on an advisory lock,
 * transfers into one account on its row, and one business's transfers on its ledger accounts' rows.
 */
export function postgresTransferWrites(storage: PostgresStorage): TransferWrites {
  const batches = new TransferBatches(
    (business, items, learn, plan) => postBatch(storage, business, items, learn, plan),
    // Each batch holds a pooled connection through its commit; the requests' claims need some.
    Math.max(1, Math.floor((storage.pool.options.max ?? 10) / 2)),
  );
  return {
    ingest: <R>(transfer: TransferKeys, decide: TransferDecisions<R>, unit: UnitOfWork | undefined) =>
      batches.ingest({ transfer, decide, unit }) as Promise<TransferOutcome<R>>,
  };
}

/**
 * One transaction for a batch of a business's transfers, or of transfers into one number whose
 * business is not known yet (`business` undefined: the look-up tells whose it is). BEGIN carries the look-up and the business's endpoints; a
 * business's first transfer opens its ledger accounts and reads them locked; each transfer is
 * decided in order (transfer-plan.ts); the postings go as one statement with COMMIT (the postings,
 * then the deliveries and COMMIT, when some are due). `plan` holds what was decided, also when
 * the transaction then fails.
 */
async function postBatch(
  storage: PostgresStorage,
  business: string | undefined,
  items: readonly TransferItem[],
  learn: (accountNumber: string, businessId: string) => void,
  plan: Plan,
): Promise<void> {
  const endpointsOf =
    business === undefined
      ? inlineStatement(ENDPOINTS_OF_NUMBER, { account_number: items[0]?.transfer.accountNumber ?? null })
      : inlineStatement(ENDPOINTS_OF_BUSINESS, { business_id: business });
  const opening = [
    inlineStatement(LOOKUPS, {
      session_ids: items.map((item) => item.transfer.sessionId),
      account_numbers: items.map((item) => item.transfer.accountNumber),
    }),
    endpointsOf,
  ];
  await clientTransaction<void>(
    storage,
    undefined,
    async ({ client, opened: [looked, enabled], commitWith }) => {
      const lookups = parseLookups((looked?.rows[0] as { lookups?: string } | undefined)?.lookups);
      for (const row of lookups.found) learn(row.looked_up_number, row.business_id);
      const owner = business ?? lookups.found[0]?.business_id;
      const first = items[0];
      if (owner !== undefined && first !== undefined) await openLedger(client, owner, first, lookups);
      decideAll(owner, items, lookups, endpointsRead(enabled), plan);
      if (plan.written.length === 0) return;
      const statements = plan.written.flatMap((w) => (w.statement ? [w.statement] : []));
      const postings = plan.written.flatMap((w) => (w.posting ? [{ ...w, posting: w.posting }] : []));
      if (owner !== undefined && postings.length > 0) {
        statements.push(inlineStatement(POST_TRANSFERS, postingsValues(owner, postings)));
      }
      if (postings.every((w) => w.targets.length === 0)) {
        await commitWith(statements.join("; "));
        return;
      }
      const results = resultsOf(await client.query(statements.join("; ")));
      const sequences = new Map(
        (results.at(-1) as pg.QueryResult<{ id: string; sequence: number }>).rows.map((row) => [
          row.id,
          Number(row.sequence),
        ]),
      );
      const queued = postings.flatMap(({ posting, targets }) =>
        targets.length === 0
          ? []
          : deliveryStatements(posting.event, targets, sequences.get(posting.event.row.id) as number),
      );
      await commitWith(queued.join("; "));
    },
    {},
    opening,
  );
}

/**
 * A business's first transfer opens its ledger accounts (the decisions say which), then reads them
 * locked, and its newest transaction after their lock, into `lookups`, as the look-up would have.
 */
async function openLedger(client: pg.PoolClient, business: string, item: TransferItem, lookups: Lookups) {
  const kinds = item.decide.ledgerKinds;
  const heads = lookups.heads.filter((head) => head.business_id === business);
  if (heads.length >= kinds.length) return;
  const accounts = ledgerAccountsOf(business, kinds);
  const [, read, last] = resultsOf(
    await client.query(
      [
        inlineStatement(OPEN_LEDGER, openingValues(business, accounts, item.transfer.now)),
        inlineStatement(HEADS, { business_id: business }),
        // Read after the heads' lock, in a statement of its own, so it sees the transfer that held it.
        inlineStatement(LAST, { business_id: business }),
      ].join("; "),
    ),
  );
  lookups.heads = [
    ...lookups.heads.filter((head) => head.business_id !== business),
    ...((read?.rows ?? []) as HeadRow[]).map((head) => ({ ...head, business_id: business })),
  ];
  const newest = last?.rows[0] as NonNullable<LedgerState["last"]> | undefined;
  lookups.last = [
    ...lookups.last.filter((row) => row.business_id !== business),
    ...(newest ? [{ business_id: business, ...newest }] : []),
  ];
}

/** What vas_transfer_lookups answered (its JSON text). */
export const parseLookups = (text: string | undefined) =>
  parseLookupJson<Lookups>(text, "vas_transfer_lookups");

// The sessions' locks and recordings, the accounts (locked), their businesses' heads (locked) and
// newest transactions: one call, its plans kept per server connection (migration 0036).
const LOOKUPS = named("select vas_transfer_lookups(@session_ids, @account_numbers) as lookups");
const HEADS = named(LOCKED_HEADS);
const LAST = named(LAST_TRANSACTION);
const OPEN_LEDGER = named(OPEN_LEDGER_ACCOUNTS);
