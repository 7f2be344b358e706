import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

/** A database handle a repository may run on: the database itself or a transaction. */
export type Executor = Kysely<Database>;
