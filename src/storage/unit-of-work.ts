import type { AnswerOptions, AnswerRecords, UnitOfWork } from "../core/unit-of-work.js";

// The port and its one implementation are core's (core/unit-of-work.ts: the fronts make a unit,
// the domain carries it, the writes here take it); its types are named from here too for
// storage's own writes.
export type { AnswerOptions, AnswerRecords, UnitOfWork };
