import type {
  AnswerOptions,
  AnswerRecords,
  AnswerToStore,
  StoredAnswer,
  UnitOfWork,
} from "../core/unit-of-work.js";

/**
 * A request's unit of work: made by the front that answers the request (http/request-guard.ts)
 * and handed to the domain as an argument, which hands
 * it to the one write it makes. That write also stores the request's answer under its replay and
 * Idempotency-Key records, inside its own transaction, so the effect and the memory of it commit
 * or roll back together. A unit of work answers once: a second answering write is refused before
 * it runs.
 */
export class RequestUnitOfWork implements UnitOfWork {
  #answered = false;

  constructor(
    private readonly storeAnswer: AnswerToStore,
    /** The bank reference claimed with the request's records, kept across its retries. */
    readonly reference: string | undefined,
  ) {}

  /** Whether a write stored this unit's answer. */
  get answered(): boolean {
    return this.#answered;
  }

  /** Refuses a write that would start after this unit of work was answered. */
  assertOpen(): void {
    if (this.#answered) throw new Error("a unit of work makes one write transaction");
  }

  /**
   * The answer to store with `result` (undefined when this result does not answer), taking the
   * unit's one answer: called by the write, inside its transaction, just before it commits.
   */
  answerFor<T>(result: T, options: AnswerOptions<T> = {}): StoredAnswer | undefined {
    if (!(options.answers?.(result) ?? true)) return undefined;
    this.assertOpen();
    this.#answered = true;
    return this.storeAnswer(options.answer ? options.answer(result) : result);
  }

  /** As answerFor, column by column for a PostgreSQL statement that completes the records itself. */
  recordsFor<T>(result: T, options: AnswerOptions<T> = {}): AnswerRecords | undefined {
    const stored = this.answerFor(result, options);
    return stored && answerRecords(stored);
  }

  /**
   * For a write that cannot know before it runs whether it will make the effect (one statement
   * that may find nothing to do): the answer to store if it does, without taking the unit's
   * answer; `taken` takes it once the statement made the effect.
   */
  tentative(result: unknown): AnswerRecords {
    this.assertOpen();
    return answerRecords(this.storeAnswer(result));
  }

  /** Takes the unit's answer for a write that stored it itself (see tentative). */
  taken(): void {
    this.#answered = true;
  }
}

const answerRecords = (stored: StoredAnswer): AnswerRecords => ({
  statusCode: stored.statusCode,
  response: stored.response,
  kinds: stored.claims.map((claim) => claim.kind),
  keys: stored.claims.map((claim) => claim.key),
  businessIds: stored.claims.map((claim) => claim.business_id),
});
