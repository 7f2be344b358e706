import type { DeliveryDialect } from "../../core/delivery-dialect.js";
import type { SqliteStorage } from "../database.js";
import type { Executor } from "../executor.js";
import { writeEventNow } from "./event-writes.js";

/**
 * SQLite: a write transaction runs alone (BEGIN IMMEDIATE), so a chain's hand-off and a claim
 * need no lock of their own; an event is written by the group commit's own statements, on the
 * writer's connection the query builder's transaction holds.
 */
export const sqliteDeliveries = (storage: SqliteStorage): DeliveryDialect<Executor> => ({
  lockChains: async () => {},
  claiming: (query) => query,
  deliveryIdSql: "'dlv_' || lower(hex(randomblob(16)))",
  recordEvent: async (trx, event) => storage.group.within(trx, (db) => writeEventNow(db, event)),
});
