/** Every failure the service reports on purpose: a stable code, the HTTP status and a client-safe message. */
export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    readonly statusCode: number,
    message: string,
    options?: {
      cause?: unknown;
      retryAfterSeconds?: number;
      fields?: Readonly<Record<string, string>>;
      hint?: string;
    },
  ) {
    super(withoutStackFor4xx(statusCode, message), options);
    Error.stackTraceLimit = savedStackTraceLimit;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.fields = options?.fields;
    this.hint = options?.hint;
  }
  /** What probably went wrong, beside a message the specification fixes (error.hint in the envelope). */
  readonly hint: string | undefined;
  /** When a retry may succeed (a Retry-After header), for a 503. */
  readonly retryAfterSeconds: number | undefined;
  /** A form's refusal: each field's problem, in the words of its label (a page shows each beside its field). */
  readonly fields: Readonly<Record<string, string>> | undefined;
}

// A refusal (4xx) is an expected answer, not a fault: its stack is never logged, and capturing
// one was the largest single cost of refusing a request (7 % of the CPU of answering bad
// signatures, issue 12). A 5xx keeps its stack for the log.
let savedStackTraceLimit = Error.stackTraceLimit;
function withoutStackFor4xx(statusCode: number, message: string): string {
  savedStackTraceLimit = Error.stackTraceLimit;
  if (statusCode < 500) Error.stackTraceLimit = 0;
  return message;
}

export const ErrorCode = {
  MISSING_HEADER: "MISSING_HEADER",
  INVALID_API_KEY: "INVALID_API_KEY",
  BUSINESS_NOT_VERIFIED: "BUSINESS_NOT_VERIFIED",
  INVALID_TIMESTAMP: "INVALID_TIMESTAMP",
  TIMESTAMP_EXPIRED: "TIMESTAMP_EXPIRED",
  INVALID_SIGNATURE: "INVALID_SIGNATURE",
  INVALID_SIGNATURE_VERSION: "INVALID_SIGNATURE_VERSION",
  SIGNATURE_VERSION_REQUIRED: "SIGNATURE_VERSION_REQUIRED",
  VALIDATION_FAILED: "VALIDATION_FAILED",
  INVALID_JSON: "INVALID_JSON",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  NOT_FOUND: "NOT_FOUND",
  PROVIDER_REJECTED: "PROVIDER_REJECTED",
  PROVIDER_UNAVAILABLE: "PROVIDER_UNAVAILABLE",
  NUMBER_SPACE_EXHAUSTED: "NUMBER_SPACE_EXHAUSTED",
  CONFLICT: "CONFLICT",
  REQUEST_IN_PROGRESS: "REQUEST_IN_PROGRESS",
  IDEMPOTENCY_KEY_REUSED: "IDEMPOTENCY_KEY_REUSED",
  INVALID_IDEMPOTENCY_KEY: "INVALID_IDEMPOTENCY_KEY",
  RATE_LIMITED: "RATE_LIMITED",
  BAD_REQUEST: "BAD_REQUEST",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  SERVICE_DEGRADED: "SERVICE_DEGRADED",
  ACCOUNT_NOT_FOUND: "ACCOUNT_NOT_FOUND",
  TRANSACTION_NOT_FOUND: "TRANSACTION_NOT_FOUND",
  EVENT_NOT_FOUND: "EVENT_NOT_FOUND",
  WEBHOOK_NOT_FOUND: "WEBHOOK_NOT_FOUND",
  WEBHOOK_LIMIT_REACHED: "WEBHOOK_LIMIT_REACHED",
  ACCOUNT_NOT_PERMANENT: "ACCOUNT_NOT_PERMANENT",
  UNKNOWN_ACCOUNT: "UNKNOWN_ACCOUNT",
  ACCOUNT_EXPIRED: "ACCOUNT_EXPIRED",
  ACCOUNT_RETIRED: "ACCOUNT_RETIRED",
  ACCOUNT_DEACTIVATED: "ACCOUNT_DEACTIVATED",
  AMOUNT_MISMATCH: "AMOUNT_MISMATCH",
  ALREADY_PAID: "ALREADY_PAID",
  AMOUNT_ABOVE_LIMIT: "AMOUNT_ABOVE_LIMIT",
  CURRENCY_NOT_SUPPORTED: "CURRENCY_NOT_SUPPORTED",
  TRANSFER_CONFLICT: "TRANSFER_CONFLICT",
  // Identity tiers (issue 46): a credit past its account's tier, a holder's name and identity apart.
  TIER_SINGLE_LIMIT: "TIER_SINGLE_LIMIT",
  TIER_DAILY_LIMIT: "TIER_DAILY_LIMIT",
  TIER_TOTAL_LIMIT: "TIER_TOTAL_LIMIT",
  PAYER_NOT_ALLOWED: "PAYER_NOT_ALLOWED",
  CREDIT_NOT_HELD: "CREDIT_NOT_HELD",
  CREDIT_HELD: "CREDIT_HELD",
  // Issue 46, item 7: an operator's blocks on disputed credits (the console, the CLI).
  CREDIT_NOT_BLOCKABLE: "CREDIT_NOT_BLOCKABLE",
  BLOCK_NOT_STANDING: "BLOCK_NOT_STANDING",
  BLOCK_NOT_FOUND: "BLOCK_NOT_FOUND",
  IDENTITY_MISMATCH: "IDENTITY_MISMATCH",
  // Money out: banks and name enquiry.
  ACCOUNT_NOT_RESOLVED: "ACCOUNT_NOT_RESOLVED",
  // Money out: payouts.
  IDEMPOTENCY_KEY_REQUIRED: "IDEMPOTENCY_KEY_REQUIRED",
  PAYOUTS_DISABLED: "PAYOUTS_DISABLED",
  PAYOUT_LIMIT_EXCEEDED: "PAYOUT_LIMIT_EXCEEDED",
  INSUFFICIENT_BALANCE: "INSUFFICIENT_BALANCE",
  DUPLICATE_REFERENCE: "DUPLICATE_REFERENCE",
  PAYOUT_NOT_FOUND: "PAYOUT_NOT_FOUND",
  REFUND_EXCEEDS_PAYMENT: "REFUND_EXCEEDS_PAYMENT",
  SETTLEMENT_NOT_FOUND: "SETTLEMENT_NOT_FOUND",
  SETTLEMENT_ACCOUNT_MISSING: "SETTLEMENT_ACCOUNT_MISSING",
  SETTLEMENT_ACCOUNT_COOLING_OFF: "SETTLEMENT_ACCOUNT_COOLING_OFF",
  NOTHING_TO_SETTLE: "NOTHING_TO_SETTLE",
  PAYOUT_IP_NOT_ALLOWED: "PAYOUT_IP_NOT_ALLOWED",
  // The bank's notifications (PROVIDER=http), not the signed API.
  BANK_SIGNATURE_INVALID: "BANK_SIGNATURE_INVALID",
  BANK_MESSAGE_STALE: "BANK_MESSAGE_STALE",
  // The dashboard and the console (sign-in), not the signed API.
  INVALID_CREDENTIALS: "INVALID_CREDENTIALS",
  SIGN_IN_LOCKED: "SIGN_IN_LOCKED",
  /** A member's role does not allow what they asked (the dashboard's permission table). */
  FORBIDDEN: "FORBIDDEN",
  /** Money moves only with a code from an authenticator enrolled long enough ago (issue 43). */
  TWO_FACTOR_REQUIRED: "TWO_FACTOR_REQUIRED",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const missingHeader = (header: string) =>
  new AppError(ErrorCode.MISSING_HEADER, 401, `Missing required header: ${header}`);
export const invalidApiKey = () => new AppError(ErrorCode.INVALID_API_KEY, 401, "Invalid API key");
export const businessNotVerified = () =>
  new AppError(ErrorCode.BUSINESS_NOT_VERIFIED, 401, "Business not verified");
export const invalidTimestamp = () =>
  new AppError(
    ErrorCode.INVALID_TIMESTAMP,
    401,
    "Invalid x-timestamp header: expected Unix time in milliseconds (digits only)",
  );
/** A timestamp off by more than 5 minutes; `hint` when it looks like seconds, not milliseconds. */
export const timestampExpired = (hint?: string) =>
  new AppError(ErrorCode.TIMESTAMP_EXPIRED, 401, "Request timestamp expired", hint ? { hint } : undefined);
export const invalidSignature = () => new AppError(ErrorCode.INVALID_SIGNATURE, 401, "Invalid signature");
export const invalidSignatureVersion = () =>
  new AppError(
    ErrorCode.INVALID_SIGNATURE_VERSION,
    401,
    "Invalid x-signature-version header: expected 1 or 2",
  );
export const signatureVersionRequired = (version: number) =>
  new AppError(
    ErrorCode.SIGNATURE_VERSION_REQUIRED,
    401,
    `This API key requires signature version ${version}: send x-signature-version: ${version}`,
  );

export const validationFailed = (message: string) => new AppError(ErrorCode.VALIDATION_FAILED, 400, message);
/** Every field of a form that needs a change, at once: its message lists them in form order. */
export const fieldsInvalid = (fields: Readonly<Record<string, string>>) =>
  new AppError(ErrorCode.VALIDATION_FAILED, 400, Object.values(fields).join(". "), { fields });
export const invalidJson = (message: string) => new AppError(ErrorCode.INVALID_JSON, 400, message);
export const unsupportedMediaType = () =>
  new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 415, "Content-Type must be application/json");
export const payloadTooLarge = (limit: number) =>
  new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 413, `Request body is larger than ${limit} bytes`);
export const notFound = (method: string, url: string) =>
  new AppError(ErrorCode.NOT_FOUND, 404, `Route ${method} ${url} not found`);

/** The account provider answered and refused: its own message goes to the client (spec rule 6). */
export const providerRejected = (message: string) => new AppError(ErrorCode.PROVIDER_REJECTED, 400, message);
/** The account provider could not be reached or answered nonsense: nothing was issued. */
export const providerUnavailable = (cause?: unknown) =>
  new AppError(
    ErrorCode.PROVIDER_UNAVAILABLE,
    502,
    "The account provider is unavailable; no account was created. Retry later.",
    { cause },
  );
/** The bank could not answer a question about money out (its bank list, a name enquiry): nothing was done. */
export const bankUnavailable = (cause?: unknown) =>
  new AppError(
    ErrorCode.PROVIDER_UNAVAILABLE,
    502,
    "The bank could not be reached; nothing was sent or held. Retry later.",
    { cause },
  );
/** A bank notification whose signature does not verify with the bank's public key, or for another app id. */
export const bankSignatureInvalid = (
  message = "The notification's signature does not verify with the bank's public key",
) => new AppError(ErrorCode.BANK_SIGNATURE_INVALID, 401, message);
/** A bank notification sent more than 5 minutes from the service's clock (a replay, or a clock adrift). */
export const bankMessageStale = () =>
  new AppError(
    ErrorCode.BANK_MESSAGE_STALE,
    401,
    "The notification's requestTime is more than 5 minutes from the service's clock",
  );
/**
 * 502 when a create may have reached the bank but its outcome is unknown (no answer, a 5xx):
 * nothing is recorded here, and a retry with the same Idempotency-Key sends the same
 * reference, so it gets the account the bank may have opened, never a second one.
 */
export const providerOutcomeUnknown = (cause?: unknown) =>
  new AppError(
    ErrorCode.PROVIDER_UNAVAILABLE,
    502,
    "The account provider did not confirm the account; none was recorded. Retry with the same Idempotency-Key.",
    { cause },
  );
/** 503 while the bank's circuit breaker is open: it failed repeatedly and calls to it are paused. */
export const providerPaused = (retryAfterSeconds: number) =>
  new AppError(
    ErrorCode.PROVIDER_UNAVAILABLE,
    503,
    "The account provider is failing and calls to it are paused; no account was created. Retry later.",
    { retryAfterSeconds },
  );
/** The database cannot answer right now; the request changed nothing and may be retried. */
export const serviceUnavailable = (
  cause?: unknown,
  reason: "unreachable" | "refusing-writes" = "unreachable",
) =>
  new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    503,
    reason === "unreachable"
      ? "Service temporarily unavailable: the database is not reachable. Retry later."
      : "Service temporarily unavailable: the database cannot accept writes. Retry later.",
    { cause, retryAfterSeconds: 1 },
  );
/** The health check failed: the service should get no traffic until it passes again. */
export const serviceDegraded = (reason: string) =>
  new AppError(ErrorCode.SERVICE_DEGRADED, 503, `Service degraded: ${reason}`);
export const numberSpaceExhausted = () =>
  new AppError(ErrorCode.NUMBER_SPACE_EXHAUSTED, 503, "No account numbers are left to issue");

/** The first request with this signature or Idempotency-Key has not finished yet. */
export const requestInProgress = (what: "signature" | "Idempotency-Key") =>
  new AppError(
    ErrorCode.REQUEST_IN_PROGRESS,
    409,
    `A request with this ${what} is still being processed; retry shortly to get its result`,
  );
export const idempotencyKeyReused = (what: "signature" | "Idempotency-Key" = "Idempotency-Key") =>
  new AppError(
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    422,
    `This ${what} was already used for a different request (another endpoint or body)`,
  );
export const invalidIdempotencyKey = () =>
  new AppError(
    ErrorCode.INVALID_IDEMPOTENCY_KEY,
    400,
    "Idempotency-Key must be 1 to 255 visible ASCII characters",
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(
    ErrorCode.RATE_LIMITED,
    429,
    `Rate limit exceeded; retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"}`,
  );

/** Something of the calling business's that does not exist (or is another business's: never 403). */
export const accountNotFound = () => new AppError(ErrorCode.ACCOUNT_NOT_FOUND, 404, "Account not found");
/** A number of the business's that a re-issue replaced: still no account (404), but it says which is. */
export const accountNumberRetired = (current: string) =>
  new AppError(
    ErrorCode.ACCOUNT_RETIRED,
    404,
    `Account not found: this number was replaced when the account was re-issued; its number is now ${current}`,
  );
export const eventNotFound = () => new AppError(ErrorCode.EVENT_NOT_FOUND, 404, "Event not found");

export const transactionNotFound = () =>
  new AppError(ErrorCode.TRANSACTION_NOT_FOUND, 404, "Transaction not found");
/** A held credit's decision asked of a transaction that is not held (never was, or was decided): 422. */
export const creditHeld = () =>
  new AppError(
    ErrorCode.CREDIT_HELD,
    422,
    "This credit is held: accept it (POST /transactions/{id}/accept) or return it (POST /transactions/{id}/return)",
  );
/** A block asked of a credit that cannot take it (held, returned, nothing left of it, blocked already): 422. */
export const creditNotBlockable = (why: string) =>
  new AppError(ErrorCode.CREDIT_NOT_BLOCKABLE, 422, `This credit cannot be blocked: ${why}`);
/** A release or a return asked of a block that no longer stands: 422. */
export const blockNotStanding = (state: string) =>
  new AppError(ErrorCode.BLOCK_NOT_STANDING, 422, `This block no longer stands: it was ${state}`);
export const blockNotFound = () => new AppError(ErrorCode.BLOCK_NOT_FOUND, 404, "No block has this id");
/** A held credit's decision asked of a transaction that is not held: 422. */
export const creditNotHeld = (why: string) =>
  new AppError(ErrorCode.CREDIT_NOT_HELD, 422, `This transaction is not held: ${why}`);
export const accountNotPermanent = () =>
  new AppError(
    ErrorCode.ACCOUNT_NOT_PERMANENT,
    422,
    "Only permanent accounts can be deactivated or reactivated; a temporary account ends at its expiresAt",
  );

/** Why an inbound transfer is refused at the bank (nothing credited, nothing held): docs/api.md. */
export const TRANSFER_REFUSALS = [
  ErrorCode.UNKNOWN_ACCOUNT,
  ErrorCode.ACCOUNT_EXPIRED,
  ErrorCode.ACCOUNT_RETIRED,
  ErrorCode.ACCOUNT_DEACTIVATED,
  ErrorCode.AMOUNT_MISMATCH,
  ErrorCode.ALREADY_PAID,
  ErrorCode.AMOUNT_ABOVE_LIMIT,
  ErrorCode.CURRENCY_NOT_SUPPORTED,
  ErrorCode.TIER_SINGLE_LIMIT,
  ErrorCode.TIER_DAILY_LIMIT,
  ErrorCode.TIER_TOTAL_LIMIT,
  ErrorCode.PAYER_NOT_ALLOWED,
] as const;
export type TransferRefusalCode = (typeof TRANSFER_REFUSALS)[number];

/** An inbound transfer the acceptance rules refuse: 422, with the rule's code. */
export const transferRefused = (code: TransferRefusalCode, message: string) =>
  new AppError(code, 422, `Transfer refused: ${message}`);

/**
 * A BVN or NIN whose record at the bank is in another name than the holder's, by the rule of
 * core/name-match.ts (or of which the bank has no record): 422, nothing opened or changed.
 */
export const identityMismatch = (message: string) => new AppError(ErrorCode.IDENTITY_MISMATCH, 422, message);

/**
 * The bank's session id was already recorded with other content (account, amount or
 * currency): the first recording stands and this one is refused, never merged.
 */
export const transferConflict = (sessionId: string) =>
  new AppError(
    ErrorCode.TRANSFER_CONFLICT,
    409,
    `Session id ${sessionId} was already recorded with a different account, amount or currency; the first recording stands`,
  );

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
