import type { KeyObject } from "node:crypto";
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
import { AppError, providerPaused, providerRejected, providerUnavailable } from "../errors.js";
import { type BankAnswer, bankAnswerSchema, envelope, RESP_CODE } from "./bank-protocol.js";
import { signParams } from "./bank-signing.js";

// One signed call to a bank over HTTP, as every part of the HTTP bank makes it (accounts,
// payouts, the statement): bounded by a timeout, through one circuit breaker, the bank's answer
// codes read one way.

export interface BankCallerOptions {
  /** The bank's base URL (BANK_URL). */
  url: string;
  /** The service's app id at the bank (BANK_APP_ID). */
  appId: string;
  /** The service's RSA private key: signs every call. */
  privateKey: KeyObject;
  /** Each call's bound, in milliseconds. */
  timeoutMs: number;
  /** Failed calls in a row that open the breaker. */
  breakerThreshold: number;
  /** How long the breaker stays open before one call probes the bank. */
  breakerHalfOpenMs: number;
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
export const isUnreachable = (error: unknown) =>
  error instanceof BankUnreachable || error instanceof TaskCancelledError;

export type BreakerState = "closed" | "open" | "half-open";

const stateName = (state: CircuitState): BreakerState =>
  state === CircuitState.Closed ? "closed" : state === CircuitState.HalfOpen ? "half-open" : "open";

/** Signed calls to one bank, sharing its breaker. */
export class BankCaller {
  private readonly breaker: CircuitBreakerPolicy;
  private readonly limit: TimeoutPolicy;
  private readonly now: () => number;
  /** BANK_URL without its trailing slash: a path in it (a gateway's prefix) is kept. */
  private readonly base: string;

  constructor(private readonly options: BankCallerOptions) {
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
   * A call that is harmless to repeat (a question, or setting a status), so one lost answer is
   * asked again: its data, or undefined for "no such account" when `notFoundIsAnswer`.
   */
  async ask(path: string, params: Record<string, unknown>, notFoundIsAnswer = false): Promise<unknown> {
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
  call(path: string, params: Record<string, unknown>): Promise<BankAnswer> {
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
  translate(error: unknown): unknown {
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
export function refusedUnlessSuccess(answer: BankAnswer): unknown {
  if (answer.respCode === RESP_CODE.success) return answer.data;
  throw providerRejected(answer.respMsg);
}
