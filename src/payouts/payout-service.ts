import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { Payout, PayoutInput } from "../core/api-types.js";
import { lagosDayStart } from "../core/lagos-time.js";
import {
  duplicateReference,
  insufficientBalance,
  payoutIpNotAllowed,
  payoutLimitExceeded,
  payoutsDisabled,
  payoutsPaused,
} from "../core/money-out-errors.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { businessNotVerified } from "../errors.js";
import { type Charges, NO_CHARGE, NO_CHARGES, payoutCharges } from "../ledger/charges.js";
import { heldFor } from "../ledger/holds.js";
import { everyLedgerAccountOf } from "../ledger/kinds.js";
import { formatNaira } from "../ledger/kobo.js";
import type { PayoutRecord, PayoutTermsRecord } from "../ledger/ledger-records.js";
import { payoutFee } from "../ledger/payout-fees.js";
import type { BankPayoutState } from "../providers/payout-rail.js";
import type { Storage } from "../storage/database.js";
import { isNegativeBalanceRefusal, isUniqueViolationOf } from "../storage/errors.js";
import {
  findPayoutById,
  findPayoutByReference,
  PAYOUT_REFERENCE_KEY,
  payoutGateOf,
} from "../storage/payout-repository.js";
import type { BankService } from "./banks.js";
import { heldAgain } from "./held-returns.js";
import { allowsAddress } from "./payout-ips.js";
import { holdPosting, type MoneyOutLedger, movePosting, postingTime } from "./payout-ledger.js";
import {
  LIMIT_COUNTS,
  type PayoutOrder,
  type PayoutRequest,
  payoutFingerprint,
  payoutView,
  TRANSITIONS,
} from "./payout-model.js";
import { feeTiersOf, termsOf } from "./payout-settings.js";
import { assertRefundable } from "./refund-limit.js";
import { DEFAULT_PAYOUT_NARRATION } from "./validation.js";

export interface PayoutServiceOptions {
  storage: Storage;
  /** The ledger's port: a payout's transaction, its posting written whole (ledger/ledger-port.ts). */
  ledger: MoneyOutLedger;
  /** Name enquiry and the bank list. */
  banks: BankService;
  now?: Clock;
}

/** Payouts: held on the ledger when made, posted or voided once when the bank says. */
export class PayoutService {
  private readonly now: Clock;
  private readonly heldListeners: Array<(payout: Payout) => void> = [];
  private readonly movedListeners: Array<(businessId: string, payout: Payout) => unknown> = [];

  constructor(private readonly options: PayoutServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Calls `listener` with each payout once it is held (the tracker asks the bank at once). */
  onHeld(listener: (payout: Payout) => void): void {
    this.heldListeners.push(listener);
  }

  /** Calls `listener` with a payout each time this process moves it to a final status (the business's mail). */
  onMoved(listener: (businessId: string, payout: Payout) => unknown): void {
    this.movedListeners.push(listener);
  }

  /**
   * 403 unless the business has API payouts on (PAYOUTS_DISABLED) and the key may send them from
   * `ip` (PAYOUT_IP_NOT_ALLOWED): checked before the body, as the contract orders.
   */
  async assertAllowed(caller: ForBusiness & { keyId: string }, ip: string): Promise<void> {
    const gate = await payoutGateOf(this.options.storage.db, caller.businessId, caller.keyId);
    if (!gate?.apiPayouts) throw payoutsDisabled();
    if (gate.payoutIps !== null && !allowsAddress(JSON.parse(gate.payoutIps) as string[], ip)) {
      throw payoutIpNotAllowed(ip);
    }
  }

  /**
   * POST /payouts: a reference reused with the same details answers its payout; then the name
   * enquiry (400 / 422 ACCOUNT_NOT_RESOLVED) and, in one transaction under the business's row and
   * ledger locks, the limits (422 PAYOUT_LIMIT_EXCEEDED), the balance (422 INSUFFICIENT_BALANCE,
   * nothing held) and the hold with the payout's row and the request's answer (hold).
   */
  async create(
    business: ForBusiness,
    input: PayoutInput,
    request: PayoutRequest = { channel: "api" },
  ): Promise<Payout> {
    const narration = input.narration ?? DEFAULT_PAYOUT_NARRATION;
    const fingerprint = payoutFingerprint(input);
    const existing = await this.byReference(business, input.reference, fingerprint);
    if (existing) return existing;
    const destination = await this.options.banks.resolve(input);
    return this.hold(
      business,
      {
        channel: request.channel,
        amount: input.amount,
        destination,
        narration,
        fingerprint,
        ...(input.reference === undefined ? {} : { reference: input.reference }),
      },
      request.unit,
    );
  }

  /**
   * The payout this order's reference already made with the same details (a form sent twice:
   * shown, not made again, and asked for no second code); 409 DUPLICATE_REFERENCE when with
   * others; undefined when the reference is new.
   */
  made(business: ForBusiness, input: PayoutInput): Promise<Payout | undefined> {
    return this.byReference(business, input.reference, payoutFingerprint(input));
  }

  /**
   * The payout a reused reference made when it was asked with the same details (`fingerprint`);
   * 409 DUPLICATE_REFERENCE when with others; undefined when the reference is new (or none).
   */
  async byReference(
    business: ForBusiness,
    reference: string | undefined,
    fingerprint: string,
  ): Promise<Payout | undefined> {
    if (reference === undefined) return undefined;
    const existing = await findPayoutByReference(this.options.storage.db, business.businessId, reference);
    return existing && this.sameOrRefused(existing, fingerprint);
  }

  /**
   * Makes a payout of `order` (its destination resolved): in one transaction under the
   * business's row and ledger locks, its terms (403 PAYOUTS_DISABLED, the limit of one payout:
   * 422 PAYOUT_LIMIT_EXCEEDED), its verification, what is left to refund of a refund's payment
   * (422 REFUND_EXCEEDS_PAYMENT), the day's volume, the balance (422 INSUFFICIENT_BALANCE,
   * nothing held) and the hold, with the payout's row and the request's answer. The tracker
   * hears of it once it is committed.
   */
  async hold(business: ForBusiness, order: PayoutOrder, unit?: UnitOfWork): Promise<Payout> {
    const { storage } = this.options;
    const businessId = business.businessId;
    const { amount } = order;
    // A settlement goes to the business's own account, past its cool-off: no limit applies.
    // A held credit's return sends back money the business never took: no limit, no fee (issue 46).
    const limited = order.channel !== "settlement" && !order.heldReturn;
    const source = order.heldReturn ? "held" : "available";
    const id = `po_${randomUUID().replaceAll("-", "")}`;
    let payout: Payout;
    try {
      // Only a verified business moves money, whatever the channel, on the terms it has: both
      // read under the business's row lock (taken before the ledger's), so a payout is never
      // accepted after a suspension has returned, or its switch been turned off since the
      // request's first check, even when a key was authenticated a moment before it (issue 43).
      const locks = {
        businessId,
        business: true,
        accounts: everyLedgerAccountOf(businessId),
        now: isoNow(this.now),
        ...(limited ? { volumeSince: { since: lagosDayStart(this.now()), counted: LIMIT_COUNTS } } : {}),
      };
      payout = await this.options.ledger.post(
        locks,
        async (trx, { verification, terms, charges: schedule, heads, latestEntry, volume }) => {
          const { dailyLimit, fee } = order.heldReturn
            ? { dailyLimit: Number.POSITIVE_INFINITY, fee: 0 }
            : this.termsFor(order, limited, terms);
          // Read with the terms, in the payout's transaction: the schedule the hold charges by is
          // the one in force (NO_CHARGES for a business that does not exist: refused below). A
          // held credit's return charges nothing.
          const charges = order.heldReturn ? NO_CHARGE : payoutCharges(amount, fee, schedule ?? NO_CHARGES);
          const needed = heldFor(amount, fee, charges);
          if (verification !== "completed" && !order.heldReturn?.byOperator)
            throw order.channel === "api" ? businessNotVerified() : payoutsPaused();
          const createdAt = postingTime(latestEntry, locks.now);
          if (order.refund) await assertRefundable(trx, order.refund, amount);
          if (limited && volume + amount > dailyLimit) {
            throw payoutLimitExceeded(
              `today's payouts would come to ${formatNaira(volume + amount)}, above the daily limit of ${formatNaira(dailyLimit)}`,
            );
          }
          const available = heads.get(source)?.balance ?? 0;
          if (available < needed) {
            throw insufficientBalance(
              `the ${source} balance is ${formatNaira(available)}: this payout needs ${formatNaira(needed)} (amount ${formatNaira(amount)}, fee ${formatNaira(fee)}${chargesText(charges)})`,
            );
          }
          const row: PayoutRecord = {
            id,
            business_id: businessId,
            source,
            reference: order.reference ?? id,
            amount,
            fee,
            vat: charges.vat,
            stamp_duty: charges.stampDuty,
            currency: "NGN",
            bank_code: order.destination.bankCode,
            bank_name: order.destination.bankName,
            account_number: order.destination.accountNumber,
            account_name: order.destination.accountName,
            narration: order.narration,
            fingerprint: order.fingerprint,
            status: "pending",
            failure_reason: null,
            refund_of: order.refund?.transactionId ?? null,
            session_id: null,
            nip_codes: null,
            attention_at: null,
            created_at: createdAt,
            updated_at: createdAt,
            submitted_at: null,
            checks: 0,
            next_check_at: createdAt,
            settlement_id: order.settlement?.id ?? null,
          };
          const settlement = await order.settlement?.cover(trx, row);
          const decision = await order.heldReturn?.decide(trx, row);
          return {
            posting: holdPosting(row, heads, createdAt, settlement),
            ...decision,
            result: payoutView(row),
          };
        },
        unit,
      );
    } catch (error) {
      if (isNegativeBalanceRefusal(error)) {
        throw insufficientBalance(
          "the available balance does not cover this payout's amount, fee and charges",
        );
      }
      if (order.reference !== undefined && isUniqueViolationOf(error, PAYOUT_REFERENCE_KEY)) {
        // Another request with this reference committed first.
        const existing = await findPayoutByReference(storage.db, businessId, order.reference);
        if (existing) return this.sameOrRefused(existing, order.fingerprint);
      }
      throw error;
    }
    for (const listener of this.heldListeners) listener(payout);
    return payout;
  }

  /**
   * What a payout of `order` may be on its business's `terms` (undefined: no such business): 403
   * PAYOUTS_DISABLED, the limit of one payout when it is `limited` (422 PAYOUT_LIMIT_EXCEEDED),
   * else its day's limit and its fee.
   */
  private termsFor(
    order: PayoutOrder,
    limited: boolean,
    terms: PayoutTermsRecord | undefined,
  ): { dailyLimit: number; fee: number } {
    const { amount } = order;
    if (!terms) throw payoutsDisabled();
    if (order.channel === "api" && Number(terms.payouts_enabled) !== 1) throw payoutsDisabled();
    const { perPayoutLimit, dailyLimit } = termsOf(terms);
    if (limited && amount > perPayoutLimit) {
      throw payoutLimitExceeded(
        `amount ${amount} kobo (${formatNaira(amount)}) is above the limit of one payout, ${formatNaira(perPayoutLimit)}`,
      );
    }
    return { dailyLimit, fee: payoutFee(feeTiersOf(terms.payout_fee_tiers), amount) };
  }

  private sameOrRefused(existing: PayoutRecord, fingerprint: string): Payout {
    if (existing.fingerprint !== fingerprint) throw duplicateReference(existing.reference);
    return payoutView(existing);
  }

  /**
   * What the bank says of a payout (its answer to a transfer or a query, or its notification):
   * a final status posts or voids the hold, a reversal credits the amount back, each once,
   * with its event, in one transaction. A status the payout has, or cannot move to, changes
   * nothing. Undefined when no payout has the reference.
   */
  async applyBankState(state: BankPayoutState): Promise<Payout | undefined> {
    const { storage } = this.options;
    const found = await findPayoutById(storage.db, state.reference);
    if (!found) return undefined;
    const phases = TRANSITIONS[`${found.status}>${state.status}`];
    if (!phases) return payoutView(found);
    const locks = {
      businessId: found.business_id,
      accounts: everyLedgerAccountOf(found.business_id),
      now: isoNow(this.now),
    };
    const moved = await this.options.ledger.post(locks, async (trx, { heads, latestEntry }) => {
      const createdAt = postingTime(latestEntry, locks.now);
      // Read again under the locks: another process may have applied it meanwhile.
      const row = await findPayoutById(trx, found.id);
      const steps = row && TRANSITIONS[`${row.status}>${state.status}`];
      if (!row || !steps) return { result: undefined };
      const posting = movePosting(row, steps, state, heads, createdAt);
      // A held credit's return that fails, or comes back, gives the money back to held, and the
      // credit is held again, to accept or return (issue 46).
      const again =
        row.source === "held" && (steps.includes("void") || steps.includes("reversal"))
          ? await heldAgain(trx, row, createdAt)
          : undefined;
      return { posting, ...again, result: posting.payout.moved };
    });
    if (moved) {
      const view = payoutView(moved);
      for (const listener of this.movedListeners) {
        await Promise.resolve()
          .then(() => listener(moved.business_id, view))
          .catch(() => {});
      }
      return view;
    }
    const latest = await findPayoutById(storage.db, state.reference);
    return latest && payoutView(latest);
  }
}

/** A payout's charges for a refusal's message: ", VAT NGN 1.88, stamp duty NGN 50.00", or nothing. */
const chargesText = ({ vat, stampDuty }: Charges) =>
  `${vat > 0 ? `, VAT ${formatNaira(vat)}` : ""}${stampDuty > 0 ? `, stamp duty ${formatNaira(stampDuty)}` : ""}`;
