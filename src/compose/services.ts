import { AccountLifecycle } from "../accounts/account-lifecycle.js";
import { AccountService } from "../accounts/account-service.js";
import { Authenticator } from "../auth/authenticator.js";
import { secretKeyOpener } from "../businesses/api-keys.js";
import { BusinessProfiles } from "../businesses/business-profile.js";
import { BusinessService } from "../businesses/business-service.js";
import { ConsoleSearch } from "../businesses/console-search.js";
import { Invitations } from "../businesses/invitations.js";
import { resolveMasterKey } from "../businesses/master-key.js";
import { OneTimeReveals } from "../businesses/one-time-reveals.js";
import { Operators } from "../businesses/operators.js";
import { PasswordResets } from "../businesses/password-resets.js";
import { SecondFactor } from "../businesses/second-factor.js";
import { SecretBox, SecretBoxError } from "../businesses/secret-box.js";
import { loadServiceKey, ServiceKey } from "../businesses/service-keys.js";
import { Sessions } from "../businesses/sessions.js";
import { SignUps } from "../businesses/sign-ups.js";
import { Team } from "../businesses/team.js";
import { UserService } from "../businesses/user-service.js";
import { BankNotifications } from "../collections/bank-notifications.js";
import { CollectionReads } from "../collections/collection-reads.js";
import { CollectionService } from "../collections/collection-service.js";
import { HeldCredits } from "../collections/held-credits.js";
import type { Config } from "../config/load.js";
import { EventService } from "../events/event-service.js";
import { Metrics } from "../http/metrics.js";
import { RequestRecords } from "../idempotency/request-records.js";
import { ChargesService } from "../ledger-audit/charges.js";
import { PayoutNotifications } from "../payouts/payout-notifications.js";
import { HttpBank } from "../providers/http-bank.js";
import { VirtualBank } from "../providers/virtual-bank.js";
import type { VirtualBankStore } from "../providers/virtual-bank-store.js";
import { DeadlineWatch } from "../reconciliation/deadline-watch.js";
import { ReconciliationService } from "../reconciliation/reconciliation-service.js";
import { openStorage, type Storage } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { postgresStores } from "../storage/postgres/stores.js";
import { postgresVirtualBankStore } from "../storage/postgres/virtual-bank-store.js";
import { sqliteStores } from "../storage/sqlite/stores.js";
import { sqliteVirtualBankStore } from "../storage/sqlite/virtual-bank-store.js";
import type { Stores } from "../storage/stores.js";
import { WebhookEndpointService } from "../webhooks/endpoint-service.js";
import { RedeliveryService } from "../webhooks/redelivery.js";
import { mailOnChanges, openMail } from "./mail.js";
import { moneyOut } from "./money-out.js";

// The one place where the service is put together: config -> storage -> services -> jobs ->
// app. The server (main.ts), the CLI, the tests and the benchmarks all build through here, with
// overrides for what a test must control; nothing else wires these parts.

import type { Overrides, Services } from "./service-types.js";

export type { Clock, Overrides, Services } from "./service-types.js";

export class MasterKeyMismatchError extends Error {
  constructor(cause: unknown) {
    super(
      "The master key cannot open the secrets stored in this database: it is not the key they were sealed with. " +
        "Set VAS_MASTER_KEY (or DATA_DIR) to the key this database was created with.",
      { cause },
    );
    this.name = "MasterKeyMismatchError";
  }
}

/**
 * Whether the service itself simulates transfers (POST /sandbox/transfers, the dashboard's
 * form): in the sandbox, with the embedded bank. With a bank over HTTP, money arrives only as
 * that bank's notifications (the Virtual Bank server has its own POST /sandbox/pay).
 */
export const sandboxTransfers = (config: Config) => config.sandbox && config.provider.kind === "embedded";

/** vas_bank_breaker_state's values. */
const BREAKER_GAUGE = { closed: 0, "half-open": 1, open: 2 } as const;

/** Opens and migrates the database, loads the service keys and wires the services. */
export async function openServices(config: Config, overrides: Overrides = {}): Promise<Services> {
  const master = resolveMasterKey(config.masterKey, config.dataDir);
  // Metrics exist before storage so that every statement is timed; the pool is read at scrape time.
  let storage: Storage | undefined;
  const metrics = new Metrics(() => storage?.poolState() ?? { total: 0, idle: 0, waiting: 0 });
  const opened = openStorage(config.database, {
    poolSize: overrides.poolSize ?? config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    ssl: config.databaseSsl,
    sqliteSynchronous: config.sqliteSynchronous,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
    onQuery: metrics.queryDuration,
  });
  storage = opened;
  // Each store's dialect, chosen once: nothing below asks which database it runs on. The Virtual
  // Bank's store is storage's implementation of the providers' port: assigning it here is where
  // the compiler checks that it fits.
  let stores: Stores;
  let bankStore: VirtualBankStore;
  if (opened.dialect === "sqlite") {
    stores = sqliteStores(opened);
    bankStore = sqliteVirtualBankStore(opened);
  } else {
    stores = postgresStores(opened);
    bankStore = postgresVirtualBankStore(opened);
  }
  try {
    const migrated = await migrate(opened);
    const box = new SecretBox(master.key, config.previousMasterKeys);
    let permutationKey: Buffer;
    let fingerprintKey: Buffer;
    let csrfKey: Buffer;
    let deviceKey: Buffer;
    let recoveryKey: Buffer;
    try {
      permutationKey = await loadServiceKey(opened.db, box, ServiceKey.virtualBankPermutation);
      fingerprintKey = await loadServiceKey(opened.db, box, ServiceKey.identityFingerprint);
      csrfKey = await loadServiceKey(opened.db, box, ServiceKey.dashboardCsrf);
      deviceKey = await loadServiceKey(opened.db, box, ServiceKey.dashboardDevice);
      recoveryKey = await loadServiceKey(opened.db, box, ServiceKey.recoveryCodes);
    } catch (error) {
      throw error instanceof SecretBoxError ? new MasterKeyMismatchError(error) : error;
    }
    const now = overrides.now ?? Date.now;
    const embedded = new VirtualBank({
      store: bankStore,
      institutionCode: config.nubanInstitutionCode,
      permutationKey,
      sandbox: config.sandbox,
      now,
      payoutDelays: { settleMs: config.payouts.sandboxSettleMs, reverseMs: config.payouts.sandboxReverseMs },
      nipReading: config.payouts.nipReading,
    });
    const bank = config.provider;
    const http =
      bank.kind === "http" && !overrides.provider
        ? new HttpBank({
            url: bank.url,
            appId: bank.appId,
            privateKey: bank.privateKey,
            bankName: config.bankName,
            timeoutMs: bank.timeoutMs,
            createAttempts: bank.createAttempts,
            createBudgetMs: bank.createBudgetMs,
            breakerThreshold: bank.breakerThreshold,
            breakerHalfOpenMs: bank.breakerHalfOpenMs,
            nipReading: config.payouts.nipReading,
          })
        : undefined;
    http?.onBreakerChange((state) => metrics.bankBreakerState.set(BREAKER_GAUGE[state]));
    const provider = overrides.provider?.({ storage: opened, embedded }) ?? http ?? embedded;
    const authenticator = new Authenticator({
      db: opened.db,
      reads: opened.hot,
      openSecret: secretKeyOpener(box),
      now,
      cacheTtlMs: config.authCacheTtlMs,
    });
    const collections = new CollectionService({
      storage: opened,
      ledger: stores.ledger,
      maxTransferKobo: config.maxTransferKobo,
      sandbox: sandboxTransfers(config),
      tierLimits: config.tierLimits,
      deliveries: stores.deliveries,
      now,
    });
    collections.onConflict(() => metrics.transferConflicts.inc());
    // The partner bank answers name enquiries, makes payouts and keeps the statement: the HTTP
    // bank, else the embedded one.
    const partner = http ?? embedded;
    const money = moneyOut({
      config,
      storage: opened,
      stores,
      bank: partner,
      embedded: http ? undefined : embedded,
      metrics,
      now,
    });
    const { payouts } = money;
    const mail = openMail(config, opened, box, now, metrics);
    const businesses = new BusinessService({
      storage: opened,
      box,
      now,
      onCredentialsChanged: () => authenticator.invalidate(),
    });
    mailOnChanges(mail.notices, { businesses, payouts, settlementTerms: money.settlementTerms });
    const secondFactor = new SecondFactor({
      storage: opened,
      box,
      recoveryKey,
      notices: mail.notices,
      moneyCoolOffMs: config.dashboard.moneyCoolOffHours * 3_600_000,
      now,
    });
    return {
      config,
      storage: opened,
      stores,
      box,
      businesses,
      users: new UserService({ storage: opened, now }),
      secondFactor,
      signUps: new SignUps({ storage: opened, businesses, notices: mail.notices, now }),
      team: new Team({ storage: opened, secondFactor, notices: mail.notices, now }),
      consoleSearch: new ConsoleSearch({ storage: opened, businesses, now }),
      charges: new ChargesService(opened.db, now),
      operators: new Operators({ storage: opened, notices: mail.notices, now }),
      invitations: new Invitations({ storage: opened, notices: mail.notices, now }),
      profiles: new BusinessProfiles(opened, businesses, now),
      sessions: new Sessions(
        opened,
        { idleMs: config.dashboard.sessionIdleMs, absoluteMs: config.dashboard.sessionMaxMs },
        now,
      ),
      reveals: new OneTimeReveals(opened, box),
      csrfKey,
      deviceKey,
      accounts: new AccountService({
        storage: opened,
        writes: stores.accounts,
        provider,
        identities: partner,
        fingerprintKey,
        maxTransferKobo: config.maxTransferKobo,
        now,
      }),
      lifecycle: new AccountLifecycle({
        storage: opened,
        deliveries: stores.deliveries,
        provider,
        identities: partner,
        fingerprintKey,
        now,
      }),
      collections,
      heldCredits: new HeldCredits({ ledger: stores.ledger, now }),
      collectionReads: new CollectionReads({ storage: opened, now }),
      ...money,
      mailer: mail.mailer,
      notices: mail.notices,
      passwordResets: new PasswordResets({ storage: opened, notices: mail.notices, now }),
      reconciliation: new ReconciliationService({
        storage: opened,
        bank: partner,
        collections,
        applyBankState: (state) => payouts.applyBankState(state),
        issuedTo: (businessId, accountNumber) => opened.hot.issuedTo(businessId, accountNumber),
        intervalMs: config.reconciliation.intervalMs,
        now,
      }),
      deadlines: new DeadlineWatch({
        storage: opened,
        creditLateMs: config.deadlines.creditLateMs,
        returnLateMs: config.deadlines.returnLateMs,
        now,
      }),
      httpBank: http,
      bankNotifications:
        bank.kind === "http"
          ? {
              payments: new BankNotifications({
                collections,
                appId: bank.appId,
                bankPublicKey: bank.bankPublicKey,
                now,
              }),
              payouts: new PayoutNotifications({
                payouts,
                appId: bank.appId,
                bankPublicKey: bank.bankPublicKey,
                nipReading: config.payouts.nipReading,
                now,
              }),
            }
          : undefined,
      events: new EventService({
        storage: opened,
        bankName: provider.bankName,
        retentionDays: config.eventRetentionDays,
        now,
      }),
      webhooks: new WebhookEndpointService({
        storage: opened,
        deliveries: stores.deliveries,
        box,
        policy: { requireHttps: config.webhooks.requireHttps, allowPrivate: config.webhooks.allowPrivate },
        now,
      }),
      redelivery: new RedeliveryService({
        storage: opened,
        deliveries: stores.deliveries,
        retentionDays: config.eventRetentionDays,
        now,
      }),
      authenticator,
      requestRecords: new RequestRecords({
        db: opened.db,
        claims: stores.requestRecords,
        leaseMs: config.requestTimeoutMs * 2,
        now,
      }),
      metrics,
      masterKey: { source: master.source, ...(master.file ? { file: master.file } : {}) },
      migrated,
      close: async (options = {}) => {
        // A message this process is sending finishes first: closed under it, it would stay
        // claimed until its lease ran out. The CLI waits no longer than it said it would (a
        // mail server that never answers): what is unsent is the mail job's after the lease.
        const waited = mail.mailer.idle();
        if (options.mailWaitMs === undefined) await waited;
        else
          await Promise.race([
            waited,
            new Promise((resolve) => setTimeout(resolve, options.mailWaitMs).unref()),
          ]);
        mail.transport.close();
        await opened.close();
      },
    };
  } catch (error) {
    await opened.close().catch(() => {});
    throw error;
  }
}
