import type { Clock } from "../clock.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { SmallTransactions } from "../core/small-transactions.js";
import { DELIVERY_CHAIN } from "../events/delivery-chain.js";
import type { Storage } from "../storage/database.js";
import {
  deliveryContexts,
  dueDeliveries,
  leaseDeliveries,
  releaseLeases,
} from "../storage/delivery-repository.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import { findEndpointsById } from "../storage/webhook-repository.js";
import {
  type DeliveryContext,
  type DeliveryLog,
  type NextInChain,
  type OutcomeRules,
  recordOutcome,
} from "./attempt-outcome.js";
import { withinEndpointCaps } from "./endpoint-caps.js";
import type { StoredEndpoint } from "./endpoint-records.js";
import type { WebhookEndpointService } from "./endpoint-service.js";
import { WebhookPoster } from "./http-post.js";
import { deliveryHeaders } from "./signing.js";

export type { DeliveryLog } from "./attempt-outcome.js";

// The delivery worker every server process runs. Deliveries are rows: a due one is leased by
// whichever process claims it first (see delivery-repository.ts), attempted once, and settled
// only while the lease is still this process's. A process killed mid-delivery leaves a lease
// that expires; the delivery is then due again and made again (at least once: receivers dedupe
// on webhook-id). Delivering never runs inside an API request.

/** How long a claim holds a delivery: twice the attempt's timeout and a second, then it is due again. */
export const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 1_000;

export interface DeliveryWorkerOptions {
  storage: Storage;
  /** What chaining and claiming deliveries needs of the dialect (the stores' `deliveries`). */
  deliveries: DeliveryDialect<Executor>;
  /** Where attempts' outcomes are written (the stores' `smallTransactions`: batched on SQLite). */
  outcomes: SmallTransactions<Executor>;
  endpoints: WebhookEndpointService;
  timeoutMs: number;
  pollIntervalMs: number;
  concurrency: number;
  /** Deliveries to one endpoint in flight at once (one while it is failing a run). */
  maxInFlightPerEndpoint: number;
  retrySchedule: readonly number[];
  allowPrivate: boolean;
  log: DeliveryLog;
  now?: Clock;
  random?: () => number;
}

export class DeliveryWorker {
  private readonly now: Clock;
  /** What deciding an attempt's outcome needs (attempt-outcome.ts). */
  private readonly rules: OutcomeRules;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private running = false;
  /** stop() was asked: no chain is handed over any more. */
  private stopping = false;
  private tickPending = false;
  /** When the planned claim runs (ms), while tickPending. */
  private tickAt = 0;
  /** The last claim left due deliveries behind (no free slot, or their endpoint's cap). */
  private backlog = false;
  /** Kept-alive connections, a pool per receiver's origin. */
  private readonly poster: WebhookPoster;
  /** The attempts' outcomes, settled in shared transactions. */
  private readonly settlements: SmallTransactions<Executor>;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.now = options.now ?? Date.now;
    this.rules = {
      deliveries: options.deliveries,
      retrySchedule: options.retrySchedule,
      random: options.random ?? Math.random,
      log: options.log,
    };
    this.poster = new WebhookPoster({ timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate });
    this.settlements = options.outcomes;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops claiming, then waits for the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    this.tickPending = false;
    clearTimeout(this.timer);
    await this.ticking;
    await this.drain();
    this.poster.close();
  }

  /** Claims now rather than at the next poll (deliveries just queued: Deliver again). */
  wake(): void {
    this.schedule(0);
  }

  /** Claims and attempts what is due now (tests call it directly; the loop calls it on a timer). */
  async runOnce(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) {
      this.backlog = true;
      return 0;
    }
    const now = this.now();
    const lease = new Date(now + leaseMs(this.options.timeoutMs)).toISOString();
    const claimed = await writeTransaction(this.options.storage, async (trx) => {
      // More candidates than slots: some are skipped for their endpoint's cap.
      const due = await dueDeliveries(
        trx,
        this.options.deliveries,
        DELIVERY_CHAIN,
        new Date(now).toISOString(),
        free * 4,
      );
      const ids = withinEndpointCaps(due, this.options.maxInFlightPerEndpoint).slice(0, free);
      // More was due than taken (slots or an endpoint's cap): claim again when an attempt ends.
      this.backlog = due.length > ids.length;
      await leaseDeliveries(trx, ids, lease);
      if (ids.length === 0) return [];
      // What the attempts need, read with the lease: their events and endpoints, in two reads.
      const contexts = await deliveryContexts(trx, ids);
      const endpoints = await findEndpointsById(trx, [...new Set(contexts.map((c) => c.endpointId))]);
      const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
      return contexts.flatMap((context) => {
        const endpoint = byId.get(context.endpointId);
        return endpoint ? [{ context, endpoint }] : [];
      });
    });
    for (const { context, endpoint } of claimed) this.begin(context, endpoint, lease);
    return claimed.length;
  }

  /** Waits for the attempts in flight, those handed over meanwhile included. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Attempts a delivery leased to this process, in one of its slots. */
  private begin(context: DeliveryContext, endpoint: StoredEndpoint, lease: string): void {
    const id = context.id;
    const attempt = this.attempt(context, endpoint, lease).catch((error: unknown) => {
      this.options.log.warn({ err: error, deliveryId: id }, "webhook delivery attempt failed unexpectedly");
      return releaseLeases(this.options.storage.db, [id], lease).catch(() => {});
    });
    const tracked = attempt.finally(() => {
      this.inFlight.delete(tracked);
      this.freed();
    });
    this.inFlight.add(tracked);
  }

  /** A chain's next delivery, leased to this process by its predecessor's settling: attempted now. */
  private async handedOver(id: string, lease: string): Promise<void> {
    try {
      const [context] = await deliveryContexts(this.options.storage.db, [id]);
      const [endpoint] = context
        ? await findEndpointsById(this.options.storage.db, [context.endpointId])
        : [];
      // Closed since (its endpoint deleted or disabled): nothing to send, and no lease left to give back.
      if (context && (context.state !== "pending" || context.leaseUntil !== lease)) return;
      if (context && endpoint) return this.begin(context, endpoint, lease);
    } catch (error) {
      this.options.log.warn({ err: error, deliveryId: id }, "webhook delivery handed over could not be read");
    }
    // Given back: the next claim takes it.
    await releaseLeases(this.options.storage.db, [id], lease).catch(() => {});
    this.backlog = true;
  }

  /**
   * The claiming loop: after a claim that left due deliveries behind, the next claim comes as
   * soon as an attempt of this process ends; otherwise after the poll interval.
   */
  private schedule(delay: number): void {
    if (!this.running) return;
    // A claim already planned as soon or sooner stands; a later one (the poll) is brought forward.
    const at = Date.now() + delay;
    if (this.tickPending && this.tickAt <= at) return;
    this.tickPending = true;
    this.tickAt = at;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.tickPending = false;
      this.ticking = this.runOnce()
        .then(() => {
          // With a backlog and attempts in flight, the next attempt to end claims again; with a
          // backlog held by other processes' attempts (an endpoint's cap), poll.
          if (this.backlog && this.inFlight.size > 0) return;
          this.schedule(this.options.pollIntervalMs);
        })
        .catch((error: unknown) => {
          this.options.log.warn({ err: error }, "webhook delivery claim failed");
          this.schedule(this.options.pollIntervalMs);
        });
    }, delay);
    this.timer.unref();
  }

  /** An attempt finished: with a backlog, claim again (now, or at the poll while most slots are taken). */
  private freed(): void {
    if (!this.backlog) return;
    // A claim per freed slot would cost a claim per delivery: claim once a quarter of the slots
    // is free (or none is busy), each claim taking that many; a worker whose slots stay taken
    // (attempts hanging to their timeout) still claims at the poll.
    const free = this.options.concurrency - this.inFlight.size;
    const refill = Math.max(1, Math.floor(this.options.concurrency / 4));
    this.schedule(free >= refill || this.inFlight.size === 0 ? 0 : this.options.pollIntervalMs);
  }

  private async attempt(context: DeliveryContext, endpoint: StoredEndpoint, lease: string): Promise<void> {
    const { endpoints } = this.options;
    const startedAt = this.now();
    const body = JSON.stringify({
      type: context.type,
      timestamp: context.eventCreatedAt,
      sequence: context.sequence,
      accountNumber: context.accountNumber,
      data: JSON.parse(context.data),
    });
    const headers = deliveryHeaders(
      context.eventId,
      new Date(startedAt),
      body,
      endpoints.secretsFor(endpoint, startedAt),
    );
    const result = await this.poster.post(endpoint.url, body, headers);
    const attempt = context.attempts + 1;
    const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
    const settledAt = this.now();
    const error =
      result.error ??
      (delivered ? null : `the endpoint answered ${result.status} (only 2xx counts as delivered)`);
    this.options.log.info(
      {
        eventId: context.eventId,
        endpointId: endpoint.id,
        attempt,
        status: result.status ?? null,
        durationMs: result.durationMs,
        delivered,
      },
      "webhook delivery attempt",
    );
    // The chain's next delivery comes to this process with a lease of its own, unless it stops.
    const handOff = this.stopping
      ? undefined
      : new Date(settledAt + leaseMs(this.options.timeoutMs)).toISOString();
    let next: NextInChain;
    // Settled with the other attempts ending now: one transaction for all of them.
    await this.settlements.run(
      async (trx) => {
        const outcome = {
          context,
          endpoint,
          lease,
          attempt,
          startedAt,
          settledAt,
          result,
          delivered,
          error,
          handOff,
        };
        next = await recordOutcome(trx, this.rules, outcome);
      },
      `${endpoint.id}\u0000${context.accountNumber ?? ""}`,
    );
    if (next?.handed && handOff !== undefined) await this.handedOver(next.id, handOff);
    else if (next) this.backlog = true;
  }
}
