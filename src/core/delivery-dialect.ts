// What delivering events in chains needs of the database's dialect: here, in the core, because
// storage's delivery functions take it as an argument and the domain services that record events
// and deliver them hold it; one implementation per dialect in storage (sqlite/ and
// postgres/deliveries.ts), chosen once in compose/ with the stores. `Tx` is storage's transaction.
import type { EventToWrite, WrittenEvent } from "./event-to-write.js";
import type { Modifiable } from "./row-locks.js";

/** What chaining, claiming and requeueing webhook deliveries, and writing an event, need of the dialect. */
export interface DeliveryDialect<Tx> {
  /**
   * Takes the chains' locks before a chain is read or handed on. Both sides of a hand-off take
   * them: the event that joins the chain and the settling delivery that schedules the next one.
   */
  lockChains(db: Tx, endpointIds: readonly string[], accountNumber: string): Promise<void>;
  /** The claim's read, made to take the deliveries it reads, so concurrent claimers take different ones. */
  claiming<Q extends Modifiable<Q>>(query: Q): Q;
  /** The dialect's SQL for a new delivery's id (`dlv_` and 32 random hex digits), for each row a statement inserts. */
  readonly deliveryIdSql: string;
  /**
   * Writes the event (the business's next sequence) and one pending delivery per target, joining
   * its account's chains, in the caller's transaction: with the statements the hot path's writes
   * use, so an event is spelled once per dialect.
   */
  recordEvent(db: Tx, event: EventToWrite): Promise<WrittenEvent>;
}
