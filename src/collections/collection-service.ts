import { randomUUID } from "node:crypto";
import type { ForBusiness, Pagination } from "../accounts/account-service.js";
import { type Clock, isoNow } from "../clock.js";
import {
  AppError,
  accountNotFound,
  ErrorCode,
  transactionNotFound,
  transferConflict,
  validationFailed,
} from "../errors.js";
import { type FeeSchedule, feeFor, MAX_BASIS_POINTS, NO_FEE } from "../ledger/fees.js";
import { type AccountHead, appendEntry, type ChainedEntry, transferLegs } from "../ledger/posting.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import { sendSandboxTransfer } from "../providers/virtual-bank.js";
import {
  countTransfer,
  findAccountByAnyNumber,
  findAccountByNumberForUpdate,
} from "../storage/account-repository.js";
import { findFeeSchedule, updateFeeSchedule } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import { appendEntries, ledgerBalances, lockLedgerAccounts } from "../storage/ledger-repository.js";
import type { LedgerAccountKind } from "../storage/schema.js";
import {
  findTransaction,
  findTransactionBySession,
  firstOrdinalFrom,
  insertTransaction,
  lastOrdinalUpTo,
  lastTransaction,
  lockSession,
  type TransactionRow,
  type TransactionScope,
  transactionPage,
} from "../storage/transaction-repository.js";
import { unitOfWorkReference, writeTransaction } from "../storage/transactions.js";
import { accept, CURRENCY } from "./acceptance.js";
import {
  parseNotification,
  parseSandboxTransfer,
  parseTransactionQuery,
  TRANSACTION_ID,
} from "./validation.js";

/** A transaction as the API answers it: every amount in integer kobo. */
export interface Transaction {
  id: string;
  accountNumber: string;
  amount: number;
  fee: number;
  netAmount: number;
  currency: string;
  payer: { name: string; accountNumber: string; bankName: string };
  narration: string;
  sessionId: string;
  status: "successful";
  /** When the bank debited the payer (the value time). */
  paidAt: string;
  /** When the service recorded it. */
  createdAt: string;
  /** The business's available balance right after it. */
  balanceAfter: number;
}

/** What ingesting a notification did: recorded it now, or found it recorded already. */
export interface ReceivedTransfer {
  transaction: Transaction;
  duplicate: boolean;
}

/** GET /balance: kobo. */
export interface Balance {
  available: number;
  totalReceived: number;
  totalFees: number;
  currency: string;
}

export interface CollectionServiceOptions {
  storage: Storage;
  /** The largest transfer accepted, in kobo (MAX_TRANSFER_KOBO). */
  maxTransferKobo: number;
  /** Whether sandbox transfers may be made (SANDBOX). */
  sandbox: boolean;
  now?: Clock;
}

const transactionView = (row: TransactionRow): Transaction => ({
  id: row.id,
  accountNumber: row.account_number,
  amount: Number(row.amount),
  fee: Number(row.fee),
  netAmount: Number(row.net_amount),
  currency: row.currency,
  payer: { name: row.payer_name, accountNumber: row.payer_account_number, bankName: row.payer_bank_name },
  narration: row.narration,
  sessionId: row.session_id,
  status: row.status,
  paidAt: row.value_at,
  createdAt: row.created_at,
  balanceAfter: Number(row.balance_after),
});

/** The same transfer again: the fields a bank may not change under one session id. */
const sameTransfer = (row: TransactionRow, notification: TransferNotification) =>
  row.account_number === notification.accountNumber &&
  Number(row.amount) === notification.amount &&
  row.currency === notification.currency;

/** Inbound transfers: the one ingestion path, the ledger postings, and what a business reads of them. */
export class CollectionService {
  private readonly now: Clock;

  constructor(private readonly options: CollectionServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Records a bank's notification, whatever its source: once per session id (the same one
   * again answers the first recording; with another account, amount or currency it is refused
   * as a conflict), credited only when the acceptance rules allow, with its ledger postings and
   * balances in the same transaction. A refusal rolls everything back and throws.
   */
  async receive(notification: unknown): Promise<ReceivedTransfer> {
    const transfer = parseNotification(notification);
    return writeTransaction(this.options.storage, async (trx) => {
      await lockSession(trx, transfer.sessionId);
      const existing = await findTransactionBySession(trx, transfer.sessionId);
      if (existing) {
        if (!sameTransfer(existing, transfer)) throw transferConflict(transfer.sessionId);
        return { transaction: transactionView(existing), duplicate: true };
      }
      const now = this.now();
      const { account } = accept(
        transfer,
        await findAccountByNumberForUpdate(trx, transfer.accountNumber),
        now,
        this.options.maxTransferKobo,
      );
      const businessId = account.business_id;
      const fee = feeFor(transfer.amount, (await findFeeSchedule(trx, businessId)) ?? NO_FEE);
      const accountOrdinal = await countTransfer(trx, account.id, transfer.amount);
      const nowIso = new Date(now).toISOString();
      const heads = await lockLedgerAccounts(trx, businessId, CURRENCY, nowIso);
      // The business's ledger rows are held from here, so its transfers take turns: the ordinal
      // follows its last transaction, and so does the recording time, which never goes back
      // within a business (several processes' clocks may), so a time range is an ordinal range.
      const last = await lastTransaction(trx, businessId);
      const ordinal = (last?.ordinal ?? 0) + 1;
      const createdAt = last !== undefined && last.created_at > nowIso ? last.created_at : nowIso;
      const id = `txn_${randomUUID().replaceAll("-", "")}`;
      const entries = postEntries(heads, id, transferLegs(transfer.amount, fee), createdAt);
      const row: TransactionRow = {
        id,
        business_id: businessId,
        account_id: account.id,
        account_number: transfer.accountNumber,
        ordinal,
        account_ordinal: accountOrdinal,
        session_id: transfer.sessionId,
        amount: transfer.amount,
        fee,
        net_amount: transfer.amount - fee,
        currency: transfer.currency,
        balance_after: headOf(heads, "available").balance,
        payer_name: transfer.payer.name,
        payer_account_number: transfer.payer.accountNumber,
        payer_bank_name: transfer.payer.bankName,
        narration: transfer.narration,
        status: "successful",
        value_at: transfer.paidAt,
        created_at: createdAt,
      };
      await insertTransaction(trx, row);
      await appendEntries(trx, businessId, entries, heads.values());
      return { transaction: transactionView(row), duplicate: false };
    });
  }

  /**
   * The embedded Virtual Bank pays into one of the business's own accounts (a current or a
   * retired number; another business's or an unknown one is 404), through `receive`. A retry of
   * the same request sends the same session id, so it is recorded once.
   */
  async sandboxTransfer(business: ForBusiness, body: Record<string, unknown>): Promise<ReceivedTransfer> {
    if (!this.options.sandbox)
      throw new AppError(ErrorCode.NOT_FOUND, 404, "Sandbox transfers are off (SANDBOX=false)");
    const input = parseSandboxTransfer(body);
    const account = await findAccountByAnyNumber(
      this.options.storage.db,
      business.businessId,
      input.accountNumber,
    );
    if (!account) throw accountNotFound();
    const reference = unitOfWorkReference() ?? randomUUID();
    return sendSandboxTransfer((notification) => this.receive(notification), {
      ...input,
      sessionId: `sandbox-${reference}`,
      paidAt: isoNow(this.now),
    });
  }

  /**
   * One page of the business's transactions, newest first, optionally of one account (any of
   * its numbers) and within [from, to] of recording time. Ordinals are dense per business and
   * per account and follow recording time, so the bounds are two index seeks and any page an
   * index range read.
   */
  async listTransactions(
    business: ForBusiness,
    query: Record<string, unknown>,
  ): Promise<{ items: Transaction[]; pagination: Pagination }> {
    const { page, limit, accountNumber, from, to } = parseTransactionQuery(query);
    const db = this.options.storage.db;
    const { businessId } = business;
    let scope: TransactionScope = { kind: "business", businessId };
    let count: number;
    if (accountNumber !== undefined) {
      const account = await findAccountByAnyNumber(db, businessId, accountNumber);
      if (!account) throw accountNotFound();
      scope = { kind: "account", businessId, accountId: account.id };
      count = Number(account.transfer_count);
    } else {
      count = (await lastTransaction(db, businessId))?.ordinal ?? 0;
    }
    let low = 1;
    let high = count;
    if (from !== undefined) low = (await firstOrdinalFrom(db, scope, from)) ?? high + 1;
    if (to !== undefined) high = Math.min(high, (await lastOrdinalUpTo(db, scope, to)) ?? 0);
    const total = Math.max(0, high - low + 1);
    const pagination = { page, limit, total, pages: Math.ceil(total / limit) };
    const upTo = high - (page - 1) * limit;
    if (upTo < low) return { items: [], pagination };
    const rows = await transactionPage(db, scope, Math.max(low, upTo - limit + 1), upTo);
    return { items: rows.map(transactionView), pagination };
  }

  /** One of the business's transactions; anything else (another business's included) is 404. */
  async getTransaction(business: ForBusiness, id: string): Promise<Transaction> {
    if (!TRANSACTION_ID.test(id)) throw transactionNotFound();
    const row = await findTransaction(this.options.storage.db, business.businessId, id);
    if (!row) throw transactionNotFound();
    return transactionView(row);
  }

  /** The business's balances, read from its ledger accounts. */
  async balance(business: ForBusiness): Promise<Balance> {
    const balances = await ledgerBalances(this.options.storage.db, business.businessId);
    return {
      available: balances.available,
      totalReceived: -balances.settlement,
      totalFees: balances.revenue,
      currency: CURRENCY,
    };
  }

  /** Sets the business's fee on future transfers (an operator's decision: the CLI). */
  async setFee(businessId: string, schedule: FeeSchedule): Promise<void> {
    const { basisPoints, capKobo } = schedule;
    if (!Number.isInteger(basisPoints) || basisPoints < 0 || basisPoints > MAX_BASIS_POINTS) {
      throw validationFailed("the fee must be from 0 to 100 percent");
    }
    if (capKobo !== null && (!Number.isSafeInteger(capKobo) || capKobo < 0)) {
      throw validationFailed("the cap must be a whole number of kobo, 0 or more");
    }
    const updated = await writeTransaction(this.options.storage, (trx) =>
      updateFeeSchedule(trx, businessId, schedule, isoNow(this.now)),
    );
    if (!updated) throw validationFailed(`no business has id ${businessId}`);
  }
}

function headOf(heads: Map<LedgerAccountKind, AccountHead>, kind: LedgerAccountKind): AccountHead {
  const head = heads.get(kind);
  if (!head) throw new Error(`the business has no ${kind} ledger account`);
  return head;
}

/** Chains each leg onto its account's head, moving the heads along. */
function postEntries(
  heads: Map<LedgerAccountKind, AccountHead>,
  transactionId: string,
  legs: ReturnType<typeof transferLegs>,
  createdAt: string,
): ChainedEntry[] {
  return legs.map((leg) => {
    const { entry, head } = appendEntry(headOf(heads, leg.kind), transactionId, leg.amount, createdAt);
    heads.set(leg.kind, head);
    return entry;
  });
}
