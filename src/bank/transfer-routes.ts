import { ErrorCode, isAppError } from "../errors.js";
import { BANK_PATHS, RESP_CODE, transferOutSchema, transferQuerySchema } from "../providers/bank-protocol.js";
import type { VirtualBank } from "../providers/virtual-bank.js";
import { answerOf } from "./answers.js";
import type { FaultPlan } from "./faults.js";
import { type Notifier, transferData } from "./notifier.js";
import type { SignedRoute } from "./signed-route.js";

// The Virtual Bank server's transfers out: the transfer and its status query, over the embedded
// bank's payouts (providers/virtual-bank-payouts.ts), with the faults that refuse or forget them.

/** Registers the transfer and the transfer query; a transfer made wakes the notifier. */
export function registerTransferRoutes(
  route: SignedRoute,
  { bank, faults, notifier }: { bank: VirtualBank; faults: FaultPlan; notifier: Notifier },
): void {
  route(BANK_PATHS.transferOut, transferOutSchema.passthrough(), async (params) => {
    if (faults.take("refuseTransfers")) {
      return answerOf(RESP_CODE.transferRefused, "transfer refused by the bank (fault injected)");
    }
    try {
      const state = await bank.sendTransfer({
        reference: params.orderId,
        amount: params.amount,
        bankCode: params.bankCode,
        accountNumber: params.accountNo,
        accountName: params.accountName,
        narration: params.remark,
      });
      notifier.kick();
      return answerOf(RESP_CODE.success, "success", transferData(state));
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.PROVIDER_REJECTED) {
        return answerOf(RESP_CODE.transferRefused, error.message);
      }
      throw error;
    }
  });
  route(BANK_PATHS.transferQuery, transferQuerySchema.passthrough(), async ({ orderId }) => {
    // A transfer the sandbox was told to forget is unknown here too, as in the statement.
    const forgotten = faults.get().forgetTransfers.includes(orderId);
    const state = forgotten ? undefined : await bank.findTransfer(orderId);
    if (!state) return answerOf(RESP_CODE.accountNotFound, `no transfer with orderId ${orderId}`);
    return answerOf(RESP_CODE.success, "success", transferData(state));
  });
}
