import { z } from "zod";
import { type Clock, isoNow } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { DeliveryAttempt } from "../core/delivery-attempt.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { check, parsedBy } from "../core/validation.js";
import { eventNotFound, validationFailed } from "../errors.js";
import { DELIVERY_CHAIN, UNSCHEDULED } from "../events/delivery-chain.js";
import { EVENT_ID, type EventDelivery } from "../events/event-service.js";
import { SUBSCRIBABLE_TYPES, subscribes } from "../events/outbox.js";
import type { Storage } from "../storage/database.js";
import { requeueDeliveries, rescheduleDeliveries } from "../storage/delivery-repository.js";
import { deliveriesOf, findEvent } from "../storage/event-repository.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import { attemptsOf, findEndpoint, listEndpoints } from "../storage/webhook-repository.js";
import type { StoredEndpoint } from "./endpoint-records.js";
import { ENDPOINT_ID, webhookNotFound } from "./endpoint-service.js";

// What a business does after an outage on its side: see every attempt, deliver one event again,
// or re-send everything since a time to one endpoint. All of it queues deliveries for the
// worker; nothing is sent from the request.

const sinceSchema = z.iso.datetime({
  offset: true,
  error: "since must be an ISO 8601 date-time with a zone",
});

/** POST /events/:id/redeliver `{endpointId?}`: one endpoint, or every one that had or takes the event. */
export interface Redelivery {
  endpointId?: string;
}

/** Its body: an endpointId that cannot exist is 404 `WEBHOOK_NOT_FOUND`, as an unknown one is. */
export const redeliveryInput = parsedBy((body): Redelivery => {
  if (body.endpointId == null) return {};
  if (typeof body.endpointId !== "string" || !ENDPOINT_ID.test(body.endpointId)) throw webhookNotFound();
  return { endpointId: body.endpointId };
});

/** POST /webhooks/:id/recover `{since}`: re-send every event since this instant (ISO 8601, UTC). */
export interface Recovery {
  since: string;
}

export interface RedeliveryServiceOptions {
  storage: Storage;
  /** What chaining and claiming deliveries needs of the dialect (the stores' `deliveries`). */
  deliveries: DeliveryDialect<Executor>;
  /** Events are kept this many days: recovery cannot start earlier (EVENT_RETENTION_DAYS). */
  retentionDays: number;
  now?: Clock;
}

/** A pending delivery scheduled for a later retry and held by no process: Deliver again brings it forward. */
function waitsForRetry(delivery: EventDelivery, now: string): boolean {
  return (
    delivery.state === "pending" &&
    delivery.nextAttemptAt > now &&
    delivery.nextAttemptAt !== UNSCHEDULED &&
    (delivery.leaseUntil === null || delivery.leaseUntil < now)
  );
}

export class RedeliveryService {
  private readonly now: Clock;
  private readonly queuedListeners: Array<() => unknown> = [];

  constructor(private readonly options: RedeliveryServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A recovery's body: `since`, an instant with a zone, no older than the events kept. */
  readonly recoveryInput = parsedBy((body): Recovery => {
    if (body.since == null) throw validationFailed("since is required");
    const since = new Date(check(sinceSchema, body.since)).toISOString();
    const { retentionDays } = this.options;
    if (since < new Date(this.now() - retentionDays * 86_400_000).toISOString()) {
      throw validationFailed(
        `since must be within the last ${retentionDays} days: older events are not kept (EVENT_RETENTION_DAYS)`,
      );
    }
    return { since };
  });

  /** GET /events/:id/attempts: every attempt to deliver the event, oldest first. */
  async attempts(business: ForBusiness, eventId: string): Promise<DeliveryAttempt[]> {
    const db = this.options.storage.db;
    if (!EVENT_ID.test(eventId) || !(await findEvent(db, business.businessId, eventId)))
      throw eventNotFound();
    return attemptsOf(db, eventId);
  }

  /** Calls `listener` each time deliveries are queued, once they are committed (the worker claims at once). */
  onQueued(listener: () => unknown): void {
    this.queuedListeners.push(listener);
  }

  /**
   * POST /events/:id/redeliver `{endpointId?}`: delivers the event again, now, to that endpoint,
   * or to every enabled endpoint that had it or takes its type. Same webhook-id as before. A
   * delivery still waiting for a retry is made due now (one being attempted is left to it, and
   * one waiting behind an earlier event of its account goes after that event, in order).
   */
  async redeliver(
    business: ForBusiness,
    eventId: string,
    { endpointId }: Redelivery,
    unit?: UnitOfWork,
  ): Promise<{ queued: number }> {
    if (!EVENT_ID.test(eventId)) throw eventNotFound();
    const now = isoNow(this.now);
    const answer = await writeTransaction(
      this.options.storage,
      async (trx) => {
        const event = await findEvent(trx, business.businessId, eventId);
        if (!event) throw eventNotFound();
        const deliveries = await deliveriesOf(trx, [eventId]);
        let targets: StoredEndpoint[];
        if (endpointId !== undefined) {
          const endpoint = await findEndpoint(trx, business.businessId, endpointId);
          if (!endpoint) throw webhookNotFound();
          targets = [endpoint];
        } else {
          const had = new Set(deliveries.map((d) => d.endpointId));
          targets = (await listEndpoints(trx, business.businessId)).filter(
            (e) => had.has(e.id) || subscribes(e.eventTypes, event.type as never),
          );
        }
        const enabled = new Set(targets.filter((e) => e.enabled === 1).map((e) => e.id));
        const waiting = deliveries.filter((d) => enabled.has(d.endpointId) && waitsForRetry(d, now));
        let queued = await rescheduleDeliveries(
          trx,
          waiting.map((d) => d.id),
          now,
          now,
        );
        for (const id of enabled) {
          queued += await requeueDeliveries(
            trx,
            this.options.deliveries,
            DELIVERY_CHAIN,
            { businessId: business.businessId, endpointId: id, eventId, types: null },
            now,
          );
        }
        return { queued };
      },
      unit,
    );
    if (answer.queued > 0) for (const listener of this.queuedListeners) listener();
    return answer;
  }

  /**
   * POST /webhooks/:id/recover `{since}`: re-sends to this endpoint every event since `since`
   * that it takes (recovery after an outage on the business's side), oldest first as the worker
   * finds them due. Events still pending for it are left to their schedule.
   */
  async recover(
    business: ForBusiness,
    endpointId: string,
    { since }: Recovery,
    unit?: UnitOfWork,
  ): Promise<{ queued: number }> {
    if (!ENDPOINT_ID.test(endpointId)) throw webhookNotFound();
    const now = isoNow(this.now);
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        const endpoint = await findEndpoint(trx, business.businessId, endpointId);
        if (!endpoint) throw webhookNotFound();
        if (endpoint.enabled !== 1) throw validationFailed("the endpoint is disabled: enable it first");
        const types =
          endpoint.eventTypes === null ? SUBSCRIBABLE_TYPES : (JSON.parse(endpoint.eventTypes) as string[]);
        const queued = await requeueDeliveries(
          trx,
          this.options.deliveries,
          DELIVERY_CHAIN,
          { businessId: business.businessId, endpointId, since, types },
          now,
        );
        return { queued };
      },
      unit,
    );
  }
}
