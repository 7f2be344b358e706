import { z } from "zod";
import { accountNumberSchema } from "../accounts/validation.js";
import type { PayoutInput, PayoutStatus } from "../core/api-types.js";
import {
  fieldsRule,
  type ListQuery,
  parsedBy,
  parseListQuery,
  queryRange,
  singleParam,
} from "../core/validation.js";
import { displayTextSchema } from "../display-name.js";
import { koboSchema } from "../ledger/kobo.js";
import { NIP_SESSION_ID } from "../providers/nip.js";

// The inputs of money out: a payout's body and the payouts query. Bad input is a 400 naming the
// field; the limits (PAYOUT_LIMIT_EXCEEDED) and the balance (INSUFFICIENT_BALANCE) are 422s,
// decided after the name enquiry.

/** The longest narration a payout carries (what most banks show the receiver). */
export const MAX_PAYOUT_NARRATION_LENGTH = 100;
/** A business's own reference: visible ASCII letters, digits and `. _ : -`, like a bank's. */
export const PAYOUT_REFERENCE = /^[A-Za-z0-9._:-]{1,100}$/;
/** A payout's id as the API gives it; anything else cannot exist. */
export const PAYOUT_ID = /^po_[0-9a-f]{32}$/;
/** The narration a payout carries when the business gives none. */
export const DEFAULT_PAYOUT_NARRATION = "Payout";

export const PAYOUT_STATUSES: readonly PayoutStatus[] = ["pending", "successful", "failed", "reversed"];

/** Each field's rule, as the API applies it (the dashboard's form words its refusals by label). */
export const PAYOUT_FIELDS = {
  // The largest single payout is an operator's limit (422); this bound keeps every sum exact.
  amount: koboSchema("amount", Number.MAX_SAFE_INTEGER),
  bankCode: z
    .string({ error: "bankCode must be a string" })
    .regex(/^\d{3,6}$/, { error: "bankCode must be a bank's code from GET /banks (3 to 6 digits)" }),
  accountNumber: accountNumberSchema("accountNumber"),
  narration: displayTextSchema("narration", MAX_PAYOUT_NARRATION_LENGTH, "refuse"),
  reference: z
    .string({ error: "reference must be a string" })
    .regex(PAYOUT_REFERENCE, { error: "reference must be 1 to 100 of A-Z a-z 0-9 . _ : -" }),
};

/** POST /payouts: amount, bankCode, accountNumber, then the optional narration and reference. */
const { amount, bankCode, accountNumber, narration, reference } = PAYOUT_FIELDS;
export const parsePayout: (body: Record<string, unknown>) => PayoutInput = fieldsRule(
  { amount, bankCode, accountNumber },
  { narration, reference },
);

export interface PayoutQuery extends ListQuery {
  status?: PayoutStatus;
  from?: string;
  to?: string;
  sessionId?: string;
}

/** GET /payouts: page, limit, status, and a range of creation times. */
export function parsePayoutQuery(query: Record<string, unknown>): PayoutQuery {
  const parsed: PayoutQuery = parseListQuery(query);
  const status = singleParam(
    query,
    "status",
    z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]], {
      error: `status must be ${PAYOUT_STATUSES.join(", ")}`,
    }),
  );
  if (status !== undefined) parsed.status = status;
  const sessionId = singleParam(
    query,
    "sessionId",
    z.string().regex(NIP_SESSION_ID, { error: "sessionId must be a NIP session id: 30 digits" }),
  );
  if (sessionId !== undefined) parsed.sessionId = sessionId;
  return { ...parsed, ...queryRange(query) };
}

export const payoutInput = parsedBy(parsePayout);
export const payoutQuery = parsedBy(parsePayoutQuery);
