import { randomBytes } from "node:crypto";

let sessions = 0;

/** A bank's notification of an NGN transfer, paid at `paidAt`; fields can be overridden. */
export function notification(
  accountNumber: string,
  amount: number,
  paidAt: string,
  overrides: Record<string, unknown> = {},
) {
  return {
    sessionId: `test-${++sessions}-${randomBytes(4).toString("hex")}`,
    accountNumber,
    amount,
    currency: "NGN",
    payer: { name: "Ada Payer", accountNumber: "0123456789", bankName: "Example Bank" },
    narration: "",
    paidAt,
    ...overrides,
  };
}
