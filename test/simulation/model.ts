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
  /** Its `onMismatch` is `hold` (issue 46, item 6): a payment its policy refuses is held instead. */
  hold?: boolean;
  deactivated: boolean;
  received: number;
  transfers: number;
  /** Its KYC tier (issue 46): 1 with a BVN, 2 with a BVN and a NIN. */
  tier: 1 | 2;
  /** The Africa/Lagos day `onDay` counts, and what it received on it. */
  day: string | null;
  onDay: number;
}

/** VAT on the fee and the stamp duty of one posting, written as the API lists them. */
export type ModelCharges = Array<{ kind: "vat" | "stamp_duty"; amount: number }>;

export interface ModelTransaction {
  sessionId: string;
  accountNumber: string;
  amount: number;
  fee: number;
  charges: ModelCharges;
  balanceAfter: number;
}

/** The operator's charges schedule (issue 46), as the model restates it. */
export interface ModelChargeSchedule {
  vatBasisPoints: number;
  stampDutyKobo: number;
  stampDutyThresholdKobo: number;
  onPayouts: boolean;
  onCredits: boolean;
}

/** What a payout's destination always does (the sandbox's fixed outcomes). */
export type PayoutOutcome = "successful" | "failed" | "reversed";

/** A payout, refund or settlement as the model holds it. */
export interface ModelPayout {
  kind: "payout" | "refund" | "settlement";
  amount: number;
  fee: number;
  vat: number;
  stampDuty: number;
  outcome: PayoutOutcome;
  status: "pending" | PayoutOutcome;
  /** A refund's payment (its session id). */
  refundOf: string | null;
  /** A held credit's return (issue 46): taken from held, and given back there when the bank does not pay. */
  source?: "held";
}

/** Where a credit that came in held stands (issue 46, item 6). */
export interface HeldDecision {
  businessIndex: number;
  state: "held" | "accepted" | "returned";
}

export interface ModelBusiness {
  id: string;
  name: string;
  fee: { basisPoints: number; capKobo: number | null };
  available: number;
  /** Held for payouts the bank has not finished. */
  pending: number;
  /** Credits held by their account's rules until accepted or returned (issue 46, item 6). */
  held: number;
  /** Paid out and kept by the bank (reversals come back out of it). */
  paidOut: number;
  received: number;
  /** Collection fees and the fees of posted payouts. */
  fees: number;
  /** VAT and stamp duty charged on credits and on posted payouts (owed to the state). */
  vat: number;
  stampDuty: number;
  /** Oldest first. */
  transactions: ModelTransaction[];
  /** Oldest first. */
  payouts: ModelPayout[];
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
  | "held"
  | "duplicate"
  | "TRANSFER_CONFLICT"
  | "AMOUNT_ABOVE_LIMIT"
  | "UNKNOWN_ACCOUNT"
  | "ACCOUNT_RETIRED"
  | "ACCOUNT_DEACTIVATED"
  | "ACCOUNT_EXPIRED"
  | "ALREADY_PAID"
  | "AMOUNT_MISMATCH"
  | "TIER_SINGLE_LIMIT"
  | "TIER_DAILY_LIMIT"
  | "TIER_TOTAL_LIMIT";

export const MAX_TRANSFER_KOBO = 5_000_000;

/**
 * The tiers' limits the simulation runs with (TIER1_LIMITS, TIER2_LIMITS: single, daily, total),
 * small enough for its transfers to reach them; tier 3 is not used.
 */
export const TIER_LIMITS = {
  1: { single: 150_000, daily: 300_000, total: 600_000 },
  2: { single: 400_000, daily: 800_000, total: 1_600_000 },
} as const;

/** The day in Africa/Lagos (UTC+1 all year) of an instant, written out again. */
export const lagosDay = (ms: number) => new Date(ms + 3_600_000).toISOString().slice(0, 10);

export class Model {
  now: number;
  readonly businesses: ModelBusiness[];
  readonly accounts: ModelAccount[] = [];
  /** Session ids recorded, with what they were recorded as. */
  readonly recorded = new Map<string, SentNotification>();
  /** The session ids of credits held and never accepted (issue 46): not refunded as payments are (CREDIT_HELD). */
  readonly heldSessions = new Set<string>();
  /** Every credit that came in held, oldest first, by session id: held now, accepted or returned. */
  readonly decisions = new Map<string, HeldDecision>();
  /** Every notification sent (recorded or refused), for duplicates and conflicts. */
  readonly sent: SentNotification[] = [];
  /** Nothing charged until the operator sets it. */
  charges: ModelChargeSchedule = {
    vatBasisPoints: 0,
    stampDutyKobo: 5_000,
    stampDutyThresholdKobo: 1_000_000,
    onPayouts: false,
    onCredits: false,
  };

  constructor(businesses: Array<{ id: string; name: string }>, now: number) {
    this.now = now;
    this.businesses = businesses.map((b) => ({
      ...b,
      fee: { basisPoints: 0, capKobo: null },
      available: 0,
      pending: 0,
      held: 0,
      paidOut: 0,
      received: 0,
      fees: 0,
      vat: 0,
      stampDuty: 0,
      transactions: [],
      payouts: [],
    }));
  }

  /** Half up to whole kobo, then capped. */
  static fee(amount: number, schedule: ModelBusiness["fee"]): number {
    const fee = Math.floor((amount * schedule.basisPoints + 5_000) / 10_000);
    return schedule.capKobo === null ? fee : Math.min(fee, schedule.capKobo);
  }

  /** The payout fee, written out again: NGN 10 up to NGN 5,000, NGN 25 up to NGN 50,000, NGN 50 above. */
  static payoutFee(amount: number): number {
    if (amount <= 500_000) return 1_000;
    if (amount <= 5_000_000) return 2_500;
    return 5_000;
  }

  /** VAT on a fee: basis points of it, half up to whole kobo. */
  vat(fee: number): number {
    return Math.floor((fee * this.charges.vatBasisPoints + 5_000) / 10_000);
  }

  /** The stamp duty on a transfer of `amount`, out (a payout) or in (a credit). */
  stampDuty(amount: number, out: boolean): number {
    const on = out ? this.charges.onPayouts : this.charges.onCredits;
    return on && amount >= this.charges.stampDutyThresholdKobo ? this.charges.stampDutyKobo : 0;
  }

  /** What a payout of `amount` takes from available: amount, fee, VAT on it and the stamp duty. */
  held(amount: number): number {
    const fee = Model.payoutFee(amount);
    return amount + fee + this.vat(fee) + this.stampDuty(amount, true);
  }

  /**
   * The largest settlement whose amount, fee and charges fit in `budget`. What a payout holds rises
   * strictly with its amount (the fee tiers, and the stamp duty, only rise), so a binary search finds it.
   */
  settlementAmount(budget: number): number {
    let low = 0;
    let high = Math.max(0, budget);
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.held(middle) <= budget) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  static lines(vat: number, stampDuty: number): ModelCharges {
    return [
      ...(vat > 0 ? [{ kind: "vat" as const, amount: vat }] : []),
      ...(stampDuty > 0 ? [{ kind: "stamp_duty" as const, amount: stampDuty }] : []),
    ];
  }

  /**
   * Holds a payout when `available` covers its amount and fee ("held"), or says it cannot be
   * ("INSUFFICIENT_BALANCE"); a refund first needs what is left of its payment ("REFUND_EXCEEDS_PAYMENT").
   */
  hold(
    index: number,
    payout: Omit<ModelPayout, "fee" | "vat" | "stampDuty" | "status">,
  ): "held" | "INSUFFICIENT_BALANCE" | "REFUND_EXCEEDS_PAYMENT" {
    const business = this.businesses[index] as ModelBusiness;
    if (payout.refundOf !== null) {
      const paid = business.transactions.find((t) => t.sessionId === payout.refundOf)?.amount ?? 0;
      if (this.refunded(index, payout.refundOf) + payout.amount > paid) return "REFUND_EXCEEDS_PAYMENT";
    }
    const fee = Model.payoutFee(payout.amount);
    const held = this.held(payout.amount);
    if (business.available < held) return "INSUFFICIENT_BALANCE";
    business.available -= held;
    business.pending += held;
    const charges = { vat: this.vat(fee), stampDuty: this.stampDuty(payout.amount, true) };
    business.payouts.push({ ...payout, fee, ...charges, status: "pending" });
    return "held";
  }

  /** What is refunded of a payment: its refunds pending and successful. */
  refunded(index: number, sessionId: string): number {
    return (this.businesses[index] as ModelBusiness).payouts
      .filter((p) => p.refundOf === sessionId && (p.status === "pending" || p.status === "successful"))
      .reduce((sum, p) => sum + p.amount, 0);
  }

  /**
   * The bank finishes every pending payout as its destination does: posted, voided, or posted and
   * sent back. A held credit's return that does not stay paid gives its amount back to held, and
   * the credit is held again. Answers how many were.
   */
  finishPayouts(): number {
    let heldAgain = 0;
    for (const business of this.businesses) {
      for (const payout of business.payouts.filter((p) => p.status === "pending")) {
        const held = payout.amount + payout.fee + payout.vat + payout.stampDuty;
        business.pending -= held;
        payout.status = payout.outcome;
        if (payout.source === "held") {
          if (payout.outcome === "successful") {
            business.paidOut += payout.amount;
            continue;
          }
          business.held += payout.amount;
          const decision = this.decisions.get(payout.refundOf ?? "");
          if (decision) decision.state = "held";
          heldAgain++;
          continue;
        }
        if (payout.outcome === "failed") {
          business.available += held;
        } else {
          business.fees += payout.fee;
          business.vat += payout.vat;
          business.stampDuty += payout.stampDuty;
          if (payout.outcome === "reversed") business.available += payout.amount;
          else business.paidOut += payout.amount;
        }
      }
    }
    return heldAgain;
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
    let mismatch: "ALREADY_PAID" | "AMOUNT_MISMATCH" | undefined;
    if (account.expected !== null) {
      const paid =
        account.policy === "accumulate" ? account.received >= account.expected : account.transfers > 0;
      if (paid) mismatch = "ALREADY_PAID";
      else if (account.policy === "exact" && notification.amount !== account.expected)
        mismatch = "AMOUNT_MISMATCH";
      else if (account.policy === "atLeast" && notification.amount < account.expected)
        mismatch = "AMOUNT_MISMATCH";
    }
    // Declined, or (issue 46, item 6) held and still checked against the tier's limits.
    if (mismatch && !account.hold) return mismatch;
    const limit = TIER_LIMITS[account.tier];
    if (notification.amount > limit.single) return "TIER_SINGLE_LIMIT";
    const today = account.day === lagosDay(this.now) ? account.onDay : 0;
    if (today + notification.amount > limit.daily) return "TIER_DAILY_LIMIT";
    if (account.received + notification.amount > limit.total) return "TIER_TOTAL_LIMIT";
    return mismatch ? "held" : "credited";
  }

  /**
   * Records a held notification (issue 46): the whole amount in the business's held balance, no fee;
   * the account's day counts it (the tier's daily limit), its total received does not.
   */
  holdCredit(notification: SentNotification): void {
    const account = this.owner(notification.accountNumber);
    if (!account) throw new Error(`model: no account ${notification.accountNumber}`);
    const business = this.businesses[account.businessIndex] as ModelBusiness;
    account.onDay = (account.day === lagosDay(this.now) ? account.onDay : 0) + notification.amount;
    account.day = lagosDay(this.now);
    business.received += notification.amount;
    business.held += notification.amount;
    this.heldSessions.add(notification.sessionId);
    this.decisions.set(notification.sessionId, { businessIndex: account.businessIndex, state: "held" });
    business.transactions.push({
      sessionId: notification.sessionId,
      accountNumber: notification.accountNumber,
      amount: notification.amount,
      fee: 0,
      charges: [],
      balanceAfter: business.available,
    });
    this.recorded.set(notification.sessionId, notification);
  }

  /** Records a credited notification: the account's totals, the business's balances and statement. */
  credit(notification: SentNotification): void {
    const account = this.owner(notification.accountNumber);
    if (!account) throw new Error(`model: no account ${notification.accountNumber}`);
    const business = this.businesses[account.businessIndex] as ModelBusiness;
    // The simulation's fees (at most 5 %) and stamp duty (below half its threshold) always fit in the credit.
    const fee = Model.fee(notification.amount, business.fee);
    const vat = this.vat(fee);
    const stampDuty = this.stampDuty(notification.amount, false);
    account.onDay = (account.day === lagosDay(this.now) ? account.onDay : 0) + notification.amount;
    account.day = lagosDay(this.now);
    account.received += notification.amount;
    account.transfers++;
    business.received += notification.amount;
    business.fees += fee;
    business.vat += vat;
    business.stampDuty += stampDuty;
    business.available += notification.amount - fee - vat - stampDuty;
    business.transactions.push({
      sessionId: notification.sessionId,
      accountNumber: notification.accountNumber,
      amount: notification.amount,
      fee,
      charges: Model.lines(vat, stampDuty),
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
