import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import { MasterKeyMismatchError, openServices } from "../src/compose/services.js";
import { customer, testConfig } from "./helpers/harness.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";

// The service as a process: master key on first start, graceful shutdown, key mismatch.

describe("the server process", () => {
  let dir: string;
  let server: ServerProcess;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vas-process-"));
    server = await startServerProcess({ DATABASE_URL: `sqlite:${dir}/vas.db`, DATA_DIR: dir });
  });
  after(async () => {
    await server.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  test("without VAS_MASTER_KEY it generates one in the data directory (mode 0600) and says so", () => {
    const file = path.join(dir, "master.key");
    assert.ok(existsSync(file));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(server.output(), /generated a new master key/);
    assert.ok(!server.output().includes(readFileSync(file, "utf8").trim()), "the key itself is never logged");
  });

  test("the start-up log says where the dashboard, the console, the docs and the mail are; / opens the dashboard", async () => {
    const ready = server
      .output()
      .split("\n")
      .find((line) => line.includes("Virtual Account Service ready"));
    assert.ok(ready);
    const fields = JSON.parse(ready) as Record<string, string>;
    assert.equal(fields.dashboard, `${server.url}/dashboard`);
    assert.equal(fields.console, `${server.url}/admin`);
    assert.equal(fields.docs, `${server.url}/docs`);
    assert.ok(server.output().includes(`"directory":"${path.join(dir, "mail")}"`), "where mail is written");
    const root = await fetch(`${server.url}/`, { redirect: "manual" });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get("location"), "/dashboard");
  });

  test("SIGTERM lets an in-flight request finish, then exits 0", async () => {
    const services = await openServices(
      testConfig(
        { dialect: "sqlite", file: path.join(dir, "vas.db") },
        Buffer.from(readFileSync(path.join(dir, "master.key"), "utf8").trim(), "hex"),
      ),
    );
    const created = await services.businesses.createBusiness("Graceful Ltd", "completed");
    await services.close();

    const body = JSON.stringify(customer());
    const timestamp = String(Date.now());
    const request = http.request(new URL(`${server.url}/api/v1/external/account/generate`), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "x-api-key": created.apiKey,
        "x-timestamp": timestamp,
        "x-signature": sign(created.secretKey, body, timestamp),
      },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.on("error", reject);
      request.on("response", (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
    });
    // The headers and half the body go now; the request is in flight when the signal arrives.
    request.write(body.slice(0, 10));
    await new Promise((resolve) => request.once("socket", (socket) => socket.once("connect", resolve)));
    await pause(300);
    server.child.kill("SIGTERM");
    await waitFor(() => server.output().includes("shutting down"));
    request.end(body.slice(10));
    const result = await response;
    assert.equal(result.status, 201, result.body);
    // One signal is enough (a second one while closing would force an exit with code 1).
    assert.equal(await server.exited(), 0, server.output());
    assert.match(server.output(), /shut down cleanly/);
  });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a condition (bounded to ~10 s); not a timing assertion, only a wait for a log line. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await pause(50);
}

test("a master key that did not seal this database's secrets is refused with a clear error", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-mismatch-"));
  try {
    const database = { dialect: "sqlite" as const, file: path.join(dir, "vas.db") };
    const first = await openServices(testConfig(database, randomBytes(32)));
    await first.close();
    await assert.rejects(
      openServices(testConfig(database, randomBytes(32))),
      (error: unknown) => error instanceof MasterKeyMismatchError && /VAS_MASTER_KEY/.test(error.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
