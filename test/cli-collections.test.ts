import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// `vas business set-fee` and `vas sandbox transfer` against the database a server uses.

const vas = runVas;

for (const dialect of DIALECTS) {
  describe(`vas collections commands on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let business: TestBusiness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      business = await h.createBusiness();
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    test("set-fee, then a sandbox transfer from the CLI takes that fee", async () => {
      const set = await vas(
        ["business", "set-fee", business.businessId, "--percent", "1.5", "--cap-kobo", "100"],
        env,
      );
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /1\.5 %, capped at 100 kobo/);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      const number = generated.json().data.accountNumber;
      const paid = await vas(["sandbox", "transfer", number, "5000", "--json"], env);
      assert.equal(paid.code, 0, paid.stderr);
      const transaction = JSON.parse(paid.stdout);
      assert.deepEqual([transaction.amount, transaction.fee, transaction.netAmount], [5_000, 75, 4_925]);
      const listed = (await h.request({ url: `${API}/transactions/${transaction.id}`, as: business })).json()
        .data;
      assert.deepEqual(listed, transaction);
      const capped = JSON.parse((await vas(["sandbox", "transfer", number, "100000", "--json"], env)).stdout);
      assert.equal(capped.fee, 100);
    });

    test("bad arguments exit 2 and change nothing; a refusal exits 1", async () => {
      for (const argv of [
        ["business", "set-fee", business.businessId, "--percent", "101"],
        ["business", "set-fee", business.businessId, "--percent", "1.234"],
        ["business", "set-fee", "not-a-uuid", "--percent", "1"],
        ["business", "set-fee", business.businessId],
        ["sandbox", "transfer", "123", "100"],
        ["sandbox", "transfer", "0123456789", "1.5"],
      ]) {
        assert.equal((await vas(argv, env)).code, 2, argv.join(" "));
      }
      const off = await vas(["sandbox", "transfer", "0123456789", "100"], { ...env, SANDBOX: "false" });
      assert.equal(off.code, 2);
      const unknown = await vas(["sandbox", "transfer", "0000000000", "100"], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no account has number 0000000000/);
    });
  });
}
