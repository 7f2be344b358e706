import {
  type AnswerRecords,
  type AnswerToStore,
  refuseAnswered,
  type StoredAnswer,
  type UnitOfWork,
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
  /**
   * Whether a write stored this unit's answer: a field, not a method, which storage reads before
   * a write (refused then: core/unit-of-work.ts's refuseAnswered) and only this class sets.
   */
  answered = false;

  constructor(
    private readonly storeAnswer: AnswerToStore,
    /** The bank reference claimed with the request's records, kept across its retries. */
    readonly reference: string | undefined,
  ) {}

  /** The records to complete with `answer`, taking the unit's one answer (see core/unit-of-work.ts). */
  recordsFor(answer: unknown): AnswerRecords {
    if (this.answered) refuseAnswered(this);
    this.answered = true;
    return answerRecords(this.storeAnswer(answer));
  }

  /**
   * For a write that cannot know before it runs whether it will make the effect (one statement
   * that may find nothing to do): the answer to store if it does, without taking the unit's
   * answer; `taken` takes it once the statement made the effect.
   */
  tentative(result: unknown): AnswerRecords {
    if (this.answered) refuseAnswered(this);
    return answerRecords(this.storeAnswer(result));
  }

  /** Takes the unit's answer for a write that stored it itself (see tentative). */
  taken(): void {
    this.answered = true;
  }
}

const answerRecords = (stored: StoredAnswer): AnswerRecords => ({
  statusCode: stored.statusCode,
  response: stored.response,
  kinds: stored.claims.map((claim) => claim.kind),
  keys: stored.claims.map((claim) => claim.key),
  businessIds: stored.claims.map((claim) => claim.business_id),
});
