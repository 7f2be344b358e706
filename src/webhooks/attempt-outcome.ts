import { randomUUID } from "node:crypto";
import type { DeliveryState } from "../core/api-types.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import { DELIVERY_CHAIN } from "../events/delivery-chain.js";
import {
  deferEndpointDeliveries,
  scheduleNextInChain,
  settleDelivery,
} from "../storage/delivery-repository.js";
import type { Executor } from "../storage/executor.js";
import { closePendingDeliveries, insertAttempt, updateEndpoint } from "../storage/webhook-repository.js";
import { endpointView, type StoredEndpoint } from "./endpoint-records.js";
import { recordEndpointChange } from "./endpoint-service.js";
import type { PostResult } from "./http-post.js";
import { nextDelayMs, retryAfterMs } from "./retry-schedule.js";

/** After this many failed attempts in a row, an endpoint is paused until its next retry and then probed. */
export const FAILURE_RUN = 5;

/** Every attempt of an endpoint failing for this long disables it. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

export interface DeliveryLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** What deciding an attempt's outcome needs besides the attempt. */
export interface OutcomeRules {
  deliveries: DeliveryDialect<Executor>;
  retrySchedule: readonly number[];
  random: () => number;
  log: DeliveryLog;
}

/**
 * A delivery leased for an attempt, with its event: what storage's read of the leased deliveries
 * answers (storage/delivery-repository.ts's deliveryContexts).
 */
export interface DeliveryContext {
  id: string;
  state: DeliveryState;
  /** Attempts made before this one. */
  attempts: number;
  leaseUntil: string | null;
  eventId: string;
  type: string;
  /** The event's data, as JSON. */
  data: string;
  eventCreatedAt: string;
  sequence: number;
  /** The account whose chain the delivery is in, when the event concerns one. */
  accountNumber: string | null;
  endpointId: string;
}

/** One attempt as it ended: what was sent where, under which lease, and what came back. */
export interface EndedAttempt {
  context: DeliveryContext;
  endpoint: StoredEndpoint;
  lease: string;
  /** Its number: 1 for a delivery's first attempt. */
  attempt: number;
  startedAt: number;
  settledAt: number;
  result: PostResult;
  delivered: boolean;
  error: string | null;
  /** A lease to hand the chain's next delivery over with, after a success (the worker has room). */
  handOff?: string | undefined;
}

/** The chain's next delivery, scheduled by a settled one: due now, or leased to this process (handed over). */
export type NextInChain = { id: string; handed: boolean } | undefined;

/**
 * Records an attempt and settles its delivery in `trx`, only while the lease is still this
 * process's: delivered; failed for good (a 410, or the endpoint failing for 5 days, which
 * disables it); or moved to its next retry, pausing the endpoint after a run of failures. A
 * settled delivery schedules its chain's next one, due now; after a success, with `handOff`, it
 * is leased to this process instead, to attempt at once (the endpoint answers: its cap is kept,
 * one in flight for one).
 */
export async function recordOutcome(
  trx: Executor,
  rules: OutcomeRules,
  ended: EndedAttempt,
): Promise<NextInChain> {
  const { context, endpoint, lease, attempt, startedAt, settledAt, result, delivered, error } = ended;
  const id = context.id;
  const settledIso = new Date(settledAt).toISOString();
  await insertAttempt(trx, {
    id: `att_${randomUUID().replaceAll("-", "")}`,
    deliveryId: id,
    eventId: context.eventId,
    endpointId: endpoint.id,
    attempt,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: result.durationMs,
    statusCode: result.status ?? null,
    responseExcerpt: result.excerpt ?? null,
    error,
  });
  const common = { attempts: attempt, lastStatus: result.status ?? null, lastError: error };
  // Settled (delivered, failed for good, or moved to a later retry): the account's next event
  // for this endpoint is due now.
  const scheduleNext = async (handOff?: string): Promise<NextInChain> => {
    if (context.accountNumber === null) return undefined;
    const { deliveries } = rules;
    const next = await scheduleNextInChain(
      trx,
      deliveries,
      DELIVERY_CHAIN,
      endpoint.id,
      context.accountNumber,
      settledIso,
      handOff,
    );
    return next === undefined ? undefined : { id: next, handed: handOff !== undefined };
  };
  if (delivered) {
    if (!(await settleDelivery(trx, id, lease, { ...common, state: "delivered", deliveredAt: settledIso })))
      return undefined;
    await updateEndpoint(trx, endpoint.id, { failingSince: null, consecutiveFailures: 0, pausedUntil: null });
    return scheduleNext(ended.handOff);
  }
  const gone = result.status === 410;
  const failingSince = endpoint.failingSince ?? settledIso;
  const exhausted = settledAt - Date.parse(failingSince) >= DISABLE_AFTER_FAILING_MS;
  if (gone || exhausted) {
    const reason = gone ? "the endpoint answered 410 Gone" : "every delivery attempt failed for 5 days";
    await settleDelivery(trx, id, lease, { ...common, state: "failed" });
    const disabled = {
      enabled: 0,
      disabledReason: reason,
      failingSince,
      consecutiveFailures: endpoint.consecutiveFailures + 1,
      pausedUntil: null,
      updatedAt: settledIso,
    };
    await updateEndpoint(trx, endpoint.id, disabled);
    await closePendingDeliveries(trx, endpoint.id, "failed", `the endpoint was disabled: ${reason}`);
    await recordEndpointChange(
      trx,
      rules.deliveries,
      endpoint.businessId,
      endpointView({ ...endpoint, ...disabled }),
      settledIso,
    );
    rules.log.warn({ endpointId: endpoint.id, reason }, "webhook endpoint disabled");
    return undefined;
  }
  const honoured =
    result.status === 429 || result.status === 503 ? retryAfterMs(result.retryAfter, settledAt) : undefined;
  const delay = nextDelayMs(rules.retrySchedule, attempt, rules.random());
  const nextAt =
    delay === undefined ? undefined : new Date(settledAt + Math.max(delay, honoured ?? 0)).toISOString();
  const next = nextAt === undefined ? { state: "failed" as const } : { nextAttemptAt: nextAt };
  if (!(await settleDelivery(trx, id, lease, { ...common, ...next }))) return undefined;
  const failures = endpoint.consecutiveFailures + 1;
  // A run of failures: the endpoint's other deliveries wait with this one for its next retry,
  // when this one goes first as the probe, instead of each timing out in turn.
  const pausedUntil = failures >= FAILURE_RUN && nextAt !== undefined ? nextAt : null;
  await updateEndpoint(trx, endpoint.id, { failingSince, consecutiveFailures: failures, pausedUntil });
  // The successor first, so that a pause defers it with the rest.
  const scheduled = await scheduleNext();
  if (pausedUntil !== null) await deferEndpointDeliveries(trx, endpoint.id, pausedUntil);
  return scheduled;
}
