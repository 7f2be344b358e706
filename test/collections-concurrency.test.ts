import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { DATABASE_KINDS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  fixtureEnv,
  type Harness,
  type TestBusiness,
} from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";

// Ingestion under concurrency, and the ledger after a long randomised run. The same
// notification from two processes at once (25 attempts each) is recorded once; a few thousand
// transfers with fees, some concurrent, leave every invariant intact.

const run = promisify(execFile);
const FIXTURE = path.join(import.meta.dirname, "fixtures", "ingest.ts");
const masterKey = randomBytes(32);

for (const dialect of DATABASE_KINDS) {
  describe(`ingestion under concurrency on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      business = await h.createBusiness();
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    const permanent = async (as: TestBusiness) => {
      const response = await h.request({ url: `${API}/account/generate`, body: customer(), as });
      assert.ok(response.statusCode < 300, response.body);
      return response.json().data.accountNumber as string;
    };

    test("a new business's first transfers, at once into several of its accounts, all credit", async () => {
      // Its ledger accounts are created by whichever transfer comes first; the others wait for
      // them. The simulation once caught a loser hitting the (business_id, kind) index, which
      // ON CONFLICT (id) did not cover; the window is narrow, so this runs it five times.
      for (let round = 0; round < 5; round++) {
        const fresh = await h.createBusiness({ name: `Fresh ${round}` });
        const numbers = [await permanent(fresh), await permanent(fresh), await permanent(fresh)];
        const paid = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            h.request({
              url: `${API}/sandbox/transfers`,
              body: { accountNumber: numbers[i % numbers.length], amount: 1_000 + i },
              as: fresh,
            }),
          ),
        );
        assert.deepEqual(
          paid.map((r) => r.statusCode),
          Array(12).fill(201),
          paid.map((r) => r.body).join("\n"),
        );
        const balance = (await h.request({ url: `${API}/balance`, as: fresh })).json().data;
        assert.equal(balance.available, 12 * 1_000 + (11 * 12) / 2);
      }
    });

    test("one notification sent 50 times at once by two processes is recorded once", async () => {
      const notification = {
        sessionId: `race-${randomBytes(6).toString("hex")}`,
        accountNumber: await permanent(business),
        amount: 123_456,
        currency: "NGN",
        payer: { name: "Racer", accountNumber: "0123456789", bankName: "Race Bank" },
        narration: "twice is once",
        paidAt: new Date().toISOString(),
      };
      const env = fixtureEnv(h, masterKey);
      const processes = await Promise.all(
        [0, 1].map(() =>
          run(process.execPath, ["--import", "tsx", FIXTURE, JSON.stringify(notification), "25"], { env }),
        ),
      );
      const outcomes = processes.flatMap(({ stdout }) => JSON.parse(stdout) as string[]);
      assert.equal(outcomes.length, 50);
      assert.deepEqual(
        outcomes.filter((outcome) => outcome !== "duplicate"),
        ["recorded"],
        "one recording; every other attempt found it",
      );
      const rows = await h.storage.db
        .selectFrom("transactions")
        .select("id")
        .where("session_id", "=", notification.sessionId)
        .execute();
      assert.equal(rows.length, 1);
      const balance = (await h.request({ url: `${API}/balance`, as: business })).json().data;
      assert.equal(balance.totalReceived, 123_456);
    });

    test("a randomised run of 2,000 transfers with fees keeps every ledger invariant", async () => {
      // A small deterministic generator: the run is the same every time (and on failure).
      let seed = 0x2f6e2b1;
      const random = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const businesses = [business, await h.createBusiness(), await h.createBusiness()];
      const accounts: Array<{ business: TestBusiness; number: string }> = [];
      for (const owner of businesses) {
        for (let i = 0; i < 4; i++) accounts.push({ business: owner, number: await permanent(owner) });
      }
      let sessions = 0;
      let accepted = 0;
      for (let batch = 0; batch < 200; batch++) {
        if (batch % 25 === 0) {
          for (const owner of businesses) {
            await h.services.collections.setFee(owner.businessId, {
              basisPoints: Math.floor(random() * 300),
              capKobo: random() < 0.5 ? null : Math.floor(random() * 50_000),
            });
          }
        }
        // Ten at once: transfers of different businesses and accounts interleave.
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, () => {
            const target = accounts[Math.floor(random() * accounts.length)] ?? accounts[0];
            const duplicate = random() < 0.05 && sessions > 0;
            return h.services.collections.receive({
              sessionId: `rnd-${dialect}-${duplicate ? sessions : ++sessions}`,
              accountNumber: target?.number,
              amount: 1 + Math.floor(random() * 2_000_000),
              currency: "NGN",
              payer: { name: "Random Payer", accountNumber: "0123456789", bankName: "Random Bank" },
              narration: "",
              paidAt: new Date().toISOString(),
            });
          }),
        );
        for (const result of results) {
          if (result.status === "fulfilled" && !result.value.duplicate) accepted++;
          // A duplicate whose first was a different transfer is a conflict: refused, never applied.
          if (result.status === "rejected")
            assert.equal(result.reason.code, "TRANSFER_CONFLICT", result.reason);
        }
      }
      assert.ok(accepted > 1_800, `${accepted} transfers recorded`);
      await assertLedgerInvariants(h.storage.db);
    });
  });
}
