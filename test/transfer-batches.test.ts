import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { sql } from "kysely";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { DATABASE_KINDS } from "./helpers/databases.js";
import {
  createHarness,
  endpointAt,
  fixtureEnv,
  type Harness,
  permanentInputOf,
  temporaryInputOf,
} from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification } from "./helpers/notifications.js";

// One business's transfers at once (issue 29). On PostgreSQL they are posted together, one
// transaction per batch (storage/postgres/transfer-batches.ts); on SQLite in the group commit.
// Each is answered as it would have been alone, in the batch's order: a duplicate in flight finds
// the first recording, an account paid earlier in the same batch refuses a second payment, a
// statement the database refuses fails only its own transfer, and every event queues its
// deliveries. Two processes posting one business's transfers at once, with shared session ids,
// record each once and never wait on each other in a circle.

const run = promisify(execFile);
const FIXTURE = path.join(import.meta.dirname, "fixtures", "ingest-burst.ts");
const masterKey = randomBytes(32);
const now = () => new Date().toISOString();
const outcomeOf = (received: Promise<{ duplicate: boolean }>) =>
  received.then(
    (done) => (done.duplicate ? "duplicate" : "recorded"),
    (error: Error & { code?: string }) => `refused: ${error.code ?? error.message}`,
  );

for (const kind of DATABASE_KINDS) {
  describe(`one business's transfers at once on ${kind}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness({ dialect: kind, masterKey });
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    /** A business with `count` permanent accounts, each paid once already (its ledger opened). */
    const business = async (count: number) => {
      const created = await h.createBusiness({ name: `Batch ${randomBytes(3).toString("hex")}` });
      const owner: ForBusiness = { businessId: created.businessId, businessName: created.name };
      const numbers: string[] = [];
      for (let i = 0; i < count; i++) {
        const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
        numbers.push(account.accountNumber);
        await h.services.collections.receive(notification(account.accountNumber, 100, now()));
      }
      return { owner, numbers };
    };
    const receive = (body: unknown) => outcomeOf(h.services.collections.receive(body));
    /** The business's rows of `table` are numbered 1, 2, 3… by `column`: no gap, no repeat. */
    const assertNumbered = async (table: string, column: string, businessId: string) => {
      const { rows } = await sql<{ n: number }>`
        select ${sql.ref(column)} as n from ${sql.table(table)} where business_id = ${businessId} order by 1
      `.execute(h.storage.db);
      assert.deepEqual(
        rows.map((row) => Number(row.n)),
        rows.map((_, i) => i + 1),
        `${table}.${column} of the business`,
      );
    };
    const balance = async (owner: ForBusiness) => (await h.services.collections.balance(owner)).totalReceived;

    test("each is recorded once, in order; duplicates in flight, a conflict and a second payment are answered as alone", async () => {
      const { owner, numbers } = await business(4);
      const once = await h.services.accounts.generateTemporary(
        owner,
        CLI,
        temporaryInputOf({ expectedAmount: 7_000, amountPolicy: "exact" }),
      );
      const earlier = notification(numbers[0] as string, 500, now());
      assert.equal(await receive(earlier), "recorded");
      const burst = Array.from({ length: 24 }, (_, i) =>
        notification(numbers[i % 4] as string, 1_000 + i, now()),
      );
      const twice = burst[5];
      const bodies = [
        ...burst,
        twice,
        { ...earlier, amount: 501 },
        notification(once.accountNumber, 7_000, now()),
        notification(once.accountNumber, 7_000, now()),
      ];
      const before = await balance(owner);
      const outcomes = await Promise.all(bodies.map(receive));
      assert.deepEqual(outcomes.slice(0, 24), Array(24).fill("recorded"));
      assert.deepEqual(outcomes.slice(24), [
        "duplicate",
        "refused: TRANSFER_CONFLICT",
        "recorded",
        "refused: ALREADY_PAID",
      ]);
      const credited = burst.reduce((sum, b) => sum + b.amount, 0) + 7_000;
      assert.equal((await balance(owner)) - before, credited);
      await assertNumbered("transactions", "ordinal", owner.businessId);
      if (kind !== "sqlite") {
        const sessions = burst.map((b) => b.sessionId);
        const { rows: shared } = await sql<{ commits: string }>`
          select count(distinct xmin::text) as commits from transactions where session_id in (${sql.join(sessions)})
        `.execute(h.storage.db);
        assert.ok(
          Number(shared[0]?.commits) < sessions.length,
          `24 transfers at once were posted in ${shared[0]?.commits} transactions: some together`,
        );
      }
    });

    test("a statement the database refuses fails only its own transfer", async () => {
      const { owner, numbers } = await business(3);
      const refuse =
        kind === "sqlite"
          ? [
              sql`create trigger vas_test_refuse before insert on transactions when new.narration = 'refuse me'
                  begin select raise(abort, 'refused by the test'); end`,
            ]
          : [
              sql`create function vas_test_refuse() returns trigger language plpgsql as $$
                  begin if new.narration = 'refuse me' then raise exception 'refused by the test'; end if; return new; end $$`,
              sql`create trigger vas_test_refuse before insert on transactions for each row execute function vas_test_refuse()`,
            ];
      for (const statement of refuse) await statement.execute(h.storage.db);
      try {
        const bodies = Array.from({ length: 18 }, (_, i) =>
          notification(numbers[i % 3] as string, 2_000 + i, now(), i === 7 ? { narration: "refuse me" } : {}),
        );
        const before = await balance(owner);
        const outcomes = await Promise.all(bodies.map(receive));
        // The trigger's refusal, as the database reports it: alone, it would fail the same way.
        assert.match(outcomes[7] as string, /^refused: (SQLITE_CONSTRAINT_TRIGGER|P0001)$/);
        assert.deepEqual(
          outcomes.filter((_, i) => i !== 7),
          Array(17).fill("recorded"),
        );
        const credited = bodies.reduce((sum, b, i) => (i === 7 ? sum : sum + b.amount), 0);
        assert.equal((await balance(owner)) - before, credited);
      } finally {
        await sql`drop trigger vas_test_refuse${kind === "sqlite" ? sql`` : sql` on transactions`}`.execute(
          h.storage.db,
        );
      }
    });

    test("every transfer's event queues one delivery for the business's endpoint", async () => {
      const { owner, numbers } = await business(2);
      await h.services.webhooks.create(owner, endpointAt("http://127.0.0.1:9/hook"));
      const bodies = Array.from({ length: 16 }, (_, i) =>
        notification(numbers[i % 2] as string, 3_000 + i, now()),
      );
      assert.deepEqual(await Promise.all(bodies.map(receive)), Array(16).fill("recorded"));
      const queued = await h.storage.db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("events as e", "e.id", "d.event_id")
        .select(["e.sequence", "e.data"])
        .where("e.business_id", "=", owner.businessId)
        .where("e.type", "=", "payment.received")
        .orderBy("e.sequence")
        .execute();
      const sessions = new Set(bodies.map((b) => b.sessionId));
      const paid = queued.filter((row) => sessions.has(JSON.parse(row.data as string).sessionId));
      assert.equal(paid.length, 16, "one delivery per transfer");
      await assertNumbered("events", "sequence", owner.businessId);
    });

    test("two processes posting one business's transfers at once, with shared session ids, record each once", async () => {
      const { owner, numbers } = await business(3);
      const into = (i: number, amount: number) => notification(numbers[i % 3] as string, amount, now());
      const shared = Array.from({ length: 15 }, (_, i) => into(i, 4_000 + i));
      const lists = [0, 1].map((p) => [
        ...(p === 0 ? shared : [...shared].reverse()),
        ...Array.from({ length: 15 }, (_, i) => into(i, 5_000 + 100 * p + i)),
      ]);
      const before = await balance(owner);
      const env = fixtureEnv(h, masterKey);
      const printed = await Promise.all(
        lists.map((list) =>
          run(process.execPath, ["--import", "tsx", FIXTURE, JSON.stringify(list)], { env }),
        ),
      );
      const [first, second] = printed.map(({ stdout }) => JSON.parse(stdout) as string[]) as [
        string[],
        string[],
      ];
      for (const [i, outcome] of [...first.slice(15), ...second.slice(15)].entries()) {
        assert.equal(outcome, "recorded", `its own transfer ${i}`);
      }
      for (let i = 0; i < 15; i++) {
        const pair = [first[i], second[14 - i]].sort();
        assert.deepEqual(pair, ["duplicate", "recorded"], `shared session ${i} is recorded once`);
      }
      const credited = [...shared, ...(lists[0] ?? []).slice(15), ...(lists[1] ?? []).slice(15)].reduce(
        (sum, b) => sum + b.amount,
        0,
      );
      assert.equal((await balance(owner)) - before, credited);
    });
  });
}
