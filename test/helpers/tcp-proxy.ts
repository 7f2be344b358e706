import net from "node:net";
import type { DatabaseLocation } from "../../src/config/load.js";
import { createTestDatabase, POSTGRES_ADMIN_URL, type TestDatabase } from "./databases.js";

/**
 * The end of a PostgreSQL simple-query message whose last statement is `commit`, as it crosses the
 * wire: COMMIT on its own, or after a transaction's last statement in the same message.
 */
export const PG_COMMIT = "commit\u0000";

/** A TCP proxy on 127.0.0.1 that a test can cut and restore, to take a database "away" and back. */
export interface TcpProxy {
  port: number;
  /** Drops every open connection and refuses new ones until restored. */
  cut(): void;
  restore(): void;
  /**
   * Once: the next time a client sends bytes containing `marker` (e.g. PG_COMMIT), they are delivered to the server, and that client's connection is
   * dropped before any answer can reach it: the server acts, the client never learns the outcome.
   */
  dropAnswerTo(marker: string): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let up = true;
  let trap: { marker: string; sprung: () => void } | undefined;
  const server = net.createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      const armed = trap;
      if (armed && chunk.toString("latin1").includes(armed.marker)) {
        trap = undefined;
        upstream.unpipe(client);
        client.destroy();
        // The server still gets the bytes, and finishes what they ask, talking to nobody.
        upstream.write(chunk, () => setTimeout(() => upstream.end(), 500));
        armed.sprung();
        return;
      }
      upstream.write(chunk);
    });
    client.on("end", () => upstream.end());
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut() {
      up = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      up = true;
    },
    dropAnswerTo(marker) {
      return new Promise((resolve) => {
        trap = { marker, sprung: resolve };
      });
    },
    close() {
      up = false;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A new PostgreSQL database, and the URL that reaches it through a proxy the test controls. */
export async function proxiedPostgres(): Promise<{
  database: TestDatabase;
  proxy: TcpProxy;
  location: DatabaseLocation;
  close(): Promise<void>;
}> {
  const database = await createTestDatabase("postgres", "");
  const target = new URL(POSTGRES_ADMIN_URL);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const url = new URL(database.location.dialect === "postgres" ? database.location.url : "");
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  return {
    database,
    proxy,
    location: { dialect: "postgres", url: url.toString() },
    async close() {
      await proxy.close();
      await database.drop();
    },
  };
}
