import type SqliteDatabase from "better-sqlite3";
import type { SqliteStorage } from "../database.js";
import { prepared } from "../prepared.js";
import { LAST_TRANSACTION, RECORD_CONFLICT } from "../statements.js";
import type { TransactionRow } from "../transaction-repository.js";
import {
  conflictRow,
  destination,
  type FoundRow,
  headMap,
  type LedgerState,
  TRANSACTION_COLUMNS,
  type TransferDecisions,
  type TransferKeys,
  type TransferOutcome,
  type TransferWrites,
} from "../transfer-writes.js";
import type { AnswerOptions } from "../unit-of-work.js";
import { writeEventNow } from "./event-writes.js";
import { groupWrite } from "./group-write.js";
import { openLedgerNow, postNow } from "./ledger-writes.js";

/**
 * Ingestion on SQLite: one synchronous write in the group commit, on statements prepared once.
 * Writes run one at a time, so ingestions of one session id, transfers into one account and one
 * business's transfers take turns by construction.
 */
export function sqliteTransferWrites(storage: SqliteStorage): TransferWrites {
  return {
    ingest: (transfer, decide, unit) =>
      groupWrite(storage.group, (db) => ingestNow(db, transfer, decide), unit, OUTCOME_ANSWERS),
  };
}

/** A unit of work answers with an outcome's result; a conflict stores no answer. */
const OUTCOME_ANSWERS: AnswerOptions<TransferOutcome<unknown>> = {
  answers: (outcome) => "result" in outcome,
  answer: (outcome) => ("result" in outcome ? outcome.result : undefined),
};

function ingestNow<R>(
  db: SqliteDatabase.Database,
  { sessionId, accountNumber, now }: TransferKeys,
  decide: TransferDecisions<R>,
): TransferOutcome<R> {
  const existing = prepared(db, TRANSACTION_BY_SESSION).get({ session_id: sessionId }) as
    | TransactionRow
    | undefined;
  if (existing) {
    const seen = decide.again(existing);
    if ("duplicate" in seen) return { result: seen.duplicate };
    prepared(db, RECORD_CONFLICT).run(conflictRow(seen.conflict));
    return seen;
  }
  const found = destination(
    prepared(db, FIND_ACCOUNT_BY_NUMBER).get({ account_number: accountNumber }) as FoundRow | undefined,
  );
  let ledger: LedgerState | undefined;
  if (found) {
    const business_id = found.account.business_id;
    const heads = openLedgerNow(db, business_id, decide.ledgerKinds, now);
    const last = prepared(db, LAST_TRANSACTION).get({ business_id }) as LedgerState["last"];
    ledger = { fee: found.fee, charges: found.charges, heads: headMap(heads), last };
  }
  const posting = decide.post(found && ledger && { ...found, ledger });
  const { transaction } = posting;
  prepared(db, INSERT_TRANSACTION).run(transaction);
  postNow(db, { ...posting, id: transaction.id, businessId: transaction.business_id });
  prepared(db, SET_ACCOUNT_TOTALS).run({ ...posting.accountTotals, account_id: transaction.account_id });
  writeEventNow(db, posting.event);
  return { result: posting.result };
}

const INSERT_TRANSACTION = `insert into transactions (${TRANSACTION_COLUMNS.join(", ")})
  values (${TRANSACTION_COLUMNS.map((c) => `@${c}`).join(", ")})`;
const SET_ACCOUNT_TOTALS = `update accounts set total_received = @total_received, transfer_count = @transfer_count,
  received_day = @received_day, received_on_day = @received_on_day where id = @account_id`;

// PostgreSQL reads the same in one call (migration 0036, vas_transfer_lookups).
/** The account a number was issued to, with the number's retirement, the business's fee and the charges. */
const FIND_ACCOUNT_BY_NUMBER = `select a.*, n.retired_at as number_retired_at, b.fee_basis_points, b.fee_cap_kobo,
    c.vat_basis_points as charge_vat_basis_points, c.stamp_duty_kobo as charge_stamp_duty_kobo,
    c.stamp_duty_threshold_kobo as charge_stamp_duty_threshold_kobo,
    c.stamp_duty_on_payouts as charge_stamp_duty_on_payouts,
    c.stamp_duty_on_credits as charge_stamp_duty_on_credits
  from account_numbers n
  join accounts a on a.id = n.account_id
  join businesses b on b.id = a.business_id
  cross join charge_schedule c
  where n.account_number = @account_number`;

/** The transaction recorded for a bank session id. */
const TRANSACTION_BY_SESSION = "select * from transactions where session_id = @session_id";
