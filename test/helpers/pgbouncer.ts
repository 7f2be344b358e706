import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./bank-process.js";

// PgBouncer in transaction mode in front of the test PostgreSQL server, as production runs many
// processes (docs/deploy.md): each transaction may get another server connection, so nothing the
// service leaves on a connection (a named statement, a SET, a session lock) may outlive it.
// Debian's pgbouncer, run as the postgres user (it refuses root) with an ini file of its own.

const BINARY = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find(
  (file) => spawnSync(file, ["--version"]).status === 0,
);

export const PGBOUNCER_AVAILABLE = BINARY !== undefined;
if (!PGBOUNCER_AVAILABLE && process.env.CI) {
  throw new Error("CI runs the PostgreSQL suites through PgBouncer too, but pgbouncer is not installed");
}

let started: Promise<number> | undefined;

/** The port of this test process's PgBouncer (started on first use, stopped when the process exits). */
export function pgbouncerPort(upstream: URL): Promise<number> {
  started ??= start(upstream);
  return started;
}

async function start(upstream: URL): Promise<number> {
  if (!BINARY) throw new Error("pgbouncer is not installed");
  const dir = mkdtempSync(path.join(tmpdir(), "vas-pgbouncer-"));
  const port = await freePort();
  const user = decodeURIComponent(upstream.username || "postgres");
  writeFileSync(path.join(dir, "users.txt"), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port || "5432"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 1000",
      "default_pool_size = 20",
      "",
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const postgres = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const group = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    for (const file of [dir, path.join(dir, "users.txt"), path.join(dir, "pgbouncer.ini")]) {
      chownSync(file, Number(postgres.stdout), Number(group.stdout));
    }
    chmodSync(dir, 0o700);
  }
  const args = [path.join(dir, "pgbouncer.ini")];
  const child: ChildProcess = asRoot
    ? spawn("runuser", ["-u", "postgres", "--", BINARY, ...args], { stdio: ["ignore", "ignore", "pipe"] })
    : spawn(BINARY, args, { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  // Neither the child nor its pipe keeps the test process alive; it goes when the process does.
  child.unref();
  (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
  process.once("exit", () => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${output}`);
    if (await answers(port)) return port;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error(`pgbouncer is not listening on ${port}:\n${output}`);
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
