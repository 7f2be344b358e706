// How often a request changes rooms, counted from the code that runs (docs/architecture.md,
// "How often a request changes rooms"). Run with `npm run walks`: scripts/walks/hooks.mjs
// compiles every src/ module with a mark at the top of each function, and this script sends each
// request once warm (its key cached, its statements prepared), then again recording the marks
// made by that request's own work (from the server's request event on: whatever it awaits
// carries the recording, nothing else does). Each mark whose room is not the previous mark's is
// an entry into a room.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

interface Mark {
  room: string;
  where: string;
}
const recording = new AsyncLocalStorage<Mark[]>();
(globalThis as { __vasWalk?: (room: string, where: string) => void }).__vasWalk = (room, where) =>
  recording.getStore()?.push({ room, where });

const { API, appFor, createHarness, customer } = await import("../test/helpers/harness.js");
const { sign } = await import("../src/auth/signature.js");
const { SANDBOX_PAYEES } = await import("../src/providers/bank-directory.js");

/** The marks collapsed into the rooms entered, each with the first function it ran there. */
export function entries(marks: readonly Mark[]): Mark[] {
  return marks.filter((mark, i) => i === 0 || marks[i - 1]?.room !== mark.room);
}

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
    for (const mark of entered) console.log(`  ${mark.room.padEnd(14)} ${mark.where}`);
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
