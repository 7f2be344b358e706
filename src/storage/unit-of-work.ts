import { type AnswerRecords, refuseAnswered, type UnitOfWork } from "../core/unit-of-work.js";

// The port and its one implementation are core's (core/unit-of-work.ts: the fronts make a unit,
// the domain carries it, the writes here take it); its types are named from here too for
// storage's own writes.
export type { AnswerRecords, UnitOfWork };
export { refuseAnswered };

/** Which of a write's results answer the unit of work, and with what of them; storage's own rule per write. */
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

/** The unit's records to complete for `result` (undefined without a unit, or when `result` does not answer). */
export function recordsOf<T>(
  unit: UnitOfWork | undefined,
  result: T,
  { answers, answer }: AnswerOptions<T>,
): AnswerRecords | undefined {
  if (!unit || !(answers?.(result) ?? true)) return undefined;
  return unit.recordsFor(answer ? answer(result) : result);
}
