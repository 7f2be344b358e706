import { randomUUID } from "node:crypto";
import { CBN_TIER_LIMITS, type TierLimits } from "../accounts/tiers.js";
import { type Clock, isoNow } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { Balance, SandboxTransferInput, Transaction } from "../core/api-types.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import {
  AppError,
  accountNotFound,
  ErrorCode,
  transactionNotFound,
  transferConflict,
  validationFailed,
} from "../errors.js";
import { type FeeSchedule, MAX_BASIS_POINTS } from "../ledger/fees.js";
import { LEDGER_ACCOUNT_KINDS } from "../ledger/kinds.js";
import type { TransferWrites } from "../ledger/ledger-port.js";
import type { ConflictInput, TransactionRecord } from "../ledger/ledger-records.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import { sandboxNotification } from "../providers/virtual-bank.js";
import { updateFeeSchedule } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { ledgerBalances, ledgerBalancesAt } from "../storage/ledger-repository.js";
import { findTransaction } from "../storage/transaction-repository.js";
import { writeTransaction } from "../storage/transactions.js";
import { CURRENCY } from "./acceptance.js";
import {
  type CreditRules,
  decideCredit,
  type PaymentVariance,
  type ReceivedTransfer,
} from "./credit-decision.js";
import { DeclinedCredit, recordDeclined } from "./declined.js";
import { listTransactions, type TransactionPage, transactionView, viewsOf } from "./transaction-listing.js";
import { type BalanceQuery, parseNotification, TRANSACTION_ID, type TransactionQuery } from "./validation.js";

export type { Balance, PaymentVariance, ReceivedTransfer, Transaction, TransactionPage };

export interface CollectionServiceOptions {
  storage: Storage;
  /** The ledger's port: the ingestion's write, in the database's dialect. */
  ledger: TransferWrites;
  /** The largest transfer accepted, in kobo (MAX_TRANSFER_KOBO). */
  maxTransferKobo: number;
  /** Whether sandbox transfers may be made (SANDBOX, with the embedded bank). */
  sandbox: boolean;
  /** What an account of each KYC tier may receive (TIER1_LIMITS ...; default the CBN's). */
  tierLimits?: TierLimits;
  /** Writing a declined credit's event (the stores' `deliveries`). */
  deliveries: DeliveryDialect<Executor>;
  now?: Clock;
}

/** The same transfer again: the fields a bank may not change under one session id. */
const sameTransfer = (row: TransactionRecord, notification: TransferNotification) =>
  row.account_number === notification.accountNumber &&
  Number(row.amount) === notification.amount &&
  row.currency === notification.currency;

/** A sandbox transfer asked of a server without the embedded bank's sandbox (the CLI's, the dashboard's). */
const sandboxOff = () =>
  new AppError(
    ErrorCode.NOT_FOUND,
    404,
    "Sandbox transfers are off (SANDBOX=false, or PROVIDER=http: pay at the bank's sandbox)",
  );

/** Inbound transfers: the one ingestion path, the ledger postings, and what a business reads of them. */
export class CollectionService {
  private readonly now: Clock;
  private readonly rules: CreditRules;
  private readonly conflictListeners: Array<(conflict: ConflictInput) => void> = [];

  constructor(private readonly options: CollectionServiceOptions) {
    this.now = options.now ?? Date.now;
    this.rules = {
      maxTransferKobo: options.maxTransferKobo,
      tierLimits: options.tierLimits ?? CBN_TIER_LIMITS,
    };
  }

  /**
   * Records a bank's notification, whatever its source: once per session id (the same one
   * again answers the first recording; with another account, amount or currency it is refused
   * as a conflict), credited only when the acceptance rules allow, with its ledger postings and
   * balances in the same transaction. A refusal rolls everything back and throws, except a
   * conflict: it is kept (transfer_conflicts), then the listeners hear of it, then it throws.
   */
  async receive(notification: unknown, unit?: UnitOfWork): Promise<ReceivedTransfer> {
    return this.ingest(parseNotification(notification), unit);
  }

  /**
   * As `receive`, for a transfer already read (the sandbox's, built from a checked input, which
   * names its payee and the instant it was made: its paid-at time).
   */
  private async ingest(
    transfer: TransferNotification,
    unit?: UnitOfWork,
    sandbox?: { payee: string; now: string },
  ): Promise<ReceivedTransfer> {
    let outcome: Awaited<ReturnType<CollectionService["record"]>>;
    try {
      outcome = await this.record(transfer, unit, sandbox?.payee, sandbox?.now ?? isoNow(this.now));
    } catch (error) {
      // Refused, and the business is told (once per session id); if that cannot be written,
      // the bank is answered 503 and sends it again.
      if (error instanceof DeclinedCredit) {
        await recordDeclined(this.options.storage, this.options.deliveries, transfer, error, this.now);
      }
      throw error;
    }
    if ("result" in outcome) return outcome.result;
    for (const listener of this.conflictListeners) {
      try {
        listener(outcome.conflict);
      } catch {
        // An observer (metrics, the log) failing never changes the answer.
      }
    }
    throw transferConflict(outcome.conflict.sessionId);
  }

  /** Calls `listener` with each conflict refused, once it is kept (metrics, the log); returns how to stop. */
  onConflict(listener: (conflict: ConflictInput) => void): () => void {
    this.conflictListeners.push(listener);
    return () => {
      const index = this.conflictListeners.indexOf(listener);
      if (index >= 0) this.conflictListeners.splice(index, 1);
    };
  }

  /**
   * The ingestion's write. With `payee`, the number must be one issued to that business (a current
   * or a retired number): decided under the ingestion's own look-up, so no read of its own.
   */
  private record(
    transfer: TransferNotification,
    unit: UnitOfWork | undefined,
    payee: string | undefined,
    now: string,
  ) {
    return this.options.ledger.ingest<ReceivedTransfer>(
      { sessionId: transfer.sessionId, accountNumber: transfer.accountNumber, now },
      {
        again: (existing) => {
          if (sameTransfer(existing, transfer)) {
            return { duplicate: { transaction: transactionView(existing), duplicate: true, payment: null } };
          }
          // Kept before refusing, then counted and logged: never silently swallowed.
          const conflict: ConflictInput = {
            sessionId: transfer.sessionId,
            transactionId: existing.id,
            businessId: existing.business_id,
            accountNumber: transfer.accountNumber,
            amount: transfer.amount,
            currency: transfer.currency,
            seenAt: isoNow(this.now),
          };
          return { conflict };
        },
        ledgerKinds: LEDGER_ACCOUNT_KINDS,
        post: (found) => {
          if (payee !== undefined && found?.account.business_id !== payee) throw accountNotFound();
          return decideCredit(transfer, found, this.now(), this.rules);
        },
      },
      unit,
    );
  }

  /**
   * The embedded Virtual Bank pays into one of the business's own accounts (a current or a
   * retired number; another business's or an unknown one is 404), through `receive`. A retry of
   * the same request sends the same session id, so it is recorded once.
   */
  async sandboxTransfer(
    business: ForBusiness,
    input: SandboxTransferInput,
    unit?: UnitOfWork,
  ): Promise<ReceivedTransfer> {
    if (!this.options.sandbox) throw sandboxOff();
    const reference = unit?.reference ?? randomUUID();
    // Built from the route's checked input, with a UUID session id: a notification the bank
    // protocol accepts as it is (collections/validation.test.ts), so it is not read again.
    const now = isoNow(this.now);
    const transfer = sandboxNotification({ ...input, sessionId: `sandbox-${reference}`, paidAt: now });
    return this.ingest(transfer, unit, { payee: business.businessId, now });
  }

  /** GET /transactions: one page of the business's transactions (see transaction-listing.ts). */
  listTransactions(business: ForBusiness, query: TransactionQuery): Promise<TransactionPage> {
    return listTransactions(this.options.storage.db, business.businessId, query);
  }

  /** One of the business's transactions; anything else (another business's included) is 404. */
  async getTransaction(business: ForBusiness, id: string): Promise<Transaction> {
    if (!TRANSACTION_ID.test(id)) throw transactionNotFound();
    const row = await findTransaction(this.options.storage.db, business.businessId, id);
    if (!row) throw transactionNotFound();
    const [transaction] = await viewsOf(this.options.storage.db, [row]);
    return transaction as Transaction;
  }

  /** The business's balances, read from its ledger accounts: now, or as they stood `at` an instant. */
  async balance(business: ForBusiness, { at }: BalanceQuery = {}): Promise<Balance> {
    const db = this.options.storage.db;
    const balances =
      at === undefined
        ? await ledgerBalances(db, business.businessId)
        : await ledgerBalancesAt(db, business.businessId, at);
    return {
      available: balances.available,
      pending: balances.pending,
      held: balances.held,
      totalReceived: 0 - balances.settlement, // never -0
      totalPaidOut: balances.paid_out,
      totalFees: balances.revenue,
      totalVat: balances.vat_payable,
      totalStampDuty: balances.stamp_duty_payable,
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
