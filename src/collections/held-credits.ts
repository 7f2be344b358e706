import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import type { Actor, ForBusiness } from "../core/actor.js";
import type { Transaction } from "../core/api-types.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { creditNotHeld, transactionNotFound } from "../errors.js";
import { eventToWrite } from "../events/outbox.js";
import { acceptedCharges, acceptLegs, movedHeads, postHeldLegs } from "../ledger/held.js";
import { ledgerAccountsOf } from "../ledger/kinds.js";
import type { PayoutLedger } from "../ledger/ledger-port.js";
import type { HeldCreditRecord } from "../ledger/ledger-records.js";
import { readChargeSchedule } from "../storage/charge-repository.js";
import type { Executor } from "../storage/executor.js";
import { feeScheduleOf, findHeldCredit } from "../storage/held-credit-repository.js";
import { findTransaction } from "../storage/transaction-repository.js";
import { heldView } from "./transaction-listing.js";
import { TRANSACTION_ID } from "./validation.js";

// A business's decisions on its held credits (issue 46, item 6): accepting one moves it from held
// to available and takes its fee and charges then, as its arrival would have; each decision is
// made once, under the business's ledger locks (the ledger's port for money out), with its event.

export interface HeldCreditsOptions {
  ledger: PayoutLedger<Executor>;
  now?: Clock;
}

export class HeldCredits {
  private readonly now: Clock;

  constructor(private readonly options: HeldCreditsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Accepts one of the business's held credits: held → available, its fee and charges by the
   * schedules in force now, with `payment.accepted`. 404 for anything not its own; 409
   * CREDIT_NOT_HELD for a transaction that is not held (credited as it came, or decided already).
   */
  async accept(business: ForBusiness, actor: Actor, id: string, unit?: UnitOfWork): Promise<Transaction> {
    if (!TRANSACTION_ID.test(id)) throw transactionNotFound();
    const { businessId } = business;
    const now = isoNow(this.now);
    return this.options.ledger.post(
      { businessId, accounts: ledgerAccountsOf(businessId), now },
      async (trx, { heads, latestEntry }) => {
        const row = await findTransaction(trx, businessId, id);
        if (!row) throw transactionNotFound();
        if (row.status !== "held") throw creditNotHeld("it was credited as it came");
        const decided = await findHeldCredit(trx, id);
        // Held again after a return the bank did not make: it may be accepted.
        if (decided && decided.state !== "held") throw creditNotHeld(`it was ${decided.state}`);
        const amount = Number(row.amount);
        const { fee, charges } = acceptedCharges(
          amount,
          await feeScheduleOf(trx, businessId),
          await readChargeSchedule(trx),
        );
        const createdAt = latestEntry !== undefined && latestEntry > now ? latestEntry : now;
        const postingId = `hcp_${randomUUID().replaceAll("-", "")}`;
        const legs = acceptLegs(amount, fee, charges);
        const posted = postHeldLegs(heads, legs, {
          transactionId: postingId,
          amount,
          createdAt,
          received: 0,
        });
        // An acceptance moves no balance further than the arrival and a credit taken at once would have.
        if ("beyondLimit" in posted)
          throw new Error(`accepting ${id} would carry ${posted.beyondLimit} past its limit`);
        const record: HeldCreditRecord = {
          transaction_id: id,
          business_id: businessId,
          state: "accepted",
          fee,
          vat: charges.vat,
          stamp_duty: charges.stampDuty,
          posting_id: postingId,
          refund_id: null,
          decided_at: createdAt,
          decided_by_type: actor.type,
          decided_by_id: actor.id,
        };
        const transaction = heldView(row, record);
        const event = eventToWrite(
          { businessId, type: "payment.accepted", accountNumber: row.account_number, data: transaction },
          createdAt,
        );
        return {
          credit: {
            record,
            ...(decided ? { from: "held" as const } : {}),
            posting: { id: postingId, businessId, entries: posted.entries, heads: movedHeads(heads, legs) },
            events: [event],
          },
          result: transaction,
        };
      },
      unit,
    );
  }
}
