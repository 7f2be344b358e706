import { AppError, ErrorCode } from "../errors.js";

// The refusals of money out (payouts, refunds, settlements), apart from errors.ts: each a
// stable code, its status and words a business can act on.

export const accountNotResolved = (bankName: string) =>
  new AppError(
    ErrorCode.ACCOUNT_NOT_RESOLVED,
    422,
    `${bankName} has no account with this number: check the bank and the account number`,
  );
export const idempotencyKeyRequired = () =>
  new AppError(
    ErrorCode.IDEMPOTENCY_KEY_REQUIRED,
    400,
    "This request moves money: send an Idempotency-Key header (a UUID you keep for its retries)",
  );
export const payoutsDisabled = () =>
  new AppError(
    ErrorCode.PAYOUTS_DISABLED,
    403,
    "Payouts through the API are off for this business: its owner turns them on in the dashboard",
  );
export const payoutLimitExceeded = (message: string) =>
  new AppError(ErrorCode.PAYOUT_LIMIT_EXCEEDED, 422, message);
export const insufficientBalance = (message: string) =>
  new AppError(ErrorCode.INSUFFICIENT_BALANCE, 422, message);
export const duplicateReference = (reference: string) =>
  new AppError(
    ErrorCode.DUPLICATE_REFERENCE,
    409,
    `reference ${reference} was used by another payout of this business with other details`,
  );
export const payoutIpNotAllowed = (ip: string) =>
  new AppError(
    ErrorCode.PAYOUT_IP_NOT_ALLOWED,
    403,
    `This API key sends payouts only from the addresses listed for it; ${ip} is not one of them`,
  );
export const refundExceedsPayment = (message: string) =>
  new AppError(ErrorCode.REFUND_EXCEEDS_PAYMENT, 422, message);
export const payoutNotFound = () => new AppError(ErrorCode.PAYOUT_NOT_FOUND, 404, "Payout not found");
export const payoutsPaused = () =>
  new AppError(
    ErrorCode.BUSINESS_NOT_VERIFIED,
    403,
    "Payouts are paused: the business is not verified (an operator reviews it, or suspended it)",
  );
export const settlementNotFound = () =>
  new AppError(ErrorCode.SETTLEMENT_NOT_FOUND, 404, "Settlement not found");
export const settlementAccountMissing = () =>
  new AppError(
    ErrorCode.SETTLEMENT_ACCOUNT_MISSING,
    422,
    "The business has no settlement account: its owner sets one in the dashboard (Settlements)",
  );
export const settlementAccountCoolingOff = (usableFrom: string) =>
  new AppError(
    ErrorCode.SETTLEMENT_ACCOUNT_COOLING_OFF,
    422,
    `The settlement account was set recently: nothing is settled to it before ${usableFrom}`,
  );
export const nothingToSettle = (message: string) => new AppError(ErrorCode.NOTHING_TO_SETTLE, 422, message);
