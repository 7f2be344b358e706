import { type Actor, isOperator } from "../core/actor.js";
import type { VerificationStatus } from "../core/business-states.js";
import type { OperatorRole } from "../core/people.js";
import { formTextSchema } from "../display-name.js";
import { AppError, ErrorCode } from "../errors.js";

/**
 * The verification lifecycle. The specification names the four statuses and leaves the
 * transitions open; these are the ones a business and an operator can make:
 *
 *   not_submitted --submit--> in_progress --approve--> completed
 *                                  |  ^                    |
 *                           reject |  | resubmit          | suspend
 *                                  v  |                    v
 *                                 rejected <---------------+
 *
 * A business submits and resubmits its details; an operator approves or rejects (with a reason)
 * what is in review; only an admin operator (or the CLI, run by whoever runs the service) moves a
 * business out of `completed`, whatever the move is called: suspending freezes a verified
 * business's money and keys. Nothing else moves a status.
 */
const TRANSITIONS: ReadonlyArray<{
  name: string;
  from: VerificationStatus;
  to: VerificationStatus;
  by: "business" | "operator" | "admin";
  needsReason: boolean;
}> = [
  { name: "submit", from: "not_submitted", to: "in_progress", by: "business", needsReason: false },
  { name: "resubmit", from: "rejected", to: "in_progress", by: "business", needsReason: false },
  { name: "approve", from: "in_progress", to: "completed", by: "operator", needsReason: false },
  { name: "reject", from: "in_progress", to: "rejected", by: "operator", needsReason: true },
  { name: "suspend", from: "completed", to: "rejected", by: "admin", needsReason: true },
];

export const MAX_REASON_LENGTH = 500;

/** A reason, shown to the business: typed into a form, so its line breaks fold into spaces. */
const reasonSchema = formTextSchema("the reason", MAX_REASON_LENGTH);

const refused = (message: string) => new AppError(ErrorCode.CONFLICT, 409, message);

/**
 * The checked transition from `from` to `to` by `actor`, or an AppError: 409 for a move the
 * lifecycle does not allow (or this actor may not make), 400 for a missing reason or one that
 * breaks the display-text rule (control or bidi-control characters, too long).
 * Operators (and the CLI) may also submit on a business's behalf. `operatorRole` is the acting
 * operator's role, read with the change (null for anyone else): an admin's move refuses a reviewer.
 */
export function checkTransition(
  from: VerificationStatus,
  to: VerificationStatus,
  actor: Actor,
  reason: string | undefined,
  operatorRole: OperatorRole | null = null,
): { name: string; reason: string | null } {
  const transition = TRANSITIONS.find((t) => t.from === from && t.to === to);
  if (!transition) {
    const allowed = TRANSITIONS.filter((t) => t.from === from).map((t) => `${t.to} (${t.name})`);
    throw refused(
      `a business cannot go from ${from} to ${to}${allowed.length > 0 ? `; from ${from} it can go to ${allowed.join(", ")}` : ""}`,
    );
  }
  if (transition.by !== "business" && !isOperator(actor))
    throw refused(`only an operator can ${transition.name}`);
  if (transition.by === "admin" && actor.type === "operator" && operatorRole !== "admin") {
    throw new AppError(
      ErrorCode.FORBIDDEN,
      403,
      `Only an admin operator can ${transition.name} a verified business: a reviewer approves and rejects what is in review.`,
    );
  }
  if (transition.by === "business" && actor.type === "api_key")
    throw refused(`an API key cannot ${transition.name}`);
  const parsed = reasonSchema.safeParse(reason ?? "");
  if (!parsed.success) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 400, parsed.error.issues[0]?.message ?? "invalid reason");
  }
  const text = parsed.data;
  if (transition.needsReason && text === "") {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 400, `a reason is required to ${transition.name}`);
  }
  return { name: transition.name, reason: text === "" ? null : text };
}
