import type { DestinationStream, LevelWithSilent } from "pino";
import type { AccountLifecycle } from "../accounts/account-lifecycle.js";
import type { AccountService } from "../accounts/account-service.js";
import type { Authenticator } from "../auth/authenticator.js";
import type { BusinessProfiles } from "../businesses/business-profile.js";
import type { BusinessService } from "../businesses/business-service.js";
import type { Invitations } from "../businesses/invitations.js";
import type { MasterKeySource } from "../businesses/master-key.js";
import type { OneTimeReveals } from "../businesses/one-time-reveals.js";
import type { PasswordResets } from "../businesses/password-resets.js";
import type { SecondFactor } from "../businesses/second-factor.js";
import type { SecretBox } from "../businesses/secret-box.js";
import type { Sessions } from "../businesses/sessions.js";
import type { SignUps } from "../businesses/sign-ups.js";
import type { Team } from "../businesses/team.js";
import type { UserService } from "../businesses/user-service.js";
import type { Clock } from "../clock.js";

export type { Clock };

import type { ConsoleSearch } from "../businesses/console-search.js";
import type { Operators } from "../businesses/operators.js";
import type { BankNotifications } from "../collections/bank-notifications.js";
import type { CollectionReads } from "../collections/collection-reads.js";
import type { CollectionService } from "../collections/collection-service.js";
import type { CreditBlocks } from "../collections/credit-blocks.js";
import type { HeldCredits } from "../collections/held-credits.js";
import type { Config } from "../config/load.js";
import type { EventService } from "../events/event-service.js";
import type { Metrics } from "../http/metrics.js";
import type { RequestRecords } from "../idempotency/request-records.js";
import type { ChargesService } from "../ledger-audit/charges.js";
import type { Mailer } from "../mail/mailer.js";
import type { MailNotices } from "../mail/notices.js";
import type { BankService } from "../payouts/banks.js";
import type { BlockReturns } from "../payouts/block-returns.js";
import type { PayoutListing } from "../payouts/payout-listing.js";
import type { PayoutNotifications } from "../payouts/payout-notifications.js";
import type { PayoutService } from "../payouts/payout-service.js";
import type { PayoutSettings } from "../payouts/payout-settings.js";
import type { PayoutTracker } from "../payouts/payout-tracker.js";
import type { RefundService } from "../payouts/refunds.js";
import type { SettlementTermsService } from "../payouts/settlement-terms.js";
import type { SettlementService } from "../payouts/settlements.js";
import type { AccountProvider } from "../providers/account-provider.js";
import type { HttpBank } from "../providers/http-bank.js";
import type { VirtualBank } from "../providers/virtual-bank.js";
import type { DeadlineWatch } from "../reconciliation/deadline-watch.js";
import type { ReconciliationService } from "../reconciliation/reconciliation-service.js";
import type { Storage } from "../storage/database.js";
import type { Stores } from "../storage/stores.js";
import type { WebhookEndpointService } from "../webhooks/endpoint-service.js";
import type { RedeliveryService } from "../webhooks/redelivery.js";

// What the composition gives its callers (services.ts builds it): the services over one open
// database, and what a caller may put in place of the defaults.

/** What a caller may put in place of the defaults (tests: a clock, a failing bank; the CLI: a small pool). */

export interface Overrides {
  /** Replaces the configured provider (tests pass fakes). */
  provider?: (defaults: { storage: Storage; embedded: VirtualBank }) => AccountProvider;
  now?: Clock;
  /** Where the app logs (default: config.logLevel on stdout). */
  logger?: { level: LevelWithSilent; stream?: DestinationStream };
  /** PostgreSQL pool size instead of config.databasePoolSize (the CLI needs 2). */
  poolSize?: number;
}

/** The domain services over one open, migrated database: shared by the server, the CLI and tests. */
export interface Services {
  config: Config;
  storage: Storage;
  /** The hot path's writes, in the database's dialect. */
  stores: Stores;
  box: SecretBox;
  businesses: BusinessService;
  accounts: AccountService;
  lifecycle: AccountLifecycle;
  collections: CollectionService;
  /** A business's decisions on its held credits (issue 46, item 6). */
  heldCredits: HeldCredits;
  /** The dashboard's reads of payments: the search, the export, collections per day. */
  collectionReads: CollectionReads;
  /** The banks a payout can go to, and name enquiry. */
  banks: BankService;
  /** The operator's payout settings of each business (its payout fee). */
  payoutSettings: PayoutSettings;
  /** Payouts: made, and moved by what the bank says. */
  payouts: PayoutService;
  /** Payouts read: a business's own, and every business's for the console. */
  payoutListing: PayoutListing;
  /** Refunds of inbound transactions to their payers: payouts with `refundOf`. */
  refunds: RefundService;
  /** Operators' blocks on disputed credits (issue 46, item 7), and their returns. */
  creditBlocks: CreditBlocks;
  blockReturns: BlockReturns;
  /** A business's settlement account, schedule and reserve. */
  settlementTerms: SettlementTermsService;
  /** Settlements: made by hand or on the schedule (the settle job), and read. */
  settlements: SettlementService;
  /** Asks the bank about every pending payout until it is final (the check-payouts job). */
  payoutTracker: PayoutTracker;
  /** Outgoing mail: the outbox (the mail job sends it), and what is mailed when. */
  mailer: Mailer;
  notices: MailNotices;
  /** "Forgot password": reset links mailed, and used once. */
  passwordResets: PasswordResets;
  /** Sign-ups waiting for their email's confirmation. */
  signUps: SignUps;
  /** A business's members and their roles. */
  team: Team;
  /** The console's searches across every business. */
  consoleSearch: ConsoleSearch;
  /** The operator's charges (VAT, stamp duty): the schedule, the remittance report, statements. */
  charges: ChargesService;
  /** The console's operators: invited, given a role, disabled. */
  operators: Operators;
  /** Invitations to a business's team. */
  invitations: Invitations;
  /** A new secret, kept for the page a form redirects to, shown once. */
  reveals: OneTimeReveals;
  /** Reconciliation with the bank: requery, recovery from its statement, each day's report. */
  reconciliation: ReconciliationService;
  /** The CBN's deadlines watched: late credits, payouts' money not back in time (the deadlines job). */
  deadlines: DeadlineWatch;
  /**
   * The embedded Virtual Bank's payout notifications (its outcomes and reversals, told to the
   * service as a bank's would be): a job, with the embedded bank only.
   */
  bankPayoutNotices: { intervalMs: number; run: () => Promise<unknown> } | undefined;
  /** The bank's notifications (payments, and transfers out's statuses), when PROVIDER=http. */
  bankNotifications: { payments: BankNotifications; payouts: PayoutNotifications } | undefined;
  /** The bank over HTTP (PROVIDER=http), for its breaker's state. */
  httpBank: HttpBank | undefined;
  events: EventService;
  webhooks: WebhookEndpointService;
  redelivery: RedeliveryService;
  authenticator: Authenticator;
  requestRecords: RequestRecords;
  metrics: Metrics;
  users: UserService;
  /** Two-factor sign-in (TOTP). */
  secondFactor: SecondFactor;
  profiles: BusinessProfiles;
  sessions: Sessions;
  /** Binds the dashboard's CSRF tokens to sessions. */
  csrfKey: Buffer;
  /** Signs the dashboard's device cookies (browsers that signed in before). */
  deviceKey: Buffer;
  /** Where the master key came from (and its file, when it is one), for the log. */
  masterKey: { source: MasterKeySource; file?: string };
  /** Names of the migrations applied while opening. */
  migrated: string[];
  /** Closes everything; `mailWaitMs` bounds the wait for a mail being sent (the CLI's). */
  close(options?: { mailWaitMs?: number }): Promise<void>;
}
