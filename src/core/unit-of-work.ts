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

/** What a write may do with a unit of work's answer: whether `result` answers, and with what of it. */
export interface AnswerOptions<T> {
  /**
   * Whether this result is the unit of work's answer (default: always). A write that found it had
   * nothing to do (and wrote nothing) answers false, and the unit of work may then make the write
   * that does answer.
   */
  answers?: (result: T) => boolean;
  /** What of the result the unit of work answers with (default: the whole result). */
  answer?: (result: T) => unknown;
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
  /** Whether a write stored this unit's answer. */
  readonly answered: boolean;
  /** Refuses a write that would start after this unit of work was answered. */
  assertOpen(): void;
  /**
   * The answer to store with `result` (undefined when this result does not answer), taking the
   * unit's one answer: called by the write, inside its transaction, just before it commits.
   */
  answerFor<T>(result: T, options?: AnswerOptions<T>): StoredAnswer | undefined;
  /** As answerFor, column by column for a PostgreSQL statement that completes the records itself. */
  recordsFor<T>(result: T, options?: AnswerOptions<T>): AnswerRecords | undefined;
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
