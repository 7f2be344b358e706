import type { Clock } from "../clock.js";
import { CreditBlocks } from "../collections/credit-blocks.js";
import type { Config } from "../config/load.js";
import type { Metrics } from "../http/metrics.js";
import { BankService } from "../payouts/banks.js";
import { BlockReturns } from "../payouts/block-returns.js";
import { PayoutListing } from "../payouts/payout-listing.js";
import { PayoutService } from "../payouts/payout-service.js";
import { PayoutSettings } from "../payouts/payout-settings.js";
import { PayoutTracker } from "../payouts/payout-tracker.js";
import { RefundService } from "../payouts/refunds.js";
import { SettlementTermsService } from "../payouts/settlement-terms.js";
import { SettlementService } from "../payouts/settlements.js";
import type { BankDirectory } from "../providers/bank-directory.js";
import type { PayoutRail } from "../providers/payout-rail.js";
import type { VirtualBank } from "../providers/virtual-bank.js";
import type { Storage } from "../storage/database.js";
import type { Stores } from "../storage/stores.js";

// Money out, wired (issue 26): payouts, the tracker, refunds, settlement, over the partner bank.
// Part of the one composition (services.ts), kept apart for its size.

export interface MoneyOutParts {
  config: Config;
  storage: Storage;
  stores: Stores;
  /** The partner bank: name enquiries and transfers out. */
  bank: BankDirectory & PayoutRail;
  /** The embedded bank, when it is the partner: its payout notifications are a job. */
  embedded: VirtualBank | undefined;
  metrics: Metrics;
  now: Clock;
}

export function moneyOut({ config, storage, stores, bank, embedded, metrics, now }: MoneyOutParts) {
  const banks = new BankService({ directory: bank, now });
  const payouts = new PayoutService({
    storage,
    ledger: stores.ledger,
    banks,
    now,
  });
  const { coolOffMs } = config.settlements;
  const refunds = new RefundService({ storage, payouts, banks });
  const creditBlocks = new CreditBlocks({ storage, ledger: stores.ledger, now });
  return {
    banks,
    payouts,
    payoutSettings: new PayoutSettings({ storage, now, feeCaps: config.payouts.feeCaps }),
    payoutListing: new PayoutListing({
      db: storage.db,
      stuckAfterMs: config.payouts.stuckAfterMs,
      attentionAfterQueries: config.payouts.attentionAfterQueries,
      now,
    }),
    refunds,
    creditBlocks,
    blockReturns: new BlockReturns({ storage, blocks: creditBlocks, payouts, refunds }),
    settlementTerms: new SettlementTermsService({
      storage,
      deliveries: stores.deliveries,
      banks,
      coolOffMs,
      now,
    }),
    settlements: new SettlementService({ storage, payouts, coolOffMs, now }),
    payoutTracker: new PayoutTracker({
      storage,
      rail: bank,
      payouts,
      checkIntervalMs: config.payouts.checkIntervalMs,
      stuckAfterMs: config.payouts.stuckAfterMs,
      onStuck: (count) => metrics.payoutsStuck.set(count),
      attentionAfterQueries: config.payouts.attentionAfterQueries,
      onAttention: () => metrics.payoutsNeedingAttention.inc(),
      now,
    }),
    bankPayoutNotices: embedded && {
      intervalMs: Math.min(1_000, Math.max(config.payouts.sandboxSettleMs, 50)),
      run: () => embedded.notifyPayouts((state) => payouts.applyBankState(state)),
    },
  };
}
