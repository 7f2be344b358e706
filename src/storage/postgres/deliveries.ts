import { CompiledQuery, sql } from "kysely";
import type pg from "pg";
import type { DeliveryDialect } from "../../core/delivery-dialect.js";
import type { Executor } from "../executor.js";
import { namedSql } from "../named-sql.js";
import { LOCK_CHAINS } from "../statements.js";
import {
  deliveryStatements,
  ENDPOINTS_OF_BUSINESS,
  EVENT_SEQUENCES,
  EVENTS_WRITTEN,
  endpointsRead,
  eventsValues,
} from "./event-writes.js";
import { named } from "./named.js";

const lockChainsStatement = named(LOCK_CHAINS);

/**
 * PostgreSQL: the chains' transaction-scoped advisory locks, taken in one global order (by key)
 * so that two transactions never wait on each other in a cycle (row locks on the deliveries
 * themselves deadlocked: the settling delivery held its own row and wanted its successor's, the
 * new event held the successor's and wanted the settling one's); a claim takes the rows it reads
 * with `FOR UPDATE SKIP LOCKED`, so concurrent claimers take different ones.
 */
export const postgresDeliveries: DeliveryDialect<Executor> = {
  async lockChains(db, endpointIds, accountNumber) {
    if (endpointIds.length === 0) return;
    const { text, values } = lockChainsStatement.query({
      endpoint_ids: [...endpointIds],
      account_number: accountNumber,
    });
    await db.executeQuery(CompiledQuery.raw(text, values as unknown[]));
  },
  // The deliveries only ("of d"), not their endpoints' rows, which the claim reads too.
  claiming: (query) => query.modifyEnd(sql`for update of d skip locked`),
  deliveryIdSql: "'dlv_' || replace(gen_random_uuid()::text, '-', '')",
  // The hot path's statements, through the query builder's transaction.
  async recordEvent(trx, event) {
    const business_id = event.row.businessId;
    const enabled = await namedSql(ENDPOINTS_OF_BUSINESS.source, { business_id }).execute(trx);
    const written = await namedSql<{ sequence: number }>(`with ${EVENTS_WRITTEN} ${EVENT_SEQUENCES}`, {
      business_id,
      ...eventsValues([event]),
    }).execute(trx);
    const sequence = Number(written.rows[0]?.sequence);
    const targets = event.targets(endpointsRead(enabled as pg.QueryResult));
    for (const statement of deliveryStatements(event, targets, sequence))
      await sql.raw(statement).execute(trx);
    return { ...event.row, sequence };
  },
};
