import { type Migration, Migrator } from "kysely";
import type { Storage } from "./database.js";
import { isBusy, isUniqueViolation } from "./errors.js";
import * as initial from "./migrations/0001-initial.js";
import * as requestRecords from "./migrations/0002-request-records.js";
import * as signatureVersionAndHealth from "./migrations/0003-signature-version-and-health.js";
import * as verificationEvents from "./migrations/0004-verification-events.js";
import * as requestReference from "./migrations/0005-request-reference.js";
import * as virtualBankAccounts from "./migrations/0006-virtual-bank-accounts.js";
import * as numberIssuer from "./migrations/0007-number-issuer.js";
import * as collections from "./migrations/0008-collections.js";
import * as ledgerProofs from "./migrations/0009-ledger-proofs.js";
import * as events from "./migrations/0010-events.js";
import * as deliveryOrder from "./migrations/0011-delivery-order.js";
import * as pendingChain from "./migrations/0012-pending-chain.js";
import * as dashboard from "./migrations/0013-dashboard.js";
import * as auditByActor from "./migrations/0014-audit-by-actor.js";
import * as signInAttempts from "./migrations/0015-sign-in-attempts.js";
import * as ledgerCheckpoints from "./migrations/0016-ledger-checkpoints.js";
import * as transferLookup from "./migrations/0017-transfer-lookup.js";
import * as hotReadFunctions from "./migrations/0018-hot-read-functions.js";
import * as balancesNotNegative from "./migrations/0019-balances-not-negative.js";
import * as payoutFeeTiers from "./migrations/0020-payout-fee-tiers.js";
import * as payouts from "./migrations/0021-payouts.js";
import * as refunds from "./migrations/0022-refunds.js";
import * as payoutIps from "./migrations/0023-payout-ips.js";
import * as settlements from "./migrations/0024-settlements.js";
import * as reconciliation from "./migrations/0025-reconciliation.js";
import * as mail from "./migrations/0026-mail.js";
import * as passwordResets from "./migrations/0027-password-resets.js";
import * as recoveryCodes from "./migrations/0028-recovery-codes.js";
import * as teams from "./migrations/0029-teams.js";
import * as sessionReveals from "./migrations/0030-session-reveals.js";
import * as timeZone from "./migrations/0031-time-zone.js";
import * as consoleSearch from "./migrations/0032-console-search.js";
import * as operators from "./migrations/0033-operators.js";
import * as leasedDeliveries from "./migrations/0034-leased-deliveries.js";
import * as endpointReads from "./migrations/0035-endpoint-reads.js";
import * as transferLookups from "./migrations/0036-transfer-lookups.js";
import * as numbersForVerified from "./migrations/0037-numbers-for-verified.js";
import * as twoFactorRequired from "./migrations/0038-two-factor-required.js";
import * as oneTransferLookup from "./migrations/0039-one-transfer-lookup.js";
import * as keptPostingPlans from "./migrations/0040-kept-posting-plans.js";
import * as nipSessions from "./migrations/0041-nip-sessions.js";
import * as deadlines from "./migrations/0042-deadlines.js";
import * as charges from "./migrations/0043-charges.js";
import * as identityTiers from "./migrations/0044-identity-tiers.js";
import * as heldCredits from "./migrations/0045-held-credits.js";
import * as creditBlocks from "./migrations/0046-credit-blocks.js";

// Listed here rather than read from a folder, so the compiled service carries them with it.
const migrations: Readonly<Record<string, Migration>> = {
  "0001-initial": initial,
  "0002-request-records": requestRecords,
  "0003-signature-version-and-health": signatureVersionAndHealth,
  "0004-verification-events": verificationEvents,
  "0005-request-reference": requestReference,
  "0006-virtual-bank-accounts": virtualBankAccounts,
  "0007-number-issuer": numberIssuer,
  "0008-collections": collections,
  "0009-ledger-proofs": ledgerProofs,
  "0010-events": events,
  "0011-delivery-order": deliveryOrder,
  "0012-pending-chain": pendingChain,
  "0013-dashboard": dashboard,
  "0014-audit-by-actor": auditByActor,
  "0015-sign-in-attempts": signInAttempts,
  "0016-ledger-checkpoints": ledgerCheckpoints,
  "0017-transfer-lookup": transferLookup,
  "0018-hot-read-functions": hotReadFunctions,
  "0019-balances-not-negative": balancesNotNegative,
  "0020-payout-fee-tiers": payoutFeeTiers,
  "0021-payouts": payouts,
  "0022-refunds": refunds,
  "0023-payout-ips": payoutIps,
  "0024-settlements": settlements,
  "0025-reconciliation": reconciliation,
  "0026-mail": mail,
  "0027-password-resets": passwordResets,
  "0028-recovery-codes": recoveryCodes,
  "0029-teams": teams,
  "0030-session-reveals": sessionReveals,
  "0031-time-zone": timeZone,
  "0032-console-search": consoleSearch,
  "0033-operators": operators,
  "0034-leased-deliveries": leasedDeliveries,
  "0035-endpoint-reads": endpointReads,
  "0036-transfer-lookups": transferLookups,
  "0037-numbers-for-verified": numbersForVerified,
  "0038-two-factor-required": twoFactorRequired,
  "0039-one-transfer-lookup": oneTransferLookup,
  "0040-kept-posting-plans": keptPostingPlans,
  "0041-nip-sessions": nipSessions,
  "0042-deadlines": deadlines,
  "0043-charges": charges,
  "0044-identity-tiers": identityTiers,
  "0045-held-credits": heldCredits,
  "0046-credit-blocks": creditBlocks,
};

/** Every migration, in the order they apply. */
export const MIGRATION_NAMES = Object.keys(migrations).sort();

/**
 * Brings the schema up to date, in one transaction under a lock (PostgreSQL: a transaction-scoped
 * advisory lock, see postgres-dialect.ts; SQLite: the write lock), so processes starting
 * together migrate once.
 */
export async function migrate(storage: Storage): Promise<string[]> {
  const migrator = new Migrator({
    db: storage.migrationDb,
    provider: { getMigrations: async () => migrations },
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    // Processes racing to create Kysely's own migration tables and lock row: the loser retries.
    if (!(isBusy(error) || isUniqueViolation(error)) || attempt >= 5) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}
