import type { FastifyInstance } from "fastify";
import type { DomainServices } from "../../web/domain-services.js";
import type { RouteContract } from "../openapi-components.js";
import * as createWebhook from "./create-webhook.js";
import * as deactivateAccount from "./deactivate-account.js";
import * as deleteWebhook from "./delete-webhook.js";
import * as generatePermanent from "./generate-permanent.js";
import * as generateTemporary from "./generate-temporary.js";
import * as getAccount from "./get-account.js";
import * as getBalance from "./get-balance.js";
import * as getEvent from "./get-event.js";
import * as getTransaction from "./get-transaction.js";
import * as getWebhook from "./get-webhook.js";
import * as listAccounts from "./list-accounts.js";
import * as listEventAttempts from "./list-event-attempts.js";
import * as listEvents from "./list-events.js";
import * as listTransactions from "./list-transactions.js";
import * as listWebhooks from "./list-webhooks.js";
import * as reactivateAccount from "./reactivate-account.js";
import * as recoverWebhook from "./recover-webhook.js";
import * as redeliverEvent from "./redeliver-event.js";
import * as rotateWebhookSecret from "./rotate-webhook-secret.js";
import * as sandboxTransfer from "./sandbox-transfer.js";
import * as testWebhook from "./test-webhook.js";
import * as updateWebhook from "./update-webhook.js";

/** What the API's routes are given: the domain services, and whether sandbox transfers are served. */
export type ApiServices = DomainServices & { sandbox: boolean };

/** One signed operation of the API: its contract (the OpenAPI operation) and how the app serves it. */
export interface ApiRoute {
  contract: RouteContract;
  register(api: FastifyInstance, services: ApiServices): void;
}

/**
 * The API's signed operations, once: the app registers them (app.ts) and the OpenAPI document
 * lists them (openapi.ts), in this order.
 */
export const API_ROUTES: readonly ApiRoute[] = [
  {
    contract: generatePermanent.contract,
    register: (api, s) => generatePermanent.generatePermanentRoute(api, s.accounts),
  },
  {
    contract: generateTemporary.contract,
    register: (api, s) => generateTemporary.generateTemporaryRoute(api, s.accounts),
  },
  { contract: listAccounts.contract, register: (api, s) => listAccounts.listAccountsRoute(api, s.accounts) },
  { contract: getAccount.contract, register: (api, s) => getAccount.getAccountRoute(api, s.lifecycle) },
  {
    contract: deactivateAccount.contract,
    register: (api, s) => deactivateAccount.deactivateAccountRoute(api, s.lifecycle),
  },
  {
    contract: reactivateAccount.contract,
    register: (api, s) => reactivateAccount.reactivateAccountRoute(api, s.lifecycle),
  },
  {
    contract: listTransactions.contract,
    register: (api, s) => listTransactions.listTransactionsRoute(api, s.collections),
  },
  {
    contract: getTransaction.contract,
    register: (api, s) => getTransaction.getTransactionRoute(api, s.collections),
  },
  { contract: getBalance.contract, register: (api, s) => getBalance.getBalanceRoute(api, s.collections) },
  {
    contract: sandboxTransfer.contract,
    // Documented always (the document says when it is off); served in the sandbox only.
    register: (api, s) => {
      if (s.sandbox) sandboxTransfer.sandboxTransferRoute(api, s.collections);
    },
  },
  { contract: listEvents.contract, register: (api, s) => listEvents.listEventsRoute(api, s.events) },
  { contract: getEvent.contract, register: (api, s) => getEvent.getEventRoute(api, s.events) },
  {
    contract: listEventAttempts.contract,
    register: (api, s) => listEventAttempts.listEventAttemptsRoute(api, s.redelivery),
  },
  {
    contract: redeliverEvent.contract,
    register: (api, s) => redeliverEvent.redeliverEventRoute(api, s.redelivery),
  },
  {
    contract: createWebhook.contract,
    register: (api, s) => createWebhook.createWebhookRoute(api, s.webhooks),
  },
  { contract: listWebhooks.contract, register: (api, s) => listWebhooks.listWebhooksRoute(api, s.webhooks) },
  { contract: getWebhook.contract, register: (api, s) => getWebhook.getWebhookRoute(api, s.webhooks) },
  {
    contract: updateWebhook.contract,
    register: (api, s) => updateWebhook.updateWebhookRoute(api, s.webhooks),
  },
  {
    contract: deleteWebhook.contract,
    register: (api, s) => deleteWebhook.deleteWebhookRoute(api, s.webhooks),
  },
  {
    contract: rotateWebhookSecret.contract,
    register: (api, s) => rotateWebhookSecret.rotateWebhookSecretRoute(api, s.webhooks),
  },
  { contract: testWebhook.contract, register: (api, s) => testWebhook.testWebhookRoute(api, s.webhooks) },
  {
    contract: recoverWebhook.contract,
    register: (api, s) => recoverWebhook.recoverWebhookRoute(api, s.redelivery),
  },
];
