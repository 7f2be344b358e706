// How the dialect takes the rows a cold-path transaction reads: here, in the core, because
// storage's functions take it as an argument and the domain picks whether to pass it (a payout
// takes its business's row); one implementation per dialect in storage, chosen in compose/.

/** A query the dialect may end with a modifier of its own (storage's query builder's). */
export interface Modifiable<Q> {
  modifyEnd(modifier: unknown): Q;
}

/**
 * What taking rows for the rest of a transaction needs of the dialect: PostgreSQL's `FOR UPDATE`
 * (storage's sqlite/ and postgres/row-locks.ts); SQLite's write transactions run one at a time
 * and need none.
 */
export interface RowLocks {
  locking<Q extends Modifiable<Q>>(query: Q): Q;
}
