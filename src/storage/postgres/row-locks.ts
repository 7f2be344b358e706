import { sql } from "kysely";
import type { RowLocks } from "../../core/row-locks.js";

/** PostgreSQL: the rows read are taken (`FOR UPDATE`) until the transaction ends. */
export const postgresRowLocks: RowLocks = {
  locking: (query) => query.modifyEnd(sql`for update`),
};
