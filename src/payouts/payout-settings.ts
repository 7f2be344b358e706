import { type Clock, isoNow } from "../clock.js";
import { validationFailed } from "../errors.js";
import {
  checkPayoutFeeTiers,
  DEFAULT_PAYOUT_FEE_TIERS,
  type PayoutFeeTier,
  PayoutFeeTiersError,
} from "../ledger/payout-fees.js";
import { readPayoutFeeTiers, updatePayoutFeeTiers } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import { writeTransaction } from "../storage/transactions.js";

export interface PayoutSettingsOptions {
  storage: Storage;
  now?: Clock;
}

/** A business's payout settings that the operator sets: so far, its payout fee. */
export class PayoutSettings {
  private readonly now: Clock;

  constructor(private readonly options: PayoutSettingsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The business's payout fee tiers: its own, or the default. 400 when there is no such business. */
  async feeTiers(businessId: string): Promise<{ tiers: readonly PayoutFeeTier[]; isDefault: boolean }> {
    const stored = await readPayoutFeeTiers(this.options.storage.db, businessId);
    if (stored === undefined) throw validationFailed(`no business has id ${businessId}`);
    if (stored === null) return { tiers: DEFAULT_PAYOUT_FEE_TIERS, isDefault: true };
    // Written by setFeeTiers only; checked again so that a row changed by hand fails loudly.
    const tiers = JSON.parse(stored) as PayoutFeeTier[];
    checkPayoutFeeTiers(tiers);
    return { tiers, isDefault: false };
  }

  /** Sets the tiers (null: back to the default); every future payout of the business pays them. */
  async setFeeTiers(businessId: string, tiers: readonly PayoutFeeTier[] | null): Promise<void> {
    if (tiers !== null) {
      try {
        checkPayoutFeeTiers(tiers);
      } catch (error) {
        if (error instanceof PayoutFeeTiersError) throw validationFailed(error.message);
        throw error;
      }
    }
    const stored = tiers === null ? null : JSON.stringify(tiers.map(({ upTo, fee }) => ({ upTo, fee })));
    const updated = await writeTransaction(this.options.storage, (trx) =>
      updatePayoutFeeTiers(trx, businessId, stored, isoNow(this.now)),
    );
    if (!updated) throw validationFailed(`no business has id ${businessId}`);
  }
}
