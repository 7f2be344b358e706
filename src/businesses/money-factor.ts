import { AppError, ErrorCode } from "../errors.js";
import { RECOVERY_CODE } from "./recovery-codes.js";

// What the second factor answers when money is asked of it (issue 43): no authenticator yet,
// one too new to move money, or a recovery code where the app's code is wanted.

/** Money asked of a user with no authenticator: a front leads them to set one up. */
export class TwoFactorSetupNeeded extends AppError {
  constructor() {
    super(
      ErrorCode.TWO_FACTOR_REQUIRED,
      403,
      "Moving money takes a code from an authenticator app: set up two-factor sign-in under Sign-in and security first.",
    );
  }
}
export const twoFactorNeeded = () => new TwoFactorSetupNeeded();

/** A recovery code where the app's is asked: it signs in, and nothing more (never counted as a guess). */
export function refuseRecoveryCode(code: string): void {
  if (RECOVERY_CODE.test(code.trim())) {
    throw new AppError(
      ErrorCode.INVALID_CREDENTIALS,
      401,
      "Type a code from your authenticator app: a recovery code signs you in, and nothing more. Lost the app? An operator can reset it.",
    );
  }
}
export const coolingOff = (until: string) =>
  new AppError(
    ErrorCode.TWO_FACTOR_REQUIRED,
    403,
    `Your authenticator was set up recently: it moves money from ${until}. Until then nothing can be paid out, refunded or settled with it.`,
  );
