import { sql } from "kysely";
import type { DeliveryDialect } from "../delivery-repository.js";

/**
 * SQLite: a write transaction runs alone (BEGIN IMMEDIATE), so a chain's hand-off and a claim
 * need no lock of their own.
 */
export const sqliteDeliveries: DeliveryDialect = {
  lockChains: async () => {},
  claiming: (query) => query,
  newDeliveryId: sql<string>`'dlv_' || lower(hex(randomblob(16)))`,
};
