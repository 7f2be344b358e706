import type { AccountLifecycle } from "../accounts/account-lifecycle.js";
import type { AccountService } from "../accounts/account-service.js";
import type { CollectionReads } from "../collections/collection-reads.js";
import type { CollectionService } from "../collections/collection-service.js";
import type { CreditBlocks } from "../collections/credit-blocks.js";
import type { HeldCredits } from "../collections/held-credits.js";
import type { EventService } from "../events/event-service.js";
import type { BankService } from "../payouts/banks.js";
import type { BlockReturns } from "../payouts/block-returns.js";
import type { PayoutListing } from "../payouts/payout-listing.js";
import type { PayoutService } from "../payouts/payout-service.js";
import type { RefundService } from "../payouts/refunds.js";
import type { SettlementTermsService } from "../payouts/settlement-terms.js";
import type { SettlementService } from "../payouts/settlements.js";
import type { ReconciliationService } from "../reconciliation/reconciliation-service.js";
import type { WebhookEndpointService } from "../webhooks/endpoint-service.js";
import type { RedeliveryService } from "../webhooks/redelivery.js";

/** The domain services both fronts call (the API and the dashboard), one list for both. */
export interface DomainServices {
  accounts: AccountService;
  lifecycle: AccountLifecycle;
  collections: CollectionService;
  /** A business's decisions on its held credits (issue 46, item 6). */
  heldCredits: HeldCredits;
  /** The dashboard's reads of payments: the search, the export, collections per day. */
  collectionReads: CollectionReads;
  banks: BankService;
  payouts: PayoutService;
  /** Reading payouts: a business's own, and (the console) every business's. */
  payoutListing: PayoutListing;
  refunds: RefundService;
  /** Operators' blocks on credits their payers' banks dispute: made, released, read (issue 46, item 7). */
  creditBlocks: CreditBlocks;
  /** A block returned to the payer: a refund from held. */
  blockReturns: BlockReturns;
  settlements: SettlementService;
  settlementTerms: SettlementTermsService;
  events: EventService;
  webhooks: WebhookEndpointService;
  redelivery: RedeliveryService;
  /** Reconciliation with the bank: a business's requery of a payment (the console reads its reports). */
  reconciliation: ReconciliationService;
}

/** What the API's routes are given: the domain services, and whether sandbox transfers are served. */
export type ApiServices = DomainServices & {
  sandbox: boolean;
  /** MAX_TRANSFER_KOBO: what the sandbox's transfers say their limit is. */
  maxTransferKobo: number;
};
