import type { KeyObject } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  BrokenCircuitError,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  TaskCancelledError,
  type TimeoutPolicy,
  TimeoutStrategy,
  timeout,
} from "cockatiel";
import type { Bank } from "../core/api-types.js";
import {
  AppError,
  providerOutcomeUnknown,
  providerPaused,
  providerRejected,
  providerUnavailable,
} from "../errors.js";
import type { AccountProvider, IssuedVirtualAccount, VirtualAccountRequest } from "./account-provider.js";
import type { BankDirectory } from "./bank-directory.js";
import {
  BANK_PATHS,
  type BankAccountData,
  type BankAnswer,
  bankAccountSchema,
  bankAnswerSchema,
  bankListSchema,
  envelope,
  nameEnquiryAnswerSchema,
  ORDER_STATUS,
  RESP_CODE,
  transferStateSchema,
} from "./bank-protocol.js";
import { signParams } from "./bank-signing.js";
import type { BankPayoutState, PayoutRail, TransferOutRequest } from "./payout-rail.js";

// The AccountProvider of a real bank over HTTP (issue 14). Every call is signed, bounded by a
// timeout and runs through one circuit breaker; a create is retried with the same
// accountReference (the bank opens at most one account per reference), and after any failure
// that may hide a completed create, the bank is asked for the reference before creating again.

export interface HttpBankOptions {
  /** The bank's base URL (BANK_URL). */
  url: string;
  /** The service's app id at the bank (BANK_APP_ID). */
  appId: string;
  /** The service's RSA private key: signs every call. */
  privateKey: KeyObject;
  /** The name account holders see (the spec's bankName). */
  bankName: string;
  /** Each call's bound, in milliseconds. */
  timeoutMs: number;
  /** Creates tried per account (with queries between them) before giving up. */
  createAttempts: number;
  /** The longest one account's opening may take, retries included, in milliseconds. */
  createBudgetMs: number;
  /** Failed calls in a row that open the breaker. */
  breakerThreshold: number;
  /** How long the breaker stays open before one call probes the bank. */
  breakerHalfOpenMs: number;
  /** Pause before a retry, in milliseconds (doubles each time). */
  retryDelayMs?: number;
  now?: () => number;
}

/** The bank could not be reached, timed out, failed (5xx) or asked for a retry: worth trying again. */
class BankUnreachable extends Error {
  override readonly name = "BankUnreachable";
}

/** The bank refused the caller (app id, signature, clock): our configuration, not the customer's request. */
class BankRefusedCaller extends Error {
  override readonly name = "BankRefusedCaller";
}

/** Worth another try, and a failure for the breaker: no answer, a timeout, a 5xx, a "busy". */
const isUnreachable = (error: unknown) =>
  error instanceof BankUnreachable || error instanceof TaskCancelledError;

export type BreakerState = "closed" | "open" | "half-open";

const stateName = (state: CircuitState): BreakerState =>
  state === CircuitState.Closed ? "closed" : state === CircuitState.HalfOpen ? "half-open" : "open";

export class HttpBank implements AccountProvider, BankDirectory, PayoutRail {
  readonly bankName: string;
  private readonly breaker: CircuitBreakerPolicy;
  private readonly limit: TimeoutPolicy;
  private readonly now: () => number;
  /** BANK_URL without its trailing slash: a path in it (a gateway's prefix) is kept. */
  private readonly base: string;

  constructor(private readonly options: HttpBankOptions) {
    this.bankName = options.bankName;
    this.base = options.url.replace(/\/+$/, "");
    this.now = options.now ?? Date.now;
    this.breaker = circuitBreaker(handleWhen(isUnreachable), {
      halfOpenAfter: options.breakerHalfOpenMs,
      breaker: new ConsecutiveBreaker(options.breakerThreshold),
    });
    this.limit = timeout(options.timeoutMs, TimeoutStrategy.Aggressive);
  }

  /** The breaker's state, for the metrics. */
  get breakerState(): BreakerState {
    return stateName(this.breaker.state);
  }

  /** Calls `listener` when the breaker opens, probes or closes (the metrics, the log); returns how to stop. */
  onBreakerChange(listener: (state: BreakerState) => void): () => void {
    const subscription = this.breaker.onStateChange((state) => listener(stateName(state)));
    return () => subscription.dispose();
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
        const answer = refusedUnlessSuccess(await this.call(BANK_PATHS.create, { ...request }));
        return issued(enabled(accountData(answer, reference)));
      } catch (error) {
        if (!isUnreachable(error)) {
          // The breaker opened during this request, after a create that may have reached the bank.
          if (error instanceof BrokenCircuitError && maybeOpened) throw providerOutcomeUnknown(lastFailure);
          throw this.translate(error);
        }
        // A create sent without an answer (a timeout, a 5xx) may have opened the account.
        if (creating) maybeOpened = true;
        lastFailure = error;
      }
    }
    throw maybeOpened ? providerOutcomeUnknown(lastFailure) : this.translate(lastFailure);
  }

  async findByReference(accountReference: string): Promise<IssuedVirtualAccount | undefined> {
    const found = await this.lookup(accountReference);
    return found && issued(found);
  }

  /** The bank's account for the reference, whatever its status; undefined when none was opened. */
  private async lookup(accountReference: string): Promise<BankAccountData | undefined> {
    const answer = await this.call(BANK_PATHS.query, { accountReference });
    if (answer.respCode === RESP_CODE.accountNotFound) return undefined;
    return accountData(refusedUnlessSuccess(answer), accountReference);
  }

  async setAccountEnabled(accountNumber: string, enabled: boolean): Promise<void> {
    // Setting a status twice is harmless: asked again when an answer is lost on the way.
    await this.ask(BANK_PATHS.update, {
      virtualAccountNo: accountNumber,
      status: enabled ? "Enabled" : "Disabled",
    });
  }

  /** The bank's list of banks a payout can go to. */
  async listBanks(): Promise<Bank[]> {
    const data = await this.ask(BANK_PATHS.banks, {});
    const parsed = bankListSchema.safeParse(data);
    if (!parsed.success)
      throw providerUnavailable(new Error("the bank answered a bank list outside the protocol"));
    return parsed.data.map(({ bankCode, bankName }) => ({ code: bankCode, name: bankName }));
  }

  /** Name enquiry: the name on the account, or undefined when the bank knows no such account. */
  async resolveAccount(bankCode: string, accountNumber: string): Promise<string | undefined> {
    const data = await this.ask(BANK_PATHS.nameEnquiry, { bankCode, accountNo: accountNumber }, true);
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
    const data = await this.ask(BANK_PATHS.transferOut, {
      orderId: request.reference,
      amount: request.amount,
      currency: "NGN",
      bankCode: request.bankCode,
      accountNo: request.accountNumber,
      accountName: request.accountName,
      remark: request.narration,
    });
    return transferState(data, request.reference);
  }

  async queryTransfer(reference: string): Promise<BankPayoutState | undefined> {
    const data = await this.ask(BANK_PATHS.transferQuery, { orderId: reference }, true);
    return data === undefined ? undefined : transferState(data, reference);
  }

  /**
   * A call that is harmless to repeat (a question, or setting a status), so one lost answer is
   * asked again: its data, or undefined for "no such account" when `notFoundIsAnswer`.
   */
  private async ask(
    path: string,
    params: Record<string, unknown>,
    notFoundIsAnswer = false,
  ): Promise<unknown> {
    let answer: BankAnswer;
    try {
      answer = await this.call(path, params);
    } catch (error) {
      if (!isUnreachable(error)) throw this.translate(error);
      try {
        answer = await this.call(path, params);
      } catch (again) {
        throw this.translate(again);
      }
    }
    if (notFoundIsAnswer && answer.respCode === RESP_CODE.accountNotFound) return undefined;
    return refusedUnlessSuccess(answer);
  }

  /**
   * One signed call through the breaker and the timeout: the bank's answer when it gave one
   * (success, or a refusal of the request); throws when it cannot be reached, failed, asked for
   * a retry (BankUnreachable, counted by the breaker) or refused the caller (BankRefusedCaller).
   */
  private call(path: string, params: Record<string, unknown>): Promise<BankAnswer> {
    return this.breaker.execute(() =>
      this.limit.execute(async ({ signal }) => {
        const body = { ...params, ...envelope(this.now()) };
        let response: Response;
        let text: string;
        try {
          response = await fetch(this.base + path, {
            method: "POST",
            headers: {
              "content-type": "application/json;charset=UTF-8",
              authorization: `Bearer ${this.options.appId}`,
              signature: signParams(body, this.options.privateKey),
              countrycode: "NG",
            },
            body: JSON.stringify(body),
            signal,
            redirect: "error",
          });
          text = await response.text();
        } catch (error) {
          if (signal.aborted) throw error;
          throw new BankUnreachable(`the bank is unreachable: ${(error as Error).message}`, { cause: error });
        }
        if (response.status >= 500 || response.status === 429) {
          throw new BankUnreachable(`the bank answered HTTP ${response.status}`);
        }
        const answer = parseAnswer(text);
        if (!answer)
          throw new BankUnreachable(`the bank answered HTTP ${response.status} outside the protocol`);
        if (answer.respCode.startsWith("SYS_"))
          throw new BankUnreachable(`the bank is busy: ${answer.respMsg}`);
        if (answer.respCode.startsWith("OPEN_GW_")) {
          throw new BankRefusedCaller(
            `the bank refused the service's call (${answer.respCode}): ${answer.respMsg}`,
          );
        }
        return answer;
      }),
    );
  }

  /** A failure as the client sees it: a refusal (400) as it is, 503 while paused, else 502. */
  private translate(error: unknown): unknown {
    if (error instanceof AppError) return error;
    if (error instanceof BrokenCircuitError) {
      return providerPaused(Math.ceil(this.options.breakerHalfOpenMs / 1000));
    }
    return providerUnavailable(error);
  }
}

function parseAnswer(text: string): BankAnswer | undefined {
  try {
    const parsed = bankAnswerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The answer's data on success; the bank's refusal (its message for the customer) otherwise. */
function refusedUnlessSuccess(answer: BankAnswer): unknown {
  if (answer.respCode === RESP_CODE.success) return answer.data;
  throw providerRejected(answer.respMsg);
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
export function transferState(data: unknown, reference: string): BankPayoutState {
  const parsed = transferStateSchema.safeParse(data);
  if (!parsed.success || parsed.data.orderId !== reference) {
    throw providerUnavailable(new Error("the bank answered a transfer outside the protocol"));
  }
  return {
    reference,
    status: ORDER_STATUS[parsed.data.orderStatus],
    reason: parsed.data.failReason ?? null,
  };
}

const issued = (data: BankAccountData): IssuedVirtualAccount => ({
  accountNumber: data.virtualAccountNo,
  accountName: data.virtualAccountName,
  accountReference: data.accountReference,
});
