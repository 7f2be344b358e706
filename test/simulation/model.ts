// The simulation's model: what the service should have done, kept in memory and computed
// independently of src/ (fees, acceptance order and policies written out again here), so that
// the real services are compared with a second account of the same rules, not with themselves.

export type Policy = "exact" | "atLeast" | "accumulate";

export interface ModelAccount {
  businessIndex: number;
  kind: "permanent" | "temporary";
  /** Every number issued to it, oldest first; the last is current. */
  numbers: string[];
  email: string;
  expiresAt: number | null;
  expected: number | null;
  policy: Policy | null;
  deactivated: boolean;
  received: number;
  transfers: number;
}

export interface ModelTransaction {
  sessionId: string;
  accountNumber: string;
  amount: number;
  fee: number;
  balanceAfter: number;
}

export interface ModelBusiness {
  id: string;
  name: string;
  fee: { basisPoints: number; capKobo: number | null };
  available: number;
  received: number;
  fees: number;
  /** Oldest first. */
  transactions: ModelTransaction[];
}

/** A notification as sent: what a session id was first recorded with is what later ones must match. */
export interface SentNotification {
  sessionId: string;
  accountNumber: string;
  amount: number;
  currency: string;
}

export type Outcome =
  | "credited"
  | "duplicate"
  | "TRANSFER_CONFLICT"
  | "AMOUNT_ABOVE_LIMIT"
  | "UNKNOWN_ACCOUNT"
  | "ACCOUNT_RETIRED"
  | "ACCOUNT_DEACTIVATED"
  | "ACCOUNT_EXPIRED"
  | "ALREADY_PAID"
  | "AMOUNT_MISMATCH";

export const MAX_TRANSFER_KOBO = 5_000_000;

export class Model {
  now: number;
  readonly businesses: ModelBusiness[];
  readonly accounts: ModelAccount[] = [];
  /** Session ids recorded, with what they were recorded as. */
  readonly recorded = new Map<string, SentNotification>();
  /** Every notification sent (recorded or refused), for duplicates and conflicts. */
  readonly sent: SentNotification[] = [];

  constructor(businesses: Array<{ id: string; name: string }>, now: number) {
    this.now = now;
    this.businesses = businesses.map((b) => ({
      ...b,
      fee: { basisPoints: 0, capKobo: null },
      available: 0,
      received: 0,
      fees: 0,
      transactions: [],
    }));
  }

  /** Half up to whole kobo, then capped. */
  static fee(amount: number, schedule: ModelBusiness["fee"]): number {
    const fee = Math.floor((amount * schedule.basisPoints + 5_000) / 10_000);
    return schedule.capKobo === null ? fee : Math.min(fee, schedule.capKobo);
  }

  owner(number: string): ModelAccount | undefined {
    return this.accounts.find((account) => account.numbers.includes(number));
  }

  /** What receiving this notification should do, without doing it. */
  outcome(notification: SentNotification): Outcome {
    const first = this.recorded.get(notification.sessionId);
    if (first) {
      const same =
        first.accountNumber === notification.accountNumber &&
        first.amount === notification.amount &&
        first.currency === notification.currency;
      return same ? "duplicate" : "TRANSFER_CONFLICT";
    }
    if (notification.amount > MAX_TRANSFER_KOBO) return "AMOUNT_ABOVE_LIMIT";
    const account = this.owner(notification.accountNumber);
    if (!account) return "UNKNOWN_ACCOUNT";
    if (account.numbers.at(-1) !== notification.accountNumber) return "ACCOUNT_RETIRED";
    if (account.deactivated) return "ACCOUNT_DEACTIVATED";
    if (account.expiresAt !== null && this.now >= account.expiresAt) return "ACCOUNT_EXPIRED";
    if (account.expected !== null) {
      const paid =
        account.policy === "accumulate" ? account.received >= account.expected : account.transfers > 0;
      if (paid) return "ALREADY_PAID";
      if (account.policy === "exact" && notification.amount !== account.expected) return "AMOUNT_MISMATCH";
      if (account.policy === "atLeast" && notification.amount < account.expected) return "AMOUNT_MISMATCH";
    }
    return "credited";
  }

  /** Records a credited notification: the account's totals, the business's balances and statement. */
  credit(notification: SentNotification): void {
    const account = this.owner(notification.accountNumber);
    if (!account) throw new Error(`model: no account ${notification.accountNumber}`);
    const business = this.businesses[account.businessIndex] as ModelBusiness;
    const fee = Model.fee(notification.amount, business.fee);
    account.received += notification.amount;
    account.transfers++;
    business.received += notification.amount;
    business.fees += fee;
    business.available += notification.amount - fee;
    business.transactions.push({
      sessionId: notification.sessionId,
      accountNumber: notification.accountNumber,
      amount: notification.amount,
      fee,
      balanceAfter: business.available,
    });
    this.recorded.set(notification.sessionId, notification);
  }

  status(account: ModelAccount): "active" | "expired" | "deactivated" {
    if (account.deactivated) return "deactivated";
    if (account.expiresAt !== null && this.now >= account.expiresAt) return "expired";
    return "active";
  }

  /** The account's detail fields the API shows about its payment. */
  progress(account: ModelAccount) {
    const expected = account.expected;
    if (expected === null)
      return { amountPaid: account.received, amountOutstanding: null, paymentStatus: null };
    let paymentStatus = "paid";
    if (account.received === 0) paymentStatus = "pending";
    else if (account.received < expected) paymentStatus = "partially_paid";
    else if (account.received > expected) paymentStatus = "overpaid";
    return {
      amountPaid: account.received,
      amountOutstanding: Math.max(0, expected - account.received),
      paymentStatus,
    };
  }
}
