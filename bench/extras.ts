// The scenarios beyond the targets', on a database of their own seeded with deep account lists
// (directly through storage, bench/seed.ts): the re-issue, temporary accounts, list pages at
// depth, a rejected signature; webhook deliveries; payouts created to final. Each is one run
// beside one run of its floor (the webhook and payout phases: the floor first, then the phase),
// not the targets' rounds: they describe, they are not judged.

import type { Services } from "../src/compose/services.js";
import type { Key, Target } from "./harness.js";
import { type BenchRequest, type Load, measure, numbered, type Result } from "./load.js";
import { type PayoutStats, payoutBusiness } from "./payouts.js";
import { seedAccounts } from "./seed.js";
import { transfers } from "./targets.js";
import { combinedStats, type WebhookPayee, type WebhookStats, webhookPayee } from "./webhooks.js";

/** Transfers a second in the paced webhook scenario: issue 29's "notification to webhook" target. */
export const PACED_RATE = 500;

/** One scenario: what it sends, the floor it is held to. */
export interface ExtraScenario {
  name: string;
  floor: "write" | "read";
  expectStatus: number[];
  requests: (b: ExtraBusinesses) => () => BenchRequest;
}

/** Creates the extras' businesses: seeded lists, webhook receivers, a payer. */
export async function extraBusinesses(services: Services, deep: number, small: number) {
  const business = async (name: string, accounts: number): Promise<Key> => {
    const created = await services.businesses.createBusiness(name, "completed");
    if (accounts > 0) await seedAccounts(services, created.business.id, accounts);
    return { apiKey: created.apiKey, secretKey: created.secretKey };
  };
  return {
    writer: await business("Writer Ltd", 0),
    small: await business("Small Ltd", small),
    deep: await business("Deep Ltd", deep),
    // Payees whose events go to webhook receivers in this process: one receiver; one at a steady
    // PACED_RATE; ten; at most 10 endpoints a business, so nine that answer and one that hangs.
    hooked: await webhookPayee(services, "Hooked Ltd", 1, false),
    paced: await webhookPayee(services, "Paced Ltd", 1, false),
    fanout: await webhookPayee(services, "Fanout Ltd", 10, false),
    fanoutHanging: await webhookPayee(services, "Fanout Hanging Ltd", 9, true),
    // API payouts on, no limit in the way, and money to send.
    payer: await payoutBusiness(services),
  };
}
export type ExtraBusinesses = Awaited<ReturnType<typeof extraBusinesses>>;

/** A customer's body; `ref` keeps bodies distinct when the email repeats (the re-issue). */
function customer(emailId: string, n: number): string {
  return JSON.stringify({
    name: `Customer ${n}`,
    email: `${emailId}@bench.example.com`,
    bvn: "22345678901",
    ref: n,
  });
}

/** The request-and-answer scenarios, in the order they run. */
export function extraScenarios(deep: number, small: number): ExtraScenario[] {
  const run = Date.now().toString(36);
  const lists = (
    pick: (b: ExtraBusinesses) => Key,
    accounts: number,
    pages: Array<[number, number, string]>,
  ): ExtraScenario[] =>
    pages.map(([page, limit, label]) => ({
      name: `list ${label} (${accounts.toLocaleString()} accounts)`,
      floor: "read",
      expectStatus: [200],
      requests: (b) => () => ({
        method: "GET",
        path: `/api/v1/external/account/list?page=${page}&limit=${limit}`,
        key: pick(b),
      }),
    }));
  return [
    {
      name: "generate, re-issue (5 emails)",
      floor: "write",
      expectStatus: [200, 201],
      requests: (b) =>
        numbered((n) => ({
          method: "POST",
          path: "/api/v1/external/account/generate",
          body: customer(`r${run}-${n % 5}`, n),
          key: b.writer,
        })),
    },
    {
      name: "generate temporary",
      floor: "write",
      expectStatus: [201],
      requests: (b) =>
        numbered((n) => ({
          method: "POST",
          path: "/api/v1/external/account/generate/temporary",
          body: customer(`t${run}-${n}`, n),
          key: b.writer,
        })),
    },
    ...lists((b) => b.small, small, [
      [1, 10, "page 1, 10 items"],
      [1, 100, "page 1, 100 items"],
      [Math.ceil(small / 20), 10, "middle page"],
      [Math.ceil(small / 10), 10, "last page"],
    ]),
    ...lists((b) => b.deep, deep, [
      [1, 10, "page 1"],
      [Math.ceil(deep / 20), 10, "middle page"],
      [Math.ceil(deep / 10), 10, "last page"],
    ]),
    {
      name: "authentication rejected (bad signature)",
      floor: "write",
      expectStatus: [401],
      requests: (b) => () => ({
        method: "GET",
        path: "/api/v1/external/account/list",
        key: b.writer,
        badSignature: true,
      }),
    },
  ];
}

/** A webhook phase: transfers into a business whose events go to receivers here. */
export interface WebhookPhase {
  key: "paced" | "oneReceiver" | "tenReceivers" | "nineReceiversAndOneHanging";
  name: string;
  payee: (b: ExtraBusinesses) => WebhookPayee;
  /** Transfers a second in all; as fast as the server answers when absent. */
  rate?: number;
}

/** The webhook phases, in the order they run. */
export const WEBHOOK_PHASES: WebhookPhase[] = [
  // Not as fast as the server answers: the bank's notifications at a steady rate, and how long
  // each takes to reach the business's receiver (the "notification to webhook").
  {
    key: "paced",
    name: `sandbox transfer at ${PACED_RATE} a second, events to a webhook`,
    payee: (b) => b.paced,
    rate: PACED_RATE,
  },
  { key: "oneReceiver", name: "sandbox transfer, events delivered to a webhook", payee: (b) => b.hooked },
  { key: "tenReceivers", name: "sandbox transfer, events to 10 webhook receivers", payee: (b) => b.fanout },
  {
    key: "nineReceiversAndOneHanging",
    name: "sandbox transfer, events to 9 receivers and a hanging one",
    payee: (b) => b.fanoutHanging,
  },
];

/** The payout phase's name. */
export const PAYOUT_PHASE = "payout, created to final";

/**
 * Transfers into a hooked business; each is an event the server's worker delivers to the
 * receivers here. Deliveries per second and event-to-delivery latency. No warm-up: its events
 * would be deliveries to count too (the server is warm by now).
 */
export async function webhookPhase(
  name: string,
  server: Target,
  payee: WebhookPayee,
  load: Load,
  rate?: number,
): Promise<{ result: Result; stats: WebhookStats }> {
  const started = Date.now();
  const paced = { ...load, warmup: 0, ...(rate === undefined ? {} : { rate }) };
  const result = await measure(name, server, [201], transfers([payee]), paced);
  const expected = (result.total - result.errors) * payee.receivers.length;
  const count = () => payee.receivers.reduce((sum, r) => sum + r.count(), 0);
  // The backlog drains at the worker's pace, which is what is measured: wait for as long as
  // deliveries keep arriving, and give up only after 30 s without one.
  let last = count();
  let progressAt = Date.now();
  while (count() < expected && Date.now() - progressAt < 30_000) {
    await new Promise((r) => setTimeout(r, 100));
    if (count() > last) {
      last = count();
      progressAt = Date.now();
    }
  }
  const stats = combinedStats(payee.receivers, started);
  if (stats.delivered < expected || stats.distinct * payee.receivers.length < stats.delivered) {
    process.stderr.write(`${name}: ${stats.delivered} of ${expected} delivered\n`);
    process.exitCode = 1;
  }
  return { result, stats };
}

/**
 * Payouts made through the API (202, held), then taken to their final state by the tracker and
 * the sandbox's bank; payouts per second is how many were final over the time from the first
 * request to the last final one.
 */
export async function payoutPhase(
  name: string,
  server: Target,
  payer: ExtraBusinesses["payer"],
  load: Load,
  env: Record<string, string>,
  floorRate: number,
): Promise<{ result: Result; stats: PayoutStats }> {
  const started = Date.now();
  const result = await measure(name, server, [202], numbered(payer.request), { ...load, warmup: 0 });
  const created = result.total - result.errors;
  const finalAt = await payer.allFinal(env, created);
  const finalPerSecond = Math.round((created * 1000) / (finalAt - started));
  return {
    result,
    stats: {
      created,
      finalPerSecond,
      ratioToWriteFloor: Math.round((100 * finalPerSecond) / floorRate) / 100,
    },
  };
}
