import type pg from "pg";
import type { LedgerAccountKind } from "../../ledger/kinds.js";
import type { AccountHead } from "../../ledger/posting.js";
import type { PostgresStorage } from "../database.js";
import { CommitOutcomeUnknownError, isConnectionLost, storageFailure } from "../errors.js";
import { KeyedBatches } from "../keyed-batches.js";
import type { TransactionRow } from "../transaction-repository.js";
import {
  conflictRow,
  destination,
  type FoundRow,
  type HeadRow,
  headMap,
  type LedgerState,
  type TransferDecisions,
  type TransferKeys,
  type TransferOutcome,
  type TransferPosting,
} from "../transfer-writes.js";
import type { AnswerRecords, UnitOfWork } from "../unit-of-work.js";
import { deliveryStatements, ENDPOINTS_OF_BUSINESS, endpointsRead } from "./event-writes.js";
import { inlineStatement } from "./inline.js";
import { named } from "./named.js";
import { clientTransaction, resultsOf } from "./transaction.js";
import {
  POST_TRANSFERS,
  parseLookupJson,
  postingsValues,
  RECORD_TRANSFER_CONFLICT,
} from "./transfer-posting.js";

/** A transfer to ingest: what storage looks it up by, the domain's decisions, the request's unit. */
export interface TransferItem {
  transfer: TransferKeys;
  decide: TransferDecisions<unknown>;
  unit: UnitOfWork | undefined;
}

/** How one transfer is ingested alone (transfer-writes.ts); it tells `learn` whose number it was. */
export type IngestAlone = (
  item: TransferItem,
  learn: (accountNumber: string, businessId: string) => void,
) => Promise<TransferOutcome<unknown>>;

type Settled = { outcome: TransferOutcome<unknown> } | { error: unknown };

/** The most transfers one transaction posts. */
const MAX_BATCH = 32;
/** The most account numbers whose business is remembered (the oldest forgotten first). */
const MAX_OWNERS = 20_000;

/**
 * PostgreSQL: one business's transfers in flight posted in one transaction (issue 29), as
 * SQLite's group commit posts them: its ledger rows are locked once and handed over once per
 * batch, and the batch commits once, instead of each transfer taking its turn on them through a
 * transaction of its own. A transfer is batched by its number's business, known once a transfer
 * into that number was looked up (numbers never move between businesses; the look-up checks it
 * anyway); until then, and for a batch of one, it goes alone.
 *
 * What each transfer is answered is what it would have been alone, in the batch's order: the
 * look-up's locks and reads are those of a transfer alone, for all of them at once
 * (vas_transfer_lookups, migration 0036), and each is decided on what the ones before it posted;
 * the postings are then written by one statement (POST_TRANSFERS), sent with COMMIT.
 * A refusal (the acceptance rules) refuses only its own transfer; a statement the database
 * refuses rolls the batch back, and each is then ingested alone, so only its own fails. A
 * connection lost while COMMIT was on its way leaves every written transfer's outcome unknown,
 * and says so, as it would alone.
 */
export class TransferBatches {
  private readonly owners = new Map<string, string>();
  private readonly batches: KeyedBatches<TransferItem, Settled>;

  constructor(
    private readonly storage: PostgresStorage,
    private readonly alone: IngestAlone,
  ) {
    this.batches = new KeyedBatches((business, items) => this.run(business, items), {
      max: MAX_BATCH,
      // A session id's second recording waits for the first's batch, and then finds it.
      fits: (batch, item) => !batch.some((other) => other.transfer.sessionId === item.transfer.sessionId),
      // Each batch holds a pooled connection through its commit; the requests' claims need some.
      maxRunning: Math.max(1, Math.floor((storage.pool.options.max ?? 10) / 2)),
    });
  }

  ingest(item: TransferItem): Promise<TransferOutcome<unknown>> {
    const business = this.owners.get(item.transfer.accountNumber);
    if (business === undefined) return this.alone(item, this.learn);
    return this.batches.submit(business, item).then((settled) => {
      if ("error" in settled) throw settled.error;
      return settled.outcome;
    });
  }

  private readonly learn = (accountNumber: string, businessId: string) => {
    if (this.owners.get(accountNumber) === businessId) return;
    this.owners.delete(accountNumber);
    if (this.owners.size >= MAX_OWNERS) this.owners.delete(this.owners.keys().next().value as string);
    this.owners.set(accountNumber, businessId);
  };

  private async run(business: string, items: TransferItem[]): Promise<Settled[]> {
    if (items.length === 1) return [await settle(this.alone(items[0] as TransferItem, this.learn))];
    const settled = new Array<Settled | undefined>(items.length);
    const again = await this.batch(business, items, settled);
    // Those the batch did not settle, alone, in order: after its commit or rollback.
    for (const i of again) settled[i] = await settle(this.alone(items[i] as TransferItem, this.learn));
    return settled as Settled[];
  }

  /**
   * Posts the batch in one transaction (clientTransaction: the look-ups with BEGIN, the writes
   * with COMMIT); settles what it decided, and answers the indexes left to ingest alone.
   */
  private async batch(business: string, items: TransferItem[], settled: Array<Settled | undefined>) {
    let plan: Plan | undefined;
    const opening = [
      inlineStatement(LOOKUPS, {
        session_ids: items.map((item) => item.transfer.sessionId),
        account_numbers: items.map((item) => item.transfer.accountNumber),
      }),
      inlineStatement(ENDPOINTS_OF_BUSINESS, { business_id: business }),
    ];
    try {
      await clientTransaction<void>(
        this.storage,
        undefined,
        async ({ client, opened: [looked, enabled], commitWith }) => {
          const lookups = parseLookupJson<Lookups>(
            (looked?.rows[0] as { lookups?: string } | undefined)?.lookups,
            "vas_transfer_lookups",
          );
          for (const row of lookups.found) this.learn(row.looked_up_number, row.business_id);
          plan = decideAll(business, items, lookups, endpointsRead(enabled), settled);
          // Nothing to write: clientTransaction commits.
          if (plan.written.length === 0) return;
          const statements = plan.written.flatMap((w) => (w.statement ? [w.statement] : []));
          const postings = plan.written.flatMap((w) => (w.posting ? [{ ...w, posting: w.posting }] : []));
          if (postings.length > 0) {
            statements.push(inlineStatement(POST_TRANSFERS, postingsValues(business, postings)));
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
    } catch (error) {
      const unsettled = items.flatMap((_, i) => (settled[i] === undefined ? [i] : []));
      const deferred = plan?.deferred ?? [];
      if (error instanceof CommitOutcomeUnknownError || isConnectionLost(error)) {
        // Written in the message that carried COMMIT: it may have committed. The deferred were
        // not sent: they go alone, on another connection.
        const skipped = new Set(deferred);
        for (const i of unsettled) if (!skipped.has(i)) settled[i] = { error };
        return deferred;
      }
      // The database refusing writes refuses them alone too; a statement refused for one
      // transfer is found by writing each alone.
      if (storageFailure(error) !== undefined) {
        for (const i of unsettled) settled[i] = { error };
        return [];
      }
      return unsettled;
    }
    for (const w of plan?.written ?? []) {
      if (w.posting) items[w.index]?.unit?.taken();
      settled[w.index] = { outcome: w.outcome };
    }
    return plan?.deferred ?? [];
  }
}

const settle = (outcome: Promise<TransferOutcome<unknown>>): Promise<Settled> =>
  outcome.then(
    (done) => ({ outcome: done }),
    (error: unknown) => ({ error }),
  );

const LOOKUPS = named("select vas_transfer_lookups(@session_ids, @account_numbers) as lookups");

/** What vas_transfer_lookups answers (migration 0036). */
interface Lookups {
  existing: TransactionRow[];
  found: Array<FoundRow & { looked_up_number: string }>;
  heads: Array<HeadRow & { business_id: string }>;
  last: Array<{ business_id: string; ordinal: number; created_at: string }>;
}

/** What the batch writes for a transfer, and what it is answered once the batch commits. */
interface Written {
  index: number;
  outcome: TransferOutcome<unknown>;
  /** A conflict kept: its statement. */
  statement?: string;
  /** A posting: written with the batch's others (POST_TRANSFERS), with its request's records. */
  posting?: TransferPosting<unknown>;
  answer?: AnswerRecords | undefined;
  /** The endpoints a posting's event is for. */
  targets: string[];
}

interface Plan {
  written: Written[];
  /** Transfers to ingest alone after the batch: another business's number, or its first transfer. */
  deferred: number[];
}

/**
 * Each transfer decided in the batch's order, as it would be alone, on what the look-up read and
 * what the ones before it posted (the business's heads and newest transaction, the account's
 * totals). Duplicates and refusals are settled here; the rest become statements.
 */
function decideAll(
  business: string,
  items: readonly TransferItem[],
  lookups: Lookups,
  endpoints: ReturnType<typeof endpointsRead>,
  settled: Array<Settled | undefined>,
): Plan {
  const existing = new Map(lookups.existing.map((row) => [row.session_id, row]));
  const found = new Map(lookups.found.map(({ looked_up_number, ...row }) => [looked_up_number, row]));
  let heads: Map<LedgerAccountKind, AccountHead> = headMap(
    lookups.heads.filter((head) => head.business_id === business),
  );
  const newest = lookups.last.find((last) => last.business_id === business);
  let last: LedgerState["last"] = newest && { ordinal: newest.ordinal, created_at: newest.created_at };
  const totals = new Map<string, Pick<FoundRow, "total_received" | "transfer_count">>();
  const plan: Plan = { written: [], deferred: [] };
  for (const [index, { transfer, decide, unit }] of items.entries()) {
    try {
      const recorded = existing.get(transfer.sessionId);
      if (recorded) {
        const seen = decide.again(recorded);
        if ("duplicate" in seen) settled[index] = { outcome: { result: seen.duplicate } };
        else {
          const statement = inlineStatement(RECORD_TRANSFER_CONFLICT, conflictRow(seen.conflict));
          plan.written.push({ index, statement, outcome: seen, targets: [] });
        }
        continue;
      }
      const row = found.get(transfer.accountNumber);
      if (row && (row.business_id !== business || heads.size < decide.ledgerAccounts(business).length)) {
        plan.deferred.push(index);
        continue;
      }
      const account = row && destination({ ...row, ...totals.get(row.id) });
      // Posted onto a copy: a refusal part-way leaves the batch's heads as they were.
      const after = new Map(heads);
      const posting = decide.post(
        account && { ...account, ledger: { fee: account.fee, heads: after, last } },
      );
      heads = after;
      last = { ordinal: posting.transaction.ordinal, created_at: posting.transaction.created_at };
      totals.set(posting.transaction.account_id, posting.accountTotals);
      plan.written.push({
        index,
        outcome: { result: posting.result },
        posting,
        answer: unit?.tentative(posting.result),
        targets: posting.event.targets(endpoints),
      });
    } catch (error) {
      settled[index] = { error };
    }
  }
  return plan;
}
