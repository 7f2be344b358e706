import assert from "node:assert/strict";
import type { Executor } from "../../src/storage/executor.js";
import { API, type Harness, type TestBusiness } from "./harness.js";

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

/**
 * What a generate answered is what the list shows and what is stored: the account name in the
 * list, and the customer and account names in the row, are the answered ones, character for
 * character (nothing normalised on one side only).
 */
export async function assertAnsweredAsListedAndStored(
  h: Pick<Harness, "request" | "storage">,
  as: Pick<TestBusiness, "apiKey" | "secretKey">,
  data: { accountNumber: string; accountName: string; userName: string },
): Promise<void> {
  const listed = (await h.request({ url: `${API}/account/list?limit=100`, as }))
    .json()
    .data.find((a: { accountNumber: string }) => a.accountNumber === data.accountNumber);
  assert.equal(listed?.accountName, data.accountName);
  const row = await h.storage.db
    .selectFrom("accounts")
    .select(["customer_name", "account_name"])
    .where("account_number", "=", data.accountNumber)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { customer_name: data.userName, account_name: data.accountName });
}
