import { type Clock, isoNow } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { AccountDetail } from "../core/api-types.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { accountNotFound } from "../errors.js";
import { recordEvent } from "../events/outbox.js";
import { findCurrentAccount, setPayerRules } from "../storage/account-repository.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import type { AccountUpdate } from "./validation.js";

// An account's rules changed after it was generated (issue 46, item 6): who may pay in and what a
// credit its rules do not take becomes. A credit reads them in its own transaction, so the change
// applies from the next credit on; one under way keeps the rules it read.

/** An account as its detail is made from it (account-lifecycle.ts reads and draws it). */
type CurrentAccount = NonNullable<Awaited<ReturnType<typeof findCurrentAccount>>>;

export interface AccountUpdateContext {
  storage: Storage;
  deliveries: DeliveryDialect<Executor>;
  now: Clock;
  /** The account's detail, as GET /account/{accountNumber} answers it. */
  detail: (account: CurrentAccount) => AccountDetail;
}

/**
 * Applies `update` to the business's account with this current number (another business's, an
 * unknown or a retired number is 404 ACCOUNT_NOT_FOUND, as deactivate answers) and answers its
 * detail as the context's `detail` draws it. A change that changes something records `account.updated` (data:
 * the detail) in the same transaction; one that finds the account as asked answers it as it is.
 */
export function applyAccountUpdate(
  context: AccountUpdateContext,
  business: ForBusiness,
  accountNumber: string,
  update: AccountUpdate,
  unit?: UnitOfWork,
): Promise<AccountDetail> {
  return writeTransaction(
    context.storage,
    async (trx) => {
      const found = await findCurrentAccount(trx, business.businessId, accountNumber);
      if (!found) throw accountNotFound();
      const now = isoNow(context.now);
      const changed = await setPayerRules(trx, found.id, { ...update, updatedAt: now });
      // Read again: the fields not sent as committed now (on PostgreSQL, after the row's lock).
      const account = await findCurrentAccount(trx, business.businessId, accountNumber);
      if (!account) throw accountNotFound();
      const answer = context.detail(account);
      if (changed) {
        await recordEvent(
          trx,
          context.deliveries,
          { businessId: business.businessId, type: "account.updated", accountNumber, data: answer },
          now,
        );
      }
      return answer;
    },
    unit,
  );
}
