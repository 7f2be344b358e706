import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ErrorCode } from "../errors.js";
import { openStorage, type SqliteStorage } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { sqliteVirtualBankStore } from "../storage/sqlite/virtual-bank-store.js";
import type { BankIdentityType, VirtualAccountRequest } from "./account-provider.js";
import { isValidNuban } from "./nuban.js";
import { SANDBOX_IDENTITIES, VirtualBank } from "./virtual-bank.js";

const INSTITUTION_CODE = "999240";

let storage: SqliteStorage;
before(async () => {
  storage = openStorage({ dialect: "sqlite", file: ":memory:" });
  await migrate(storage);
});
after(() => storage.close());

const bank = (sandbox?: boolean) =>
  new VirtualBank({
    store: sqliteVirtualBankStore(storage),
    institutionCode: INSTITUTION_CODE,
    permutationKey: Buffer.alloc(32, 7),
    ...(sandbox === undefined ? {} : { sandbox }),
  });

const request = (
  licenseNumber: string,
  identityType: BankIdentityType = "personal",
): VirtualAccountRequest => ({
  identityType,
  licenseNumber,
  virtualAccountName: "Acme Ltd/Ada Obi",
  customerName: "Ada Obi",
  email: "ada@example.com",
  accountReference: `ref-${licenseNumber}-${identityType}`,
});

const IDENTITY_TYPES: BankIdentityType[] = ["personal", "personal_nin"];

describe("VirtualBank sandbox identity numbers", () => {
  for (const sandbox of [undefined, true]) {
    test(`with sandbox ${sandbox === undefined ? "left at its default" : "on"}, they give their fixed outcomes`, async () => {
      const on = bank(sandbox);
      for (const identityType of IDENTITY_TYPES) {
        const label = identityType === "personal" ? "BVN" : "NIN";
        await assert.rejects(on.createVirtualAccount(request(SANDBOX_IDENTITIES.notFound, identityType)), {
          code: ErrorCode.PROVIDER_REJECTED,
          message: `${label} verification failed: no record found for this ${label}`,
        });
        await assert.rejects(
          on.createVirtualAccount(request(SANDBOX_IDENTITIES.nameMismatch, identityType)),
          {
            code: ErrorCode.PROVIDER_REJECTED,
            message: `${label} verification failed: the customer name does not match the ${label} record`,
          },
        );
        await assert.rejects(on.createVirtualAccount(request(SANDBOX_IDENTITIES.unavailable, identityType)), {
          code: ErrorCode.PROVIDER_UNAVAILABLE,
        });
      }
    });
  }

  test("with sandbox off, they are ordinary numbers: each is issued a valid, distinct NUBAN", async () => {
    const off = bank(false);
    const issued = new Set<string>();
    for (const identityType of IDENTITY_TYPES) {
      for (const number of Object.values(SANDBOX_IDENTITIES)) {
        const sent = request(number, identityType);
        const account = await off.createVirtualAccount(sent);
        assert.ok(isValidNuban(INSTITUTION_CODE, account.accountNumber), account.accountNumber);
        assert.equal(account.accountName, sent.virtualAccountName);
        assert.equal(account.accountReference, sent.accountReference);
        issued.add(account.accountNumber);
      }
    }
    assert.equal(issued.size, IDENTITY_TYPES.length * Object.keys(SANDBOX_IDENTITIES).length);
  });

  test("with sandbox off, the bank's own rules still hold: 11 digits", async () => {
    await assert.rejects(bank(false).createVirtualAccount(request("0000000001")), {
      code: ErrorCode.PROVIDER_REJECTED,
      message: "Invalid BVN: it must be exactly 11 digits",
    });
  });
});

describe("the bank's own records", () => {
  const withReference = (accountReference: string) => ({ ...request("22345678901"), accountReference });

  test("a create is idempotent on accountReference: the same reference answers the same account", async () => {
    const first = await bank().createVirtualAccount(withReference("ref-idem-1"));
    const again = await bank().createVirtualAccount(withReference("ref-idem-1"));
    assert.deepEqual(again, first);
    const other = await bank().createVirtualAccount(withReference("ref-idem-2"));
    assert.notEqual(other.accountNumber, first.accountNumber);
  });

  test("concurrent creates with one reference open one account", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => bank().createVirtualAccount(withReference("ref-race"))),
    );
    assert.equal(new Set(results.map((r) => r.accountNumber)).size, 1);
  });

  test("query by reference answers what was opened, or nothing", async () => {
    const opened = await bank().createVirtualAccount(withReference("ref-query"));
    assert.deepEqual(await bank().findByReference("ref-query"), opened);
    assert.equal(await bank().findByReference("ref-never-used"), undefined);
  });

  test("disable and enable change the account's status; an unknown number is refused", async () => {
    const opened = await bank().createVirtualAccount(withReference("ref-status"));
    await bank().setAccountEnabled(opened.accountNumber, false);
    const status = async () =>
      (
        await storage.db
          .selectFrom("virtual_bank_accounts")
          .select("status")
          .where("account_number", "=", opened.accountNumber)
          .executeTakeFirstOrThrow()
      ).status;
    assert.equal(await status(), "disabled");
    await bank().setAccountEnabled(opened.accountNumber, true);
    assert.equal(await status(), "enabled");
    await assert.rejects(bank().setAccountEnabled("0000000000", false), /no account 0000000000/);
  });
});
