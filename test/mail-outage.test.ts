import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { cliEnv } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { smtpServer } from "./helpers/smtp.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 44: a mail server that does not answer. The CLI (a real process) waits at most
// MAIL_WAIT_MS for its mail and says what is true: "mailed" only when the server took it,
// otherwise "queued: ... the service will retry"; the outbox sends it once the server answers
// again, once; /health/ready stays ready; the metrics count what waits and what failed.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PASSWORD = "correct horse battery staple 42";
const QUEUED = /queued: the mail server did not answer; the service will retry \(see the outbox\)/;

/** A server on loopback that accepts connections and never says a word (a relay that hangs). */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `vas ...` as an operator runs it: its own process; its output and exit code (killed after 60 s). */
function vas(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", () => {});
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(guard);
      resolve({ code, stdout });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`a mail server that does not answer, on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let offset = 0;
    let silent: Awaited<ReturnType<typeof silentServer>>;

    before(async () => {
      silent = await silentServer();
      h = await createHarness({
        dialect,
        masterKey,
        now: () => Date.now() + offset,
        // The greeting's wait is long: the CLI must not sit it out.
        env: {
          SMTP_URL: `smtp://127.0.0.1:${silent.port}`,
          SMTP_GREETING_TIMEOUT_MS: "60000",
          MAIL_WAIT_MS: "300",
          SIGN_IN_RATE_LIMIT_PER_MIN: "0",
        },
      });
    });
    after(async () => {
      await silent?.close();
      await h?.close();
    });

    const env = (port: number, waitMs: number) => ({
      ...cliEnv(h, masterKey),
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      SMTP_GREETING_TIMEOUT_MS: "60000",
      MAIL_WAIT_MS: String(waitMs),
    });

    test("the CLI says queued, not mailed, and exits; the outbox sends it once the server answers", async () => {
      const business = await h.createBusiness({ name: "Hanging Relay Ltd" });
      const hung = await vas(
        ["business", "invite-owner", business.businessId, "owner@hanging.example"],
        env(silent.port, 500),
      );
      assert.equal(hung.code, 0, "it exits by itself, well before the greeting's 60 s");
      assert.match(hung.stdout, QUEUED);
      assert.doesNotMatch(hung.stdout, /mailed/);

      // The service stays ready: mail is never on a request's path; the metrics show the wait.
      assert.equal((await h.app.inject({ url: "/health/ready" })).statusCode, 200);
      const metrics = await h.services.metrics.registry.metrics();
      assert.match(metrics, /^vas_mail_waiting [1-9]/m);

      // The server answers again (a real one on the same port); once the dead process's claim has
      // lapsed, the mail job sends the invitation, once.
      await silent.close();
      const smtp = await smtpServer(silent.port);
      try {
        offset += 3 * 60_000;
        assert.equal(await h.services.mailer.deliver(), 1);
        assert.equal(await h.services.mailer.deliver(), 0, "nothing twice");
        assert.deepEqual(
          smtp.received.map((mail) => mail.to && "text" in mail.to && mail.to.text),
          ["owner@hanging.example"],
        );
      } finally {
        await smtp.close();
        silent = await silentServer();
      }
    });

    test("a server that refuses: queued, tried again by the schedule, counted as a failed attempt", async () => {
      const refusing = await smtpServer(0, { refuse: true });
      const business = await h.createBusiness({ name: "Refused Relay Ltd" });
      try {
        const run = await vas(
          ["business", "invite-owner", business.businessId, "owner@refused.example"],
          env(refusing.port, 3_000),
        );
        assert.equal(run.code, 0);
        assert.match(run.stdout, QUEUED);
        assert.deepEqual(refusing.received, []);
      } finally {
        await refusing.close();
      }
      const row = await h.storage.db
        .selectFrom("mail_outbox")
        .select(["status", "attempts", "last_error"])
        .where("recipient", "=", "owner@refused.example")
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.status, row.attempts], ["queued", 1]);
      assert.match(String(row.last_error), /451|Try again later/, "why, kept for the log and the outbox");
    });

    test("a server that answers slowly, within the wait: mailed, once", async () => {
      const slow = await smtpServer(0, { greetAfterMs: 700 });
      const business = await h.createBusiness({ name: "Slow Relay Ltd" });
      try {
        const run = await vas(
          ["business", "invite-owner", business.businessId, "owner@slow.example"],
          env(slow.port, 10_000),
        );
        assert.equal(run.code, 0);
        assert.match(run.stdout, /^Invitation mailed to owner@slow\.example/);
        assert.equal(slow.received.length, 1);
      } finally {
        await slow.close();
      }
    });

    test("the console says the same: an operator's invitation queued, not mailed", async () => {
      const { client } = await signedInOperator(
        h.services,
        h.app,
        `ops.${dialect}@outage.example`,
        "lagos harbour ferry at dawn 7",
        { now: () => Date.now() + offset },
      );
      const page = await client.get("/admin/operators");
      const invited = await client.post("/admin/operators", {
        _csrf: page.token ?? "",
        email: `reviewer.${dialect}@outage.example`,
        role: "reviewer",
      });
      assert.equal(invited.headers.location, "/admin/operators?done=invited-queued");
      const shown = await client.get(String(invited.headers.location));
      assert.match(
        shown.response.body,
        /The invitation is queued: the mail server did not answer; the service will retry/,
      );
    });

    test("the dashboard's invitation says the same", async () => {
      const email = `owner.${dialect}@team-outage.example`;
      await signedUpOwner(h.services, { businessName: "Team Outage Ltd", email, password: PASSWORD });
      const owner = pageClient(h.app);
      assert.equal((await owner.signIn("/dashboard", email, PASSWORD)).statusCode, 303);
      const team = await owner.get("/dashboard/team");
      const invited = await owner.post("/dashboard/team/invitations", {
        _csrf: team.token ?? "",
        email: `dev.${dialect}@team-outage.example`,
        role: "developer",
      });
      assert.equal(invited.headers.location, "/dashboard/team?done=invited-queued");
      const shown = await owner.get(String(invited.headers.location));
      assert.match(shown.response.body, /The invitation is queued: the mail server did not answer/);
    });
  });
}
