import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * Moves SQLite's WAL checkpoints off the request path (issue 12). By default the connection that
 * commits the 1,000th page of WAL copies it into the database file itself, fsyncs included, in
 * the middle of a request. Here a worker thread with a connection of its own runs a PASSIVE
 * checkpoint every `intervalMs` (it never blocks the writer or the readers), and the writer's
 * own automatic checkpoint moves to `safetyPages`, a backstop for a worker that falls behind.
 * Measured (generate, 50 connections): no worker 2,840 req/s, p99 37 ms; every 1 s 3,350, p99
 * 81 ms (large checkpoints contend with the writer); every 200 ms 3,530, p99 41 ms; every 50 ms
 * 3,530, p99 32 ms.
 */
export interface Checkpointer {
  /** The writer's `wal_autocheckpoint` while the worker runs. */
  readonly safetyPages: number;
  close(): Promise<void>;
}

// A CommonJS script run in the worker: the driver is passed by path, so it loads the same way
// whether the service runs from source (tsx) or built.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(file: string, intervalMs = 50, safetyPages = 20_000): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER, { eval: true, workerData: { driver, file, intervalMs } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    safetyPages,
    async close() {
      // Held open while it closes its connection (a second at most), then stopped for sure.
      worker.ref();
      worker.postMessage("close");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
