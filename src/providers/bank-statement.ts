import type { PayoutStatus } from "../core/api-types.js";
import { providerUnavailable } from "../errors.js";
import type { StatementCredit } from "./bank-protocol.js";
import type { TransferNotification } from "./transfer-notification.js";

/**
 * The bank's own record of the money that moved through the service's accounts (issue 27): what
 * reconciliation holds the ledger against, and how a credit whose notifications never arrived is
 * found. The embedded Virtual Bank and the HTTP bank both implement it.
 *
 * Implementations throw `providerUnavailable()` when the bank cannot be asked; a refusal is
 * `providerRejected(message)`.
 */
export interface BankStatement {
  /**
   * One page of the statement of [from, to) (Unix milliseconds), of at most `size` entries (the
   * protocol's most, 500, by default): `cursor` is the last page's `next`.
   */
  statementPage(window: StatementWindow, cursor: string | undefined, size?: number): Promise<StatementPage>;
  /** The bank's credit with this session id (its `orderNo`), into any of the service's accounts. */
  findCredit(sessionId: string): Promise<TransferNotification | undefined>;
}

/** A window of the statement: credits by value time, transfers out by when the bank took them. */
export interface StatementWindow {
  from: number;
  to: number;
}

export interface StatementPage {
  /** Each in the one shape every inbound transfer takes, ready for the ingestion path. */
  credits: TransferNotification[];
  debits: BankDebit[];
  /** The next page's cursor; undefined after the last. */
  next: string | undefined;
}

/** A transfer out as the bank's statement has it. */
export interface BankDebit {
  /** The service's reference: the payout's id. */
  reference: string;
  /** Kobo. */
  amount: number;
  /** Where it stands as the service reads the bank (providers/nip.ts: final only when the NIP code agrees). */
  status: PayoutStatus;
  reason: string | null;
  /** The NIP response code the bank gives it now (null: none known). */
  code: string | null;
  /** Its NIP session id (null: the bank gave none). */
  sessionId: string | null;
  /** When the bank took it (ISO 8601). */
  at: string;
}

/** Every page of the statement of `window` (of `size` entries), one at a time: never the whole statement in memory. */
export async function* statementPages(
  bank: BankStatement,
  window: StatementWindow,
  size?: number,
): AsyncGenerator<StatementPage> {
  let cursor: string | undefined;
  do {
    const page = await bank.statementPage(window, cursor, size);
    yield page;
    // A bank that answers the same cursor again would be read forever.
    if (page.next !== undefined && page.next === cursor) {
      throw providerUnavailable(new Error("the bank's statement gave the same cursor twice"));
    }
    cursor = page.next;
  } while (cursor !== undefined);
}

/** A credit of the statement (or of the credit query) as the one shape every inbound transfer takes. */
export function creditNotification(credit: Omit<StatementCredit, "type">): TransferNotification {
  return {
    sessionId: credit.orderNo,
    accountNumber: credit.virtualAccountNo,
    amount: credit.orderAmount,
    currency: credit.currency,
    payer: {
      name: credit.payerAccountName,
      accountNumber: credit.payerAccountNo,
      bankName: credit.payerBankName,
      bankCode: credit.payerBankCode ?? null,
    },
    narration: credit.narration ?? "",
    paidAt: new Date(credit.paidTime).toISOString(),
  };
}

/**
 * Where a page of a statement ended: after this credit (by value time, then id) or this transfer
 * out (by when the bank took it, then reference). Credits come first, then transfers out.
 */
export type StatementPosition =
  | { kind: "credit"; time: number; id: string }
  | { kind: "debit"; time: string; id: string };

/** Debits begin after every credit: the position before the first one. */
export const BEFORE_DEBITS: StatementPosition & { kind: "debit" } = { kind: "debit", time: "", id: "" };

/** A position as an opaque cursor. */
export const encodeCursor = (position: StatementPosition) =>
  Buffer.from(JSON.stringify(position)).toString("base64url");

/** The position a cursor names; undefined when it is not one this bank made. */
export function decodeCursor(cursor: string): StatementPosition | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as StatementPosition;
    if (value.kind === "credit" && Number.isInteger(value.time) && typeof value.id === "string") return value;
    if (value.kind === "debit" && typeof value.time === "string" && typeof value.id === "string")
      return value;
    return undefined;
  } catch {
    return undefined;
  }
}
