import { statusOf } from "../accounts/account-status.js";
import type { Clock } from "../clock.js";
import { transactionView } from "../collections/transaction-listing.js";
import type { AccountStatus, Transaction } from "../core/api-types.js";
import { emailSchema } from "../core/validation.js";
import {
  accountByAnyNumberAcross,
  accountsByEmailAcross,
  businessesByAccountNumber,
  businessesByEmail,
  businessesByName,
  businessesByRcNumber,
  CONSOLE_RESULTS,
  transactionsAcross,
} from "../storage/console-repository.js";
import type { Storage } from "../storage/database.js";
import type { BusinessService, BusinessSummary } from "./business-service.js";

// What an operator looks for across every business (issue 28, item 11): a business by its
// name, an email, its RC number or an account number; a customer's accounts; a payment.

const ACCOUNT_NUMBER = /^\d{10}$/;
/** An RC number as typed: its prefix (which the details may or may not carry) and digits. */
const RC_NUMBER = /^(RC|BN|IT)?\s?(\d{4,8})$/i;

/** An account as the console lists it: whose it is, and where it stands. */
export interface ConsoleAccount {
  businessId: string;
  businessName: string;
  accountNumber: string;
  accountName: string;
  customerName: string;
  email: string;
  isTemporary: boolean;
  status: AccountStatus;
  totalReceived: number;
  /** Its KYC tier (issue 46). */
  tier: number;
  createdAt: string;
}

/** A transaction as the console lists it, with its business. */
export interface ConsoleTransaction extends Transaction {
  businessId: string;
  businessName: string;
}

/** Where the console's transaction list continues: after this one, in (value time, session id) order. */
export interface ConsoleCursor {
  valueAt: string;
  sessionId: string;
}

/** A page of the console's transactions, and where the next (older) one starts. */
export interface ConsoleTransactionPage {
  items: ConsoleTransaction[];
  next: ConsoleCursor | undefined;
}

export class ConsoleSearch {
  private readonly now: Clock;

  constructor(private readonly options: { storage: Storage; businesses: BusinessService; now?: Clock }) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The businesses `text` names: 10 digits, an account number it has or had; an email, a user's
   * or its contact's; an RC number (RC, BN or IT and digits, or the digits alone), its details';
   * anything else, part
   * of its name or registered name. At most 50, newest first.
   */
  async businesses(text: string): Promise<BusinessSummary[]> {
    const query = text.trim();
    // A control character (NUL among them) names nothing, and PostgreSQL refuses it outright.
    if (query === "" || /\p{Cc}/u.test(query)) return [];
    const db = this.options.storage.db;
    const email = emailSchema.safeParse(query);
    const ids = ACCOUNT_NUMBER.test(query)
      ? await businessesByAccountNumber(db, query)
      : email.success
        ? await businessesByEmail(db, email.data)
        : RC_NUMBER.test(query)
          ? await businessesByRcNumber(db, query.replace(/\s/g, "").replace(/^(RC|BN|IT)/i, ""))
          : await businessesByName(db, query);
    const found = await Promise.all([...new Set(ids)].map((id) => this.options.businesses.getBusiness(id)));
    return found.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, CONSOLE_RESULTS);
  }

  /** The accounts `text` names across every business: a number they have or had, or a customer's email. */
  async accounts(text: string): Promise<ConsoleAccount[]> {
    const query = text.trim();
    if (/\p{Cc}/u.test(query)) return [];
    const db = this.options.storage.db;
    const email = emailSchema.safeParse(query);
    const rows = ACCOUNT_NUMBER.test(query)
      ? await accountByAnyNumberAcross(db, query)
      : email.success
        ? await accountsByEmailAcross(db, email.data)
        : [];
    const now = this.now();
    return rows.map((row) => ({
      businessId: row.businessId,
      businessName: row.businessName,
      accountNumber: row.accountNumber,
      accountName: row.accountName,
      customerName: row.customerName,
      email: row.email,
      isTemporary: row.kind === "temporary",
      status: statusOf(row, now),
      totalReceived: Number(row.totalReceived),
      tier: Number(row.tier),
      createdAt: row.createdAt,
    }));
  }

  /**
   * Transactions across every business, latest paid first, `limit` at a time after `before`;
   * or the one with a session id; or an account's (any number it has had).
   */
  async transactions(
    filter: { sessionId?: string; accountNumber?: string },
    before: ConsoleCursor | undefined,
    limit = 20,
  ): Promise<ConsoleTransactionPage> {
    const db = this.options.storage.db;
    let accountId: string | undefined;
    if (filter.accountNumber !== undefined) {
      const [account] = await accountByAnyNumberAcross(db, filter.accountNumber);
      if (!account) return { items: [], next: undefined };
      accountId = account.id;
    }
    const rows = await transactionsAcross(
      db,
      {
        ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
        ...(accountId ? { accountId } : {}),
      },
      before,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => ({
        ...transactionView(row),
        businessId: row.business_id,
        businessName: row.business_name,
      })),
      next: rows.length > limit && last ? { valueAt: last.value_at, sessionId: last.session_id } : undefined,
    };
  }
}
