import { setTimeout as sleep } from "node:timers/promises";
import { BrokenCircuitError } from "cockatiel";
import type { Bank } from "../core/api-types.js";
import { providerOutcomeUnknown, providerUnavailable } from "../errors.js";
import type {
  AccountProvider,
  IdentityRegistry,
  IdentityRequest,
  IssuedVirtualAccount,
  VirtualAccountRequest,
} from "./account-provider.js";
import {
  BankCaller,
  type BankCallerOptions,
  type BreakerState,
  isUnreachable,
  refusedUnlessSuccess,
} from "./bank-caller.js";
import type { BankDirectory } from "./bank-directory.js";
import {
  BANK_PATHS,
  type BankAccountData,
  bankAccountSchema,
  bankListSchema,
  IDENTITY_PATH,
  identityAnswerSchema,
  nameEnquiryAnswerSchema,
  RESP_CODE,
  STATEMENT_PAGE_MAX,
  statementCreditSchema,
  statementPageSchema,
  transferAnswerOf,
  transferStateSchema,
} from "./bank-protocol.js";
import {
  type BankStatement,
  creditNotification,
  type StatementPage,
  type StatementWindow,
} from "./bank-statement.js";
import { DEFAULT_NIP_READING, type NipReading } from "./nip.js";
import {
  type BankPayoutState,
  type PayoutRail,
  readTransferAnswer,
  type TransferOutRequest,
} from "./payout-rail.js";
import type { TransferNotification } from "./transfer-notification.js";

// The AccountProvider of a real bank over HTTP (issue 14). Every call is signed, bounded by a
// timeout and runs through one circuit breaker (bank-caller.ts); a create is retried with the
// same accountReference (the bank opens at most one account per reference), and after any
// failure that may hide a completed create, the bank is asked for the reference before creating
// again.

export interface HttpBankOptions extends BankCallerOptions {
  /** The name account holders see (the spec's bankName). */
  bankName: string;
  /** Creates tried per account (with queries between them) before giving up. */
  createAttempts: number;
  /** The longest one account's opening may take, retries included, in milliseconds. */
  createBudgetMs: number;
  /** Pause before a retry, in milliseconds (doubles each time). */
  retryDelayMs?: number;
  /** How its NIP codes are read (NIP_UNKNOWN_CODES); the table alone by default. */
  nipReading?: NipReading;
}

export type { BreakerState };

export class HttpBank implements AccountProvider, IdentityRegistry, BankDirectory, PayoutRail, BankStatement {
  readonly bankName: string;
  private readonly caller: BankCaller;
  private readonly nipReading: NipReading;

  constructor(private readonly options: HttpBankOptions) {
    this.bankName = options.bankName;
    this.nipReading = options.nipReading ?? DEFAULT_NIP_READING;
    this.caller = new BankCaller(options);
  }

  /** The breaker's state, for the metrics. */
  get breakerState(): BreakerState {
    return this.caller.breakerState;
  }

  /** Calls `listener` when the breaker opens, probes or closes (the metrics, the log); returns how to stop. */
  onBreakerChange(listener: (state: BreakerState) => void): () => void {
    return this.caller.onBreakerChange(listener);
  }

  /**
   * Opens the account: a create, and after a failure that may hide a completed one (no answer,
   * a 5xx, "busy"), a query by the reference, then a create again with the same reference,
   * within BANK_CREATE_ATTEMPTS and BANK_CREATE_BUDGET_MS. Each answer must be an enabled
   * account for the reference sent.
   */
  async createVirtualAccount(request: VirtualAccountRequest): Promise<IssuedVirtualAccount> {
    const deadline = performance.now() + this.options.createBudgetMs;
    const reference = request.accountReference;
    let lastFailure: unknown;
    let maybeOpened = false;
    for (let attempt = 1; attempt <= this.options.createAttempts; attempt++) {
      let creating = false;
      try {
        if (attempt > 1) {
          const delay = (this.options.retryDelayMs ?? 200) * 2 ** (attempt - 2);
          // No retry that could not finish in the budget: the client is waiting.
          if (performance.now() + delay + this.options.timeoutMs > deadline) break;
          await sleep(delay);
          // The last create may have opened the account before its answer was lost.
          const found = await this.lookup(reference);
          if (found) return issued(enabled(found));
        }
        creating = true;
        const answer = refusedUnlessSuccess(await this.caller.call(BANK_PATHS.create, { ...request }));
        return issued(enabled(accountData(answer, reference)));
      } catch (error) {
        if (!isUnreachable(error)) {
          // The breaker opened during this request, after a create that may have reached the bank.
          if (error instanceof BrokenCircuitError && maybeOpened) throw providerOutcomeUnknown(lastFailure);
          throw this.caller.translate(error);
        }
        // A create sent without an answer (a timeout, a 5xx) may have opened the account.
        if (creating) maybeOpened = true;
        lastFailure = error;
      }
    }
    throw maybeOpened ? providerOutcomeUnknown(lastFailure) : this.caller.translate(lastFailure);
  }

  async findByReference(accountReference: string): Promise<IssuedVirtualAccount | undefined> {
    const found = await this.lookup(accountReference);
    return found && issued(found);
  }

  /** The bank's account for the reference, whatever its status; undefined when none was opened. */
  private async lookup(accountReference: string): Promise<BankAccountData | undefined> {
    const answer = await this.caller.call(BANK_PATHS.query, { accountReference });
    if (answer.respCode === RESP_CODE.accountNotFound) return undefined;
    return accountData(refusedUnlessSuccess(answer), accountReference);
  }

  async setAccountEnabled(accountNumber: string, enabled: boolean): Promise<void> {
    // Setting a status twice is harmless: asked again when an answer is lost on the way.
    await this.caller.ask(BANK_PATHS.update, {
      virtualAccountNo: accountNumber,
      status: enabled ? "Enabled" : "Disabled",
    });
  }

  /** The bank's list of banks a payout can go to. */
  async listBanks(): Promise<Bank[]> {
    const data = await this.caller.ask(BANK_PATHS.banks, {});
    const parsed = bankListSchema.safeParse(data);
    if (!parsed.success)
      throw providerUnavailable(new Error("the bank answered a bank list outside the protocol"));
    return parsed.data.map(({ bankCode, bankName }) => ({ code: bankCode, name: bankName }));
  }

  /** Name enquiry: the name on the account, or undefined when the bank knows no such account. */
  /** The identity call (bank-protocol.ts): the name on the bank's record of the number, if any. */
  async identityName(request: IdentityRequest): Promise<string | undefined> {
    const data = await this.caller.ask(IDENTITY_PATH, { ...request }, true);
    if (data === undefined) return undefined;
    const parsed = identityAnswerSchema.safeParse(data);
    if (
      !parsed.success ||
      parsed.data.identityType !== request.identityType ||
      parsed.data.licenseNumber !== request.licenseNumber
    ) {
      throw providerUnavailable(new Error("the bank answered an identity call outside the protocol"));
    }
    return parsed.data.registeredName;
  }

  async resolveAccount(bankCode: string, accountNumber: string): Promise<string | undefined> {
    const data = await this.caller.ask(BANK_PATHS.nameEnquiry, { bankCode, accountNo: accountNumber }, true);
    if (data === undefined) return undefined;
    const parsed = nameEnquiryAnswerSchema.safeParse(data);
    if (!parsed.success || parsed.data.bankCode !== bankCode || parsed.data.accountNo !== accountNumber) {
      throw providerUnavailable(new Error("the bank answered a name enquiry outside the protocol"));
    }
    return parsed.data.accountName;
  }

  /**
   * A transfer out, keyed by the service's reference: the bank executes a reference once, so a
   * lost answer is asked again with the same one. A refusal of the transfer itself is
   * `providerRejected`; anything unanswered leaves it to the tracker's next query.
   */
  async transferOut(request: TransferOutRequest): Promise<BankPayoutState> {
    const data = await this.caller.ask(BANK_PATHS.transferOut, {
      orderId: request.reference,
      amount: request.amount,
      currency: "NGN",
      bankCode: request.bankCode,
      accountNo: request.accountNumber,
      accountName: request.accountName,
      remark: request.narration,
    });
    return transferState(data, request.reference, this.nipReading);
  }

  async queryTransfer(reference: string): Promise<BankPayoutState | undefined> {
    const data = await this.caller.ask(BANK_PATHS.transferQuery, { orderId: reference }, true);
    return data === undefined ? undefined : transferState(data, reference, this.nipReading);
  }

  /** One page of the bank's statement of the window; its entries must be the protocol's. */
  async statementPage(
    window: StatementWindow,
    cursor: string | undefined,
    size = STATEMENT_PAGE_MAX,
  ): Promise<StatementPage> {
    const data = await this.caller.ask(BANK_PATHS.statement, {
      startTime: window.from,
      endTime: window.to,
      pageSize: size,
      ...(cursor === undefined ? {} : { cursor }),
    });
    const parsed = statementPageSchema.safeParse(data);
    if (!parsed.success)
      throw providerUnavailable(new Error("the bank answered a statement outside the protocol"));
    const page: StatementPage = { credits: [], debits: [], next: parsed.data.nextCursor ?? undefined };
    for (const entry of parsed.data.entries) {
      if (entry.type === "CREDIT") page.credits.push(creditNotification(entry));
      else {
        const state = readTransferAnswer(transferAnswerOf(entry), this.nipReading);
        page.debits.push({
          reference: entry.orderId,
          amount: entry.amount,
          status: state.status,
          reason: state.reason,
          code: entry.nipCode,
          sessionId: entry.sessionId,
          at: new Date(entry.transferTime).toISOString(),
        });
      }
    }
    return page;
  }

  /** The bank's credit with this order number; undefined when it has none. */
  async findCredit(sessionId: string): Promise<TransferNotification | undefined> {
    const data = await this.caller.ask(BANK_PATHS.creditQuery, { orderNo: sessionId }, true);
    if (data === undefined) return undefined;
    const parsed = statementCreditSchema.safeParse(data);
    if (!parsed.success || parsed.data.orderNo !== sessionId) {
      throw providerUnavailable(new Error("the bank answered a credit outside the protocol"));
    }
    return creditNotification(parsed.data);
  }
}

/** The account the bank answered, which must be for the reference sent: else a 502. */
function accountData(data: unknown, reference: string): BankAccountData {
  const parsed = bankAccountSchema.safeParse(data);
  if (!parsed.success)
    throw providerUnavailable(new Error("the bank answered an account outside the protocol"));
  if (parsed.data.accountReference !== reference) {
    throw providerUnavailable(
      new Error(`the bank answered reference ${parsed.data.accountReference}, not ${reference}`),
    );
  }
  return parsed.data;
}

/** A new account must take payments: a disabled or deleted one for a fresh reference is a 502. */
function enabled(account: BankAccountData): BankAccountData {
  if (account.status !== "Enabled") {
    throw providerUnavailable(new Error(`the bank answered an account that is ${account.status}`));
  }
  return account;
}

/** A transfer out the bank answered, which must be for the reference sent: else a 502. */
export function transferState(data: unknown, reference: string, reading: NipReading): BankPayoutState {
  const parsed = transferStateSchema.safeParse(data);
  if (!parsed.success || parsed.data.orderId !== reference) {
    throw providerUnavailable(new Error("the bank answered a transfer outside the protocol"));
  }
  return readTransferAnswer(transferAnswerOf(parsed.data), reading);
}

const issued = (data: BankAccountData): IssuedVirtualAccount => ({
  accountNumber: data.virtualAccountNo,
  accountName: data.virtualAccountName,
  accountReference: data.accountReference,
});
