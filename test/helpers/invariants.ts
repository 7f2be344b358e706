import assert from "node:assert/strict";
import type { Executor } from "../../src/storage/transactions.js";

/**
 * Checks, from the database itself, that a customer has exactly one permanent account, that
 * every number issued to it is in the ledger (no orphan), one version per issue (no lost
 * update), and that the account holds the last issued number with every earlier one retired.
 */
export async function assertOnePermanentAccount(
  db: Executor,
  businessId: string,
  email: string,
  issued: readonly string[],
): Promise<void> {
  const accounts = await db
    .selectFrom("accounts")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("email", "=", email)
    .where("kind", "=", "permanent")
    .execute();
  assert.equal(accounts.length, 1, `${email}: exactly one permanent account`);
  const account = accounts[0]!;
  const ledger = await db
    .selectFrom("account_numbers")
    .selectAll()
    .where("account_id", "=", account.id)
    .orderBy("version")
    .execute();
  assert.deepEqual(
    ledger.map((n) => n.account_number).sort(),
    [...issued].sort(),
    `${email}: no orphaned number`,
  );
  assert.deepEqual(
    ledger.map((n) => n.version),
    Array.from({ length: issued.length }, (_, i) => i + 1),
    `${email}: one version per issue, no lost update`,
  );
  assert.equal(account.version, issued.length);
  assert.equal(
    ledger.at(-1)?.account_number,
    account.account_number,
    `${email}: holds the last issued number`,
  );
  assert.deepEqual(
    ledger.filter((n) => n.retired_at === null).map((n) => n.account_number),
    [account.account_number],
    `${email}: every earlier number is retired`,
  );
}
