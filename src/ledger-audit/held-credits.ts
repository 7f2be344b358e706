import { ledgerAccountId } from "../ledger/kinds.js";
import { standingBlocks } from "../storage/credit-block-repository.js";
import type { Executor } from "../storage/executor.js";
import { acceptancePostings, creditsHeldNow, heldReturns } from "../storage/held-credit-audit.js";

// `vas ledger verify`'s checks of held credits (issue 46, item 6), credit by credit, beside
// verify.ts's totals (which compare flows: what came in held, less what acceptances and returns
// took): each acceptance's posting sums to zero, took exactly its credit's amount out of held and
// put its fee, charges and net where its decision says; the held balance is exactly the credits
// held now and the operators' blocks standing (a return on its way has moved its money to pending, a failed one has brought it back
// and made its credit held again); a returned credit names a return of it, from held, that the
// bank has not refused.

/** Where a drift is and what it is. */
export type Report = (where: string, problem: string) => void;

/** The statuses a return may have while its credit stays returned (failed and reversed ones make it held again). */
const RETURNED_BY = new Set(["pending", "successful"]);

/**
 * Checks held credits one by one. `balances` are the ledger accounts' balances as their entries
 * sum (by ledger account id); `businesses` those whose held balance is checked.
 */
export async function verifyHeldCredits(
  db: Executor,
  report: Report,
  balances: ReadonlyMap<string, number>,
  businesses: Iterable<string>,
  businessId?: string,
): Promise<void> {
  for (const row of await acceptancePostings(db, businessId)) {
    const where = `held credit ${row.transaction_id}`;
    const amount = Number(row.amount);
    const [fee, vat, stampDuty] = [Number(row.fee), Number(row.vat), Number(row.stamp_duty)];
    if (Number(row.entries) === 0) {
      report(where, `it was accepted but its posting ${row.posting_id ?? "(none)"} has no entries`);
      continue;
    }
    if (Number(row.sum) !== 0) report(where, `its acceptance's entries sum to ${row.sum}, not 0`);
    if (Number(row.foreign) > 0)
      report(where, `its acceptance has ${row.foreign} entries in another business's ledger`);
    const expected: Array<[string, number, number]> = [
      ["held", Number(row.held), -amount],
      ["available", Number(row.available), amount - fee - vat - stampDuty],
      ["revenue", Number(row.revenue), fee],
      ["vat_payable", Number(row.vat_payable), vat],
      ["stamp_duty_payable", Number(row.stamp_duty_payable), stampDuty],
    ];
    for (const [kind, moved, should] of expected) {
      if (moved !== should)
        report(
          where,
          `its acceptance moved ${moved} on ${kind}, its amount ${amount} and decision say ${should}`,
        );
    }
  }
  const heldNow = new Map((await creditsHeldNow(db, businessId)).map((row) => [row.business_id, row]));
  // And what operators' blocks on disputed credits hold now (item 7).
  const blocked = new Map((await standingBlocks(db, businessId)).map((row) => [row.business_id, row]));
  for (const id of new Set([...businesses, ...heldNow.keys(), ...blocked.keys()])) {
    const credits = heldNow.get(id);
    const blocks = blocked.get(id);
    const balance = balances.get(ledgerAccountId(id, "held")) ?? 0;
    const amount = Number(credits?.amount ?? 0) + Number(blocks?.amount ?? 0);
    if (balance !== amount)
      report(
        `business ${id}`,
        `held entries sum to ${balance}, the ${Number(credits?.count ?? 0)} credits held now and the ${Number(blocks?.count ?? 0)} blocks standing are ${amount}`,
      );
  }
  for (const row of await heldReturns(db, businessId)) {
    const where = `held credit ${row.transaction_id}`;
    if (row.payout_id === null) {
      report(where, `it was returned by ${row.refund_id ?? "(none)"}, which is no payout`);
      continue;
    }
    if (
      row.refund_of !== row.transaction_id ||
      row.source !== "held" ||
      Number(row.payout_amount) !== Number(row.amount)
    )
      report(
        where,
        `it was returned by ${row.payout_id}, which is not a return of its ${row.amount} kobo from held`,
      );
    else if (!RETURNED_BY.has(String(row.status)))
      report(
        where,
        `it is returned, but its return ${row.payout_id} is ${row.status}: it should be held again`,
      );
  }
}
