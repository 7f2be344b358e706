import { accountStatus } from "../accounts/account-status.js";
import { DEFAULT_AMOUNT_POLICY, policyRefusal } from "../accounts/amount-policy.js";
import { type AppError, transferRefused } from "../errors.js";
import { formatNaira } from "../ledger/kobo.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import type { AccountRow } from "../storage/schema.js";

/** The one currency accepted. */
export const CURRENCY = "NGN";

/** What the rules look at: the account the number belongs to (if any) and that number's retirement. */
export interface Destination {
  account: AccountRow;
  retiredAt: string | null;
}

/**
 * Applies the acceptance rules (docs/api.md, "Inbound transfers") in the order they are
 * checked: returns the destination to credit, or throws the first rule's refusal.
 */
export function accept<D extends Destination>(
  notification: Pick<TransferNotification, "amount" | "currency" | "accountNumber">,
  destination: D | undefined,
  now: number,
  maxTransferKobo: number,
): D {
  const refusal = refusalOf(notification, destination, now, maxTransferKobo);
  if (refusal) throw refusal;
  return destination as D;
}

function refusalOf(
  notification: Pick<TransferNotification, "amount" | "currency" | "accountNumber">,
  destination: Destination | undefined,
  now: number,
  maxTransferKobo: number,
): AppError | undefined {
  if (notification.currency !== CURRENCY) {
    return transferRefused(
      "CURRENCY_NOT_SUPPORTED",
      `only ${CURRENCY} is accepted, not ${notification.currency}`,
    );
  }
  if (notification.amount > maxTransferKobo) {
    return transferRefused(
      "AMOUNT_ABOVE_LIMIT",
      `${notification.amount} kobo is above the limit of ${maxTransferKobo} kobo (${formatNaira(maxTransferKobo)})`,
    );
  }
  if (!destination)
    return transferRefused("UNKNOWN_ACCOUNT", `no account has number ${notification.accountNumber}`);
  const { account, retiredAt } = destination;
  if (retiredAt !== null) {
    return transferRefused("ACCOUNT_RETIRED", `${notification.accountNumber} was replaced by a newer number`);
  }
  switch (accountStatus(account, now)) {
    case "deactivated":
      return transferRefused("ACCOUNT_DEACTIVATED", `account ${notification.accountNumber} is deactivated`);
    case "expired":
      return transferRefused(
        "ACCOUNT_EXPIRED",
        `account ${notification.accountNumber} expired at ${account.expires_at}`,
      );
    case "active":
      break;
  }
  if (account.expected_amount === null) return undefined;
  const expected = Number(account.expected_amount);
  const refusal = policyRefusal(
    account.amount_policy ?? DEFAULT_AMOUNT_POLICY,
    expected,
    Number(account.total_received),
    Number(account.transfer_count),
    notification.amount,
  );
  if (refusal?.code === "ALREADY_PAID")
    return transferRefused("ALREADY_PAID", `account ${notification.accountNumber} has already been paid`);
  if (refusal?.code === "AMOUNT_MISMATCH") {
    return transferRefused(
      "AMOUNT_MISMATCH",
      `account ${notification.accountNumber} accepts ${refusal.accepts} ${expected} kobo (${formatNaira(expected)}), not ${notification.amount}`,
    );
  }
  return undefined;
}
