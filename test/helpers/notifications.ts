import { type KeyObject, randomBytes } from "node:crypto";
import { envelope } from "../../src/providers/bank-protocol.js";
import { signParams } from "../../src/providers/bank-signing.js";

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

/**
 * A bank's notification as it is sent over the bank protocol (PROVIDER=http): a payment of
 * NGN 1,000 into `virtualAccountNo` by Chidi Eze, fresh, signed with `key` (the bank's private
 * key); fields can be overridden (or left out, with undefined) before signing.
 */
export function signedBankNotification(
  appId: string,
  virtualAccountNo: string,
  key: KeyObject,
  overrides: Record<string, unknown> = {},
) {
  const unsigned = {
    appId,
    orderNo: `T${randomBytes(6).toString("hex")}`,
    virtualAccountNo,
    orderAmount: 1_000_00,
    currency: "NGN",
    payerAccountName: "Chidi Eze",
    payerAccountNo: "0123456789",
    payerBankName: "Other Bank",
    narration: "rent",
    paidTime: Date.now(),
    ...envelope(Date.now()),
    ...overrides,
  };
  // An override of undefined leaves the field out, as a bank that does not send it would.
  for (const [field, value] of Object.entries(unsigned)) {
    if (value === undefined) delete (unsigned as Record<string, unknown>)[field];
  }
  return { ...unsigned, sign: signParams(unsigned, key) };
}
