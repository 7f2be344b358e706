import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Payout } from "../../src/core/api-types.js";
import { SANDBOX_PAYEES, type SandboxPayee } from "../../src/providers/bank-directory.js";
import { API, type Harness, type TestBusiness } from "./harness.js";

// Payouts as the tests make them: the sandbox's destinations, and POST /payouts signed as a
// business with an Idempotency-Key, as an integrator sends it.

/** Where a payout goes: a bank code and an account number there. */
export interface Destination {
  bankCode: string;
  accountNumber: string;
}

/** The sandbox's destination account whose payouts always end with `outcome` (bank-directory.ts). */
export function payee(outcome: string): SandboxPayee {
  const found = SANDBOX_PAYEES.find((p) => p.outcome === outcome);
  assert.ok(found, outcome);
  return found;
}

/** POST /payouts' body: `amount` kobo to `destination`, with `extra` fields (a reference, a narration ...). */
export const payoutTo = (destination: Destination, amount: number, extra: Record<string, unknown> = {}) => ({
  amount,
  bankCode: destination.bankCode,
  accountNumber: destination.accountNumber,
  ...extra,
});

/** POST /payouts with `body`, signed as `as`, with a new Idempotency-Key (or `key`; null: none). */
export const postPayout = (
  h: Pick<Harness, "request">,
  as: TestBusiness,
  body: unknown,
  key: string | null = randomUUID(),
) =>
  h.request({
    url: `${API}/payouts`,
    body,
    as,
    headers: key === null ? {} : { "idempotency-key": key },
  });

/** A payout of `amount` kobo to `destination`, made by `as`: answered 202, the payout. */
export async function makePayout(
  h: Pick<Harness, "request">,
  as: TestBusiness,
  destination: Destination,
  amount: number,
): Promise<Payout> {
  const response = await postPayout(h, as, payoutTo(destination, amount));
  assert.equal(response.statusCode, 202, response.body);
  return (response.json() as { data: Payout }).data;
}
