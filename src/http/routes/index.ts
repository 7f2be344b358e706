import type { FastifyInstance } from "fastify";
import type { ApiServices } from "../../web/domain-services.js";
import type { RouteContract } from "../openapi-components.js";
import * as acceptTransaction from "./accept-transaction.js";
import * as addIdentity from "./add-identity.js";
import * as createPayout from "./create-payout.js";
import * as createWebhook from "./create-webhook.js";
import * as deactivateAccount from "./deactivate-account.js";
import * as deleteWebhook from "./delete-webhook.js";
import * as generatePermanent from "./generate-permanent.js";
import * as generateTemporary from "./generate-temporary.js";
import * as getAccount from "./get-account.js";
import * as getBalance from "./get-balance.js";
import * as getEvent from "./get-event.js";
import * as getPayout from "./get-payout.js";
import * as getSettlement from "./get-settlement.js";
import * as getTransaction from "./get-transaction.js";
import * as getWebhook from "./get-webhook.js";
import * as listAccounts from "./list-accounts.js";
import * as listBanks from "./list-banks.js";
import * as listEventAttempts from "./list-event-attempts.js";
import * as listEvents from "./list-events.js";
import * as listPayouts from "./list-payouts.js";
import * as listSettlementTransactions from "./list-settlement-transactions.js";
import * as listSettlements from "./list-settlements.js";
import * as listTransactions from "./list-transactions.js";
import * as listWebhooks from "./list-webhooks.js";
import * as reactivateAccount from "./reactivate-account.js";
import * as recoverWebhook from "./recover-webhook.js";
import * as redeliverEvent from "./redeliver-event.js";
import * as refundTransaction from "./refund-transaction.js";
import * as requeryTransaction from "./requery-transaction.js";
import * as resolveBankAccount from "./resolve-bank-account.js";
import * as returnTransaction from "./return-transaction.js";
import * as rotateWebhookSecret from "./rotate-webhook-secret.js";
import * as sandboxPayoutAccounts from "./sandbox-payout-accounts.js";
import * as sandboxTransfer from "./sandbox-transfer.js";
import * as testWebhook from "./test-webhook.js";
import * as updateAccount from "./update-account.js";
import * as updateWebhook from "./update-webhook.js";

/** One signed operation of the API: its contract (the OpenAPI operation) and how the app serves it. */
export interface ApiRoute {
  contract: RouteContract;
  register(api: FastifyInstance, services: ApiServices): void;
}

/**
 * The API's signed operations, once: the app registers them (app.ts) and the OpenAPI document
 * lists them (openapi.ts), in this order. Each route file exports its `contract` and `register`.
 */
export const API_ROUTES: readonly ApiRoute[] = [
  generatePermanent,
  generateTemporary,
  listAccounts,
  getAccount,
  updateAccount,
  deactivateAccount,
  reactivateAccount,
  addIdentity,
  listTransactions,
  getTransaction,
  requeryTransaction,
  getBalance,
  sandboxTransfer,
  listEvents,
  getEvent,
  listEventAttempts,
  redeliverEvent,
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  recoverWebhook,
  listBanks,
  resolveBankAccount,
  sandboxPayoutAccounts,
  createPayout,
  listPayouts,
  getPayout,
  refundTransaction,
  acceptTransaction,
  returnTransaction,
  listSettlements,
  getSettlement,
  listSettlementTransactions,
];
