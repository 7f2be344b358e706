// A request's unit of work as every floor sees it: the front that answers the request makes one
// (http/unit-of-work.ts, its one implementation, beside its one maker), the domain hands it to
// the one write it makes, and storage's write stores the request's answer with its effect.
// Declared here, not in storage nor in a domain room, because all three floors name it: the
// domain and the fronts may not depend on storage's class, and storage may not import the domain.

/** Which of a request's keys a record holds: its signature (replays) or its Idempotency-Key. */
export type RequestRecordKind = "signature" | "idempotency";

/** A request record's key, as a claim holds it (the columns of its primary key). */
export interface RecordKey {
  business_id: string;
  kind: RequestRecordKind;
  key: string;
}

/** The answer a request stores for its keys. */
export interface StoredAnswer {
  claims: RecordKey[];
  statusCode: number;
  response: string;
}

/** The request records a write completes with its effect, and the answer, column by column. */
export interface AnswerRecords {
  statusCode: number;
  response: string;
  kinds: string[];
  keys: string[];
  businessIds: string[];
}

/**
 * A request's unit of work: handed to the domain as an argument, which hands it to the one write
 * it makes. That write also stores the request's answer under its replay and Idempotency-Key
 * records, inside its own transaction, so the effect and the memory of it commit or roll back
 * together. A unit of work answers once: a second answering write is refused before it runs.
 */
export interface UnitOfWork {
  /** The bank reference claimed with the request's records, kept across its retries. */
  readonly reference: string | undefined;
  /** Whether a write stored this unit's answer: a write refuses to start then (refuseAnswered). */
  readonly answered: boolean;
  /**
   * The records to complete with `answer` (what the write's result answers: storage's writes
   * decide which results answer, and with what of them), taking the unit's one answer: called by
   * the write, inside its transaction, just before it commits.
   */
  recordsFor(answer: unknown): AnswerRecords;
  /**
   * For a write that cannot know before it runs whether it will make the effect (one statement
   * that may find nothing to do): the answer to store if it does, without taking the unit's answer.
   */
  tentative(result: unknown): AnswerRecords;
  /** Takes the unit's answer for a write that stored it itself (see tentative). */
  taken(): void;
}

/** The answer a request stores for its keys, computed from what its write produced. */
export type AnswerToStore = (result: unknown) => StoredAnswer;

/**
 * Refuses a write that would start after `unit` was answered, before it runs: a unit of work
 * makes one write transaction. Storage's writes run it first; the unit again when it answers.
 */
export function refuseAnswered(unit: Pick<UnitOfWork, "answered"> | undefined): void {
  if (unit?.answered) throw new Error("a unit of work makes one write transaction");
}
