import { ErrorCode, isAppError } from "../errors.js";
import { IDENTITY_PATH, identityQuerySchema, RESP_CODE } from "../providers/bank-protocol.js";
import type { VirtualBank } from "../providers/virtual-bank.js";
import { answerOf } from "./answers.js";
import type { SignedRoute } from "./signed-route.js";

// The Virtual Bank server's identity call (issue 46), answered by the Virtual Bank's rules (no
// registry but the sandbox's).

/**
 * Registers the identity call. It is spared the faults: they are the accounts' and payouts' (a
 * create that hangs, a bank that fails the next calls), and the service asks it before every
 * create, where it would take the fault meant for the create.
 */
export function registerIdentityRoute(route: SignedRoute, bank: VirtualBank): void {
  route(
    IDENTITY_PATH,
    identityQuerySchema.passthrough(),
    async ({ identityType, licenseNumber, customerName }) => {
      try {
        const registeredName = await bank.identityName({ identityType, licenseNumber, customerName });
        if (registeredName === undefined) {
          return answerOf(
            RESP_CODE.accountNotFound,
            `no record of this ${identityType === "personal" ? "BVN" : "NIN"}`,
          );
        }
        return answerOf(RESP_CODE.success, "success", { identityType, licenseNumber, registeredName });
      } catch (error) {
        if (isAppError(error) && error.code === ErrorCode.PROVIDER_UNAVAILABLE) {
          return answerOf(RESP_CODE.busy, "identity verification is unavailable; retry later");
        }
        throw error;
      }
    },
    false,
  );
}
