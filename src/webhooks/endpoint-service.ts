import { randomUUID } from "node:crypto";
import type { SecretBox } from "../businesses/secret-box.js";
import { type Clock, isoNow } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { AppError, ErrorCode } from "../errors.js";
import { recordEvent } from "../events/outbox.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  closePendingDeliveries,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  updateEndpoint,
} from "../storage/webhook-repository.js";
import type { UrlPolicy } from "./address-policy.js";
import { type EndpointChange, endpointInputs, type NewEndpoint } from "./endpoint-inputs.js";
import {
  type EndpointWithSecret,
  endpointView,
  type StoredEndpoint,
  type WebhookEndpoint,
} from "./endpoint-records.js";
import { newWebhookSecret } from "./signing.js";

/** At most this many endpoints per business. */
export const MAX_ENDPOINTS = 10;
/** How long the secret replaced by a rotation keeps signing deliveries beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export const ENDPOINT_ID = /^we_[0-9a-f]{32}$/;
const secretContext = (id: string) => `webhook-endpoint:${id}`;

export const webhookNotFound = () =>
  new AppError(ErrorCode.WEBHOOK_NOT_FOUND, 404, "Webhook endpoint not found");

/**
 * endpoint.disabled or endpoint.enabled, for the business's other endpoints (a disabled one gets
 * nothing, so it never hears of its own disabling) and GET /events.
 */
export async function recordEndpointChange(
  trx: Executor,
  deliveries: DeliveryDialect<Executor>,
  businessId: string,
  endpoint: WebhookEndpoint,
  now: string,
): Promise<void> {
  await recordEvent(
    trx,
    deliveries,
    {
      businessId,
      type: endpoint.enabled ? "endpoint.enabled" : "endpoint.disabled",
      accountNumber: null,
      data: endpoint,
    },
    now,
  );
}

export interface WebhookEndpointServiceOptions {
  storage: Storage;
  /** What chaining and claiming deliveries needs of the dialect (the stores' `deliveries`). */
  deliveries: DeliveryDialect<Executor>;
  box: SecretBox;
  policy: UrlPolicy;
  now?: Clock;
}

/** A business's webhook endpoints: where its events are delivered, and the secrets that sign them. */
export class WebhookEndpointService {
  private readonly now: Clock;
  /** The rules of a new endpoint's body and of a change, with this server's address policy. */
  readonly inputs: ReturnType<typeof endpointInputs>;

  constructor(private readonly options: WebhookEndpointServiceOptions) {
    this.now = options.now ?? Date.now;
    this.inputs = endpointInputs(options.policy);
  }

  /** POST /webhooks `{url, events?}`: a new endpoint and its secret, shown this once. */
  async create(
    business: ForBusiness,
    { url, events }: NewEndpoint,
    unit?: UnitOfWork,
  ): Promise<EndpointWithSecret> {
    const id = `we_${randomUUID().replaceAll("-", "")}`;
    const secret = newWebhookSecret();
    const now = isoNow(this.now);
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        if ((await listEndpoints(trx, business.businessId)).length >= MAX_ENDPOINTS) {
          throw new AppError(
            ErrorCode.WEBHOOK_LIMIT_REACHED,
            422,
            `A business has at most ${MAX_ENDPOINTS} webhook endpoints: delete one first`,
          );
        }
        const endpoint: StoredEndpoint = {
          id,
          businessId: business.businessId,
          url,
          eventTypes: events === null ? null : JSON.stringify(events),
          enabled: 1,
          disabledReason: null,
          secretCiphertext: this.options.box.seal(secret, secretContext(id)),
          previousSecretCiphertext: null,
          previousSecretUntil: null,
          failingSince: null,
          consecutiveFailures: 0,
          pausedUntil: null,
          deletedAt: null,
          createdAt: now,
          updatedAt: now,
        };
        await insertEndpoint(trx, endpoint);
        return { ...endpointView(endpoint), secret };
      },
      unit,
    );
  }

  async list(business: ForBusiness): Promise<WebhookEndpoint[]> {
    return (await listEndpoints(this.options.storage.db, business.businessId)).map(endpointView);
  }

  async get(business: ForBusiness, id: string): Promise<WebhookEndpoint> {
    return endpointView(await this.find(this.options.storage.db, business, id));
  }

  /**
   * PATCH /webhooks/:id `{url?, events?, enabled?}`. Enabling clears the reason it was disabled
   * and its run of failures; disabling ends its pending deliveries (failed).
   */
  async update(
    business: ForBusiness,
    id: string,
    { url, events, enabled }: EndpointChange,
    unit?: UnitOfWork,
  ): Promise<WebhookEndpoint> {
    const now = isoNow(this.now);
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        const endpoint = await this.find(trx, business, id);
        const next: StoredEndpoint = {
          ...endpoint,
          ...(url === undefined ? {} : { url }),
          ...(events === undefined ? {} : { eventTypes: events === null ? null : JSON.stringify(events) }),
          updatedAt: now,
        };
        if (enabled === true && endpoint.enabled === 0) {
          Object.assign(next, {
            enabled: 1,
            disabledReason: null,
            failingSince: null,
            consecutiveFailures: 0,
            pausedUntil: null,
          });
        }
        if (enabled === false && endpoint.enabled === 1) {
          Object.assign(next, { enabled: 0, disabledReason: "disabled by the business" });
          await closePendingDeliveries(trx, id, "failed", "the endpoint was disabled");
        }
        const { id: _, businessId: __, ...fields } = next;
        await updateEndpoint(trx, id, fields);
        const view = endpointView(next);
        if (next.enabled !== endpoint.enabled)
          await recordEndpointChange(trx, this.options.deliveries, endpoint.businessId, view, now);
        return view;
      },
      unit,
    );
  }

  /** DELETE /webhooks/:id: gone from the API; its pending deliveries are cancelled. */
  async remove(business: ForBusiness, id: string, unit?: UnitOfWork): Promise<{ id: string; deleted: true }> {
    const now = isoNow(this.now);
    // The transaction's result is the answer (a unit of work stores it before COMMIT).
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        await this.find(trx, business, id);
        await updateEndpoint(trx, id, { deletedAt: now, enabled: 0, updatedAt: now });
        await closePendingDeliveries(trx, id, "cancelled", "the endpoint was deleted");
        return { id, deleted: true as const };
      },
      unit,
    );
  }

  /**
   * POST /webhooks/:id/rotate-secret: a new secret, answered this once; for the next 24 hours
   * every delivery is signed by both, so receivers can switch without losing one.
   */
  async rotateSecret(business: ForBusiness, id: string, unit?: UnitOfWork): Promise<EndpointWithSecret> {
    const secret = newWebhookSecret();
    const now = this.now();
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        const endpoint = await this.find(trx, business, id);
        const fields = {
          secretCiphertext: this.options.box.seal(secret, secretContext(id)),
          previousSecretCiphertext: endpoint.secretCiphertext,
          previousSecretUntil: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
          updatedAt: new Date(now).toISOString(),
        };
        await updateEndpoint(trx, id, fields);
        return { ...endpointView({ ...endpoint, ...fields }), secret };
      },
      unit,
    );
  }

  /** POST /webhooks/:id/test: a webhook.test event, delivered to this endpoint only, now. */
  async sendTest(business: ForBusiness, id: string, unit?: UnitOfWork): Promise<{ eventId: string }> {
    const now = isoNow(this.now);
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        await this.find(trx, business, id);
        const event = await recordEvent(
          trx,
          this.options.deliveries,
          {
            businessId: business.businessId,
            type: "webhook.test",
            accountNumber: null,
            data: { test: true, endpointId: id },
            endpointIds: [id],
          },
          now,
        );
        return { eventId: event.id };
      },
      unit,
    );
  }

  /** The secrets that sign a delivery to this endpoint now: the current one, and the rotated one for 24 hours. */
  secretsFor(endpoint: StoredEndpoint, now: number): string[] {
    const secrets = [this.options.box.open(endpoint.secretCiphertext, secretContext(endpoint.id))];
    if (
      endpoint.previousSecretCiphertext !== null &&
      endpoint.previousSecretUntil !== null &&
      Date.parse(endpoint.previousSecretUntil) > now
    ) {
      secrets.push(this.options.box.open(endpoint.previousSecretCiphertext, secretContext(endpoint.id)));
    }
    return secrets;
  }

  private async find(db: Executor, business: ForBusiness, id: string): Promise<StoredEndpoint> {
    if (!ENDPOINT_ID.test(id)) throw webhookNotFound();
    const endpoint = await findEndpoint(db, business.businessId, id);
    if (!endpoint) throw webhookNotFound();
    return endpoint;
  }
}
