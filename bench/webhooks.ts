import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { permanentInput } from "../src/accounts/validation.js";
import type { Services } from "../src/compose/services.js";
import { check } from "../src/core/validation.js";

// The benchmark's webhook receiver: records when each delivery arrives and when its event was
// recorded (the body's `timestamp`), answers 204 at once, and reports deliveries per second and
// the event-to-delivery latency.

export interface WebhookStats {
  delivered: number;
  /** Distinct webhook-ids (fewer than delivered means some arrived twice). */
  distinct: number;
  deliveriesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

interface Arrival {
  id: string;
  at: number;
  latency: number;
}

export interface BenchReceiver {
  url: string;
  /** Deliveries so far. */
  count(): number;
  /** Stats over the deliveries since `since` (ms). */
  stats(since: number): WebhookStats;
  arrivals(): readonly Arrival[];
  close(): Promise<void>;
}

/** Stats over the deliveries to several receivers since `since` (ms). */
export function combinedStats(receivers: readonly BenchReceiver[], since: number): WebhookStats {
  return statsOf(
    receivers.flatMap((r) => r.arrivals()).sort((a, b) => a.at - b.at),
    since,
  );
}

function statsOf(arrivals: readonly Arrival[], since: number): WebhookStats {
  const seen = arrivals.filter((a) => a.at >= since);
  const latencies = seen.map((a) => a.latency).sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const last = seen.at(-1)?.at ?? since;
  return {
    delivered: seen.length,
    distinct: new Set(seen.map((a) => a.id)).size,
    deliveriesPerSecond: Math.round((seen.length * 1000) / Math.max(1, last - since)),
    latencyP50Ms: at(0.5),
    latencyP99Ms: at(0.99),
  };
}

/** A receiver that answers 204 at once, or (hang) never answers until it is closed. */
export async function startBenchReceiver(options: { hang?: boolean } = {}): Promise<BenchReceiver> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (options.hang) return;
      const at = Date.now();
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { timestamp: string };
      arrivals.push({ id: String(request.headers["webhook-id"]), at, latency: at - Date.parse(timestamp) });
      response.writeHead(204).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    count: () => arrivals.length,
    stats: (since) => statsOf(arrivals, since),
    arrivals: () => arrivals,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A business whose events go to receivers in this process, and the accounts to pay into. */
export interface WebhookPayee {
  key: { apiKey: string; secretKey: string };
  accounts: string[];
  /** The receivers that answer: the ones measured. */
  receivers: BenchReceiver[];
  /** Receivers that never answer. */
  others: BenchReceiver[];
}

/** Creates the business, one endpoint per receiver (`count` answering, plus one hanging), ten accounts. */
export async function webhookPayee(
  services: Services,
  name: string,
  count: number,
  withHanging: boolean,
): Promise<WebhookPayee> {
  const receivers = await Promise.all(Array.from({ length: count }, () => startBenchReceiver()));
  const others = withHanging ? [await startBenchReceiver({ hang: true })] : [];
  const created = await services.businesses.createBusiness(name, "completed");
  const owner = { businessId: created.business.id, businessName: name };
  for (const receiver of [...receivers, ...others])
    await services.webhooks.create(owner, check(services.webhooks.inputs.create, { url: receiver.url }));
  const accounts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const { account } = await services.accounts.generatePermanent(
      owner,
      { type: "cli", id: null },
      check(permanentInput, {
        name: `${name} customer ${i}`,
        email: `customer${i}@${name.toLowerCase().replaceAll(" ", "-")}.example.com`,
        bvn: "22345678901",
      }),
    );
    accounts.push(account.accountNumber);
  }
  return { key: { apiKey: created.apiKey, secretKey: created.secretKey }, accounts, receivers, others };
}
