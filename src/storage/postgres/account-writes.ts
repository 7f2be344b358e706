import type { AccountWrites } from "../../core/account-writes.js";
import {
  existingAccount,
  NUMBER_COLUMNS,
  RETIRE_NUMBER,
  reissuedAssignments,
  reissuedColumns,
} from "../account-writes.js";
import type { PostgresStorage } from "../database.js";
import type { AccountRow } from "../schema.js";
import { accountCreates } from "./account-batches.js";
import { ANSWERED, recordsValues } from "./answered.js";
import {
  commitEvent,
  ENDPOINTS_OF_BUSINESS,
  EVENT_SEQUENCES,
  EVENTS_WRITTEN,
  endpointsRead,
  eventsValues,
} from "./event-writes.js";
import { inlineStatement } from "./inline.js";
import { named } from "./named.js";
import { clientTransaction } from "./transaction.js";

/**
 * Generate on PostgreSQL: a create is one statement, shared with the business's other creates in
 * flight (account-batches.ts); a re-issue is one transaction of two statements (the permanent
 * account's row lock, then one statement for the rest), so concurrent re-issues of one customer
 * take turns, each seeing the last one's number and version.
 */
export function postgresAccountWrites(storage: PostgresStorage): AccountWrites {
  const create = accountCreates(storage.pool);
  return {
    async createTemporary(account, number, answer, unit) {
      const created = await create(account, number, answer, unit);
      // Only a permanent account is ever found existing instead.
      if (created === undefined) throw new Error("a temporary account was not created");
      return created;
    },
    async createOrReissue(account, number, created, reissue, unit) {
      // The usual case, a new customer, in one statement; an existing one is re-issued.
      const answer = await create(account, number, created, unit);
      if (answer !== undefined) return answer;
      const keys = { business_id: account.businessId, email: account.email };
      return clientTransaction(
        storage,
        unit,
        async ({ client, answerFor, opened: [found, enabled], commitWith }) => {
          const existing = found?.rows[0] as AccountRow | undefined;
          // Permanent accounts are never deleted, and this runs only after the create found one.
          if (!existing) throw new Error("the permanent account to re-issue is gone");
          const decided = reissue(existingAccount(existing));
          const values = {
            ...reissuedColumns(decided.fields),
            id: existing.id,
            business_id: existing.business_id,
            retired_number: existing.account_number,
            reference: number.reference,
            issued_at: number.issuedAt,
            issued_by_type: number.issuedByType,
            issued_by_id: number.issuedById,
            ...recordsValues([{ answer: answerFor(decided.result) }]),
            ...eventsValues([decided.event]),
          };
          const endpoints = endpointsRead(enabled);
          await commitEvent({ client, commitWith }, reissueStatement, values, decided.event, endpoints);
          return decided.result;
        },
        {},
        // With BEGIN: the account's lock, then its business's endpoints read after it.
        [
          inlineStatement(PERMANENT_LOOKUP, keys),
          inlineStatement(ENDPOINTS_OF_BUSINESS, { business_id: account.businessId }),
        ],
      );
    },
  };
}

/** The business's permanent account for an email, locked (concurrent re-issues take turns). */
export const PERMANENT_LOOKUP = named(
  "select * from accounts where business_id = @business_id and kind = 'permanent' and email = @email for update",
);

// The account updated as the domain decided, its number retired and the new one recorded, the
// request's records completed and the event written: one statement, one round trip.
const reissueStatement = named(`
with account_reissued as (
  update accounts set ${reissuedAssignments("greatest", (c) => (c === "version" ? "::integer" : ""))}
  where id = @id
), number_retired as (
  ${RETIRE_NUMBER}
), number_issued as (
  insert into account_numbers (${NUMBER_COLUMNS.join(", ")})
  values (@account_number, @id, @business_id, @version::integer, @reference, @issued_at, null,
          @issued_by_type, @issued_by_id)
), ${ANSWERED}, ${EVENTS_WRITTEN}
${EVENT_SEQUENCES}`);
