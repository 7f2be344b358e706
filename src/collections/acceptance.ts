import { accountStatus } from "../accounts/account-status.js";
import { allowedPayersOf, payerAllowed } from "../accounts/allowed-payers.js";
import { DEFAULT_AMOUNT_POLICY, policyRefusal } from "../accounts/amount-policy.js";
import { type AppError, transferRefused } from "../errors.js";
import type { LedgerAccountKind } from "../ledger/kinds.js";
import { formatNaira } from "../ledger/kobo.js";
import type { CreditedAccount } from "../ledger/ledger-records.js";
import { MAX_BALANCE_KOBO } from "../ledger/posting.js";
import type { TransferNotification } from "../providers/transfer-notification.js";

/** The one currency accepted. */
export const CURRENCY = "NGN";

/** What the rules look at: the account the number belongs to (if any) and that number's retirement. */
export interface Destination {
  account: CreditedAccount;
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
  return undefined;
}

/** A credit the account's own rules do not take: from a payer it does not name, or an amount its policy refuses. */
export interface Mismatch {
  code: "PAYER_NOT_ALLOWED" | "AMOUNT_MISMATCH" | "ALREADY_PAID";
  message: string;
}

/**
 * The account's own rules (issue 46, item 6), after the rules above and the tier's limits: who may
 * pay (allowedPayers), then its expected amount's policy. What a mismatch becomes is the account's
 * `on_mismatch` (declined or held): the caller's decision. A held credit counts as a transfer (its
 * ordinal) but not as paid, so an account whose total received is zero has been paid nothing.
 */
export function mismatchOf(
  notification: Pick<TransferNotification, "amount" | "accountNumber" | "payer">,
  account: CreditedAccount,
): Mismatch | undefined {
  if (!payerAllowed(allowedPayersOf(account.allowed_payers), notification.payer)) {
    return {
      code: "PAYER_NOT_ALLOWED",
      message: `account ${notification.accountNumber} does not take transfers from ${notification.payer.name} (${notification.payer.accountNumber})`,
    };
  }
  if (account.expected_amount === null) return undefined;
  const expected = Number(account.expected_amount);
  const paid = Number(account.total_received);
  const refusal = policyRefusal(
    account.amount_policy ?? DEFAULT_AMOUNT_POLICY,
    expected,
    paid,
    paid > 0 ? Number(account.transfer_count) : 0,
    notification.amount,
  );
  if (refusal?.code === "ALREADY_PAID")
    return { code: "ALREADY_PAID", message: `account ${notification.accountNumber} has already been paid` };
  if (refusal?.code === "AMOUNT_MISMATCH") {
    return {
      code: "AMOUNT_MISMATCH",
      message: `account ${notification.accountNumber} accepts ${refusal.accepts} ${expected} kobo (${formatNaira(expected)}), not ${notification.amount}`,
    };
  }
  return undefined;
}

/** What each ledger account's balance is to the business, for a refusal's message. */
const BALANCE_NAMES: Record<LedgerAccountKind, string> = {
  settlement: "total received",
  available: "available balance",
  pending: "pending payouts",
  paid_out: "total paid out",
  revenue: "total fees",
  vat_payable: "VAT collected",
  stamp_duty_payable: "stamp duty collected",
  held: "held balance",
};

/**
 * The last acceptance rule, checked on what the transfer would post (the ledger's postTransfer
 * answers what it would carry too far): every balance and total it moves (the business's ledger
 * accounts, the account's total received) stays within MAX_BALANCE_KOBO, so each stays exact in
 * every answer. Refused as AMOUNT_ABOVE_LIMIT, a 422 the bank does not retry (it reverses the
 * transfer): a failure here would be a 500, which the bank retries until it gives up, neither
 * crediting nor reversing.
 */
export function beyondLimitRefusal(
  transfer: Pick<TransferNotification, "amount" | "accountNumber">,
  beyond: LedgerAccountKind | "received",
): AppError {
  const what =
    beyond === "received"
      ? `the total received into account ${transfer.accountNumber}`
      : `the business's ${BALANCE_NAMES[beyond]}`;
  return transferRefused(
    "AMOUNT_ABOVE_LIMIT",
    `${transfer.amount} kobo would carry ${what} past ${MAX_BALANCE_KOBO} kobo, the most a balance can hold`,
  );
}
