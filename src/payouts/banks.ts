import { z } from "zod";
import type { Clock } from "../clock.js";
import type { Bank, ResolvedBankAccount, SandboxPayoutAccount } from "../core/api-types.js";
import { accountNotResolved } from "../core/money-out-errors.js";
import { parsedBy, singleParam } from "../core/validation.js";
import { bankUnavailable, ErrorCode, isAppError, validationFailed } from "../errors.js";
import { type BankDirectory, enquire, SANDBOX_PAYEES } from "../providers/bank-directory.js";

/** How long the bank list is kept before the bank is asked again. */
export const BANK_LIST_TTL_MS = 10 * 60_000;

/** GET /banks/resolve's question: an account number at a bank. */
export interface AccountAtBank {
  bankCode: string;
  accountNumber: string;
}

const BANK_CODE_MESSAGE = "bankCode must be a bank's code from GET /banks (3 to 6 digits)";
const ACCOUNT_NUMBER_MESSAGE = "accountNumber must be a string of exactly 10 digits";

/** A query parameter that must be given (once, not empty) and match `pattern`. */
function single(query: Record<string, unknown>, field: string, message: string, pattern: RegExp): string {
  const value =
    query[field] === ""
      ? undefined
      : singleParam(query, field, z.string().regex(pattern, { error: message }));
  if (value === undefined) throw validationFailed(`${field} is required`);
  return value;
}

/** GET /banks/resolve's query: `bankCode`, then `accountNumber`; the first problem is the 400. */
export const accountAtBankQuery = parsedBy(
  (query): AccountAtBank => ({
    bankCode: single(query, "bankCode", BANK_CODE_MESSAGE, /^\d{3,6}$/),
    accountNumber: single(query, "accountNumber", ACCOUNT_NUMBER_MESSAGE, /^\d{10}$/),
  }),
);

export interface BankServiceOptions {
  /** The partner bank's list and name enquiry (the embedded Virtual Bank or the HTTP bank). */
  directory: BankDirectory;
  now?: Clock;
}

/** The banks a payout can go to, and whose an account is: asked of the partner bank. */
export class BankService {
  private readonly now: Clock;
  private cached: { banks: Bank[]; until: number } | undefined;
  private loading: Promise<Bank[]> | undefined;

  constructor(private readonly options: BankServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** GET /banks: the bank's list, kept for BANK_LIST_TTL_MS (one question at a time when it runs out). */
  async list(): Promise<Bank[]> {
    if (this.cached && this.cached.until > this.now()) return this.cached.banks;
    this.loading ??= asked(this.options.directory.listBanks())
      .then((banks) => {
        this.cached = { banks, until: this.now() + BANK_LIST_TTL_MS };
        return banks;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** GET /sandbox/payout-accounts: the sandbox's destinations, each with its fixed outcome. */
  sandboxPayoutAccounts(): SandboxPayoutAccount[] {
    return SANDBOX_PAYEES.map((payee) => ({ ...payee }));
  }

  /**
   * GET /banks/resolve: the name on an account. The bank must be one of the list (400), the
   * number must carry the bank's NUBAN check digit where one applies (400: a typo is caught
   * before any bank is asked), and the bank must know the account (422 ACCOUNT_NOT_RESOLVED).
   */
  async resolve({ bankCode, accountNumber }: AccountAtBank): Promise<ResolvedBankAccount> {
    const found = await asked(enquire(this.options.directory, await this.list(), bankCode, accountNumber));
    switch (found.outcome) {
      case "unknown_bank":
        throw validationFailed(`bankCode ${bankCode} is not a bank in GET /banks`);
      case "bad_check_digit":
        throw validationFailed(
          `accountNumber ${accountNumber} is not a valid account number at ${found.bank.name}: check its digits`,
        );
      case "unresolved":
        throw accountNotResolved(found.bank.name);
      case "resolved":
        return found.account;
    }
  }
}

/** The bank's answer; its unreachability (502) in the words of money out, not of opening accounts. */
async function asked<T>(question: Promise<T>): Promise<T> {
  try {
    return await question;
  } catch (error) {
    if (isAppError(error) && error.code === ErrorCode.PROVIDER_UNAVAILABLE && error.statusCode === 502)
      throw bankUnavailable(error.cause);
    throw error;
  }
}
