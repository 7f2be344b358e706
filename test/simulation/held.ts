import { Model, type ModelBusiness, type ModelTransaction, type PayoutOutcome } from "./model.js";

// The model's side of a held credit's decision (issue 46, item 6), restated from docs/api.md and
// docs/ledger.md: accepted, it takes the fee and charges in force now and moves its net from held
// to available; returned, its whole amount leaves held for pending as a refund with no fee, which
// the bank pays (paid out) or refuses (back to held, the credit held again: Model.finishPayouts).
// Each decision is once: anything but a credit held now is CREDIT_NOT_HELD.

/** What a decision on a held credit answers, as the model names it. */
export type HeldAnswer = "accepted" | "returned" | "CREDIT_NOT_HELD";

/** The credit that came in held with this session id, its business and its statement line, if held now. */
function heldNow(model: Model, sessionId: string) {
  const decision = model.decisions.get(sessionId);
  if (decision?.state !== "held") return undefined;
  const business = model.businesses[decision.businessIndex] as ModelBusiness;
  const line = business.transactions.find((t) => t.sessionId === sessionId) as ModelTransaction;
  return { decision, business, line };
}

/** Accepts a held credit: its fee (the business's schedule now) and charges (the operator's now) taken, its net to available. */
export function acceptHeld(model: Model, sessionId: string): HeldAnswer {
  const found = heldNow(model, sessionId);
  if (!found) return "CREDIT_NOT_HELD";
  const { decision, business, line } = found;
  const fee = Model.fee(line.amount, business.fee);
  const vat = model.vat(fee);
  const stampDuty = model.stampDuty(line.amount, false);
  business.held -= line.amount;
  business.available += line.amount - fee - vat - stampDuty;
  business.fees += fee;
  business.vat += vat;
  business.stampDuty += stampDuty;
  // Its statement line shows what its acceptance took; its balance after stays what it found.
  line.fee = fee;
  line.charges = Model.lines(vat, stampDuty);
  decision.state = "accepted";
  model.heldSessions.delete(sessionId);
  return "accepted";
}

/** Returns a held credit to its payer, whose bank does `outcome`: a refund of all of it, from held, no fee. */
export function returnHeld(model: Model, sessionId: string, outcome: PayoutOutcome): HeldAnswer {
  const found = heldNow(model, sessionId);
  if (!found) return "CREDIT_NOT_HELD";
  const { decision, business, line } = found;
  business.held -= line.amount;
  business.pending += line.amount;
  business.payouts.push({
    kind: "refund",
    amount: line.amount,
    fee: 0,
    vat: 0,
    stampDuty: 0,
    outcome,
    status: "pending",
    refundOf: sessionId,
    source: "held",
  });
  decision.state = "returned";
  return "returned";
}
