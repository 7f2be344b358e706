// How often a request changes rooms, counted from the code that runs (docs/architecture.md,
// "How often a request changes rooms"). Run with `npm run walks`: scripts/walks/hooks.mjs
// compiles every src/ module with a mark at the top of each function, and this script sends each
// request once warm (its key cached, its statements prepared), then again recording the marks
// made by that request's own work (from the server's request event on: whatever it awaits
// carries the recording, nothing else does). A mark is an entry into its room when the code that
// called the function, the nearest src/ frame of the stack below it, is of another room (see
// `entries` for a call from a library): a return, or an async function resuming, makes no mark.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

interface Mark {
  room: string;
  where: string;
  /** The room of the src/ code that called the function; undefined when none did. */
  from: string | undefined;
}
const SRC = new URL("../src/", import.meta.url).href;
/** A stack frame's file under src/, as the module was loaded (the hooks keep its URL). */
const FRAME = /\((file:\/\/[^)]+?):\d+:\d+\)$|at (file:\/\/\S+?):\d+:\d+$/;

/** The room of a src/ file, given its URL: its folder under src/, or the file itself. */
const roomOf = (url: string) => {
  const file = url.slice(SRC.length);
  return file.includes("/") ? file.slice(0, file.indexOf("/")) : file.replace(/\.ts$/, "");
};

/** The room of the nearest src/ frame below the marked function's own (lines 0 to 3: the message, this, the mark, it). */
function callerRoom(): string | undefined {
  const frames = new Error().stack?.split("\n").slice(4) ?? [];
  for (const frame of frames) {
    const match = FRAME.exec(frame.trim());
    const url = match?.[1] ?? match?.[2];
    if (url?.startsWith(SRC)) return roomOf(url);
  }
  return undefined;
}

const recording = new AsyncLocalStorage<Mark[]>();
Error.stackTraceLimit = 64;
(globalThis as { __vasWalk?: (room: string, where: string) => void }).__vasWalk = (room, where) =>
  recording.getStore()?.push({ room, where, from: callerRoom() });

const { API, appFor, createHarness, customer } = await import("../test/helpers/harness.js");
const { sign } = await import("../src/auth/signature.js");
const { SANDBOX_PAYEES } = await import("../src/providers/bank-directory.js");

/**
 * The marks that entered a room: called from another room's code. A function called with no
 * src/ code below it on the stack (a library calling back after its own await: Fastify's next
 * hook, Kysely's log, the group commit's turn) was called from where the request last was: the
 * previous mark's room.
 */
const entries = (marks: readonly Mark[]): Mark[] =>
  marks
    .map((mark, i) => ({ ...mark, from: mark.from ?? marks[i - 1]?.room }))
    .filter((mark) => mark.from !== mark.room);

const harness = await createHarness({ env: { SANDBOX: "true" } });
const app = appFor(harness.services);
let marks: Mark[] | undefined;
// Before the app's own listener, in the same turn: the request's work inherits the recording.
app.server.prependListener("request", (request: IncomingMessage) => {
  if (marks && request.headers["x-walk"] === "record") recording.enterWith(marks);
});
const address = await app.listen({ host: "127.0.0.1", port: 0 });
try {
  const business = await harness.createBusiness();
  const post = async (path: string, body: unknown, record: boolean, headers: Record<string, string> = {}) => {
    const payload = JSON.stringify(body);
    const timestamp = String(Date.now());
    const response = await fetch(`${address}${API}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": business.apiKey,
        "x-timestamp": timestamp,
        "x-signature": sign(business.secretKey, payload, timestamp),
        ...(record ? { "x-walk": "record" } : {}),
        ...headers,
      },
      body: payload,
    });
    return { status: response.status, json: (await response.json()) as { data: Record<string, string> } };
  };
  // Each request its own body: the same body signed in the same millisecond is a replay.
  let sent = 0;
  const walk = async (name: string, path: string, body: () => unknown, headers = () => ({})) => {
    await post(path, body(), false, headers()); // warm: the key cached, the statements prepared
    marks = [];
    const answer = await post(path, body(), true, headers());
    const entered = entries(marks);
    marks = undefined;
    console.log(`\n${name}: ${entered.length} rooms entered (answered ${answer.status})`);
    for (const mark of entered)
      console.log(`  ${mark.room.padEnd(14)} ${mark.where.padEnd(44)} from ${mark.from ?? "(the network)"}`);
    return entered.length;
  };
  await walk("a signed generate", "/account/generate", () =>
    customer({ email: `walk${++sent}@example.com` }),
  );
  const account = await post("/account/generate", customer(), false);
  const accountNumber = account.json.data.accountNumber;
  await walk("a sandbox transfer", "/sandbox/transfers", () => ({
    accountNumber,
    amount: 1_500_000,
    narration: `walk ${++sent}`,
  }));
  await harness.services.payoutSettings.setApiPayouts(business.businessId, true);
  const payee = SANDBOX_PAYEES.find((p) => p.outcome === "successful");
  if (!payee) throw new Error("the sandbox has no payee that succeeds");
  await walk(
    "a payout",
    "/payouts",
    () => ({ amount: 10_000, bankCode: payee.bankCode, accountNumber: payee.accountNumber }),
    () => ({ "idempotency-key": randomUUID() }),
  );
} finally {
  await app.close();
  await harness.close();
}
