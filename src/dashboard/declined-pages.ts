import type { ForBusiness } from "../core/actor.js";
import { check } from "../core/validation.js";
import { eventQuery } from "../events/event-service.js";
import type { DashboardDependencies } from "./kit.js";
import { PAGE_SIZE } from "./money-pages.js";

// The payments the service declined for a business (issue 46: past a tier's limit, a payer not
// allowed, an amount its account does not take), which the bank reversed: never transactions,
// known only by their `payment.declined` events. The transactions page shows them under
// Show: Declined, newest first, for as long as events are kept.

/** One declined payment as the page lists it. */
export interface DeclinedPayment {
  eventId: string;
  declinedAt: string;
  accountNumber: string;
  amount: number;
  payer: { name: string; accountNumber: string; bankName: string };
  reason: { code: string; message: string };
  sessionId: string;
}

/** A page (`page`, 1 when absent or not a page) of the business's declined payments. */
export async function declinedPayments(deps: DashboardDependencies, business: ForBusiness, page = "1") {
  const query = check(eventQuery, {
    type: "payment.declined",
    page: /^[1-9]\d{0,8}$/.test(page) ? page : "1",
    limit: `${PAGE_SIZE}`,
  });
  const { items, pagination } = await deps.events.list(business, query);
  const declined: DeclinedPayment[] = items.map((event) => {
    const data = event.data as Omit<DeclinedPayment, "eventId">;
    return {
      eventId: event.id,
      declinedAt: data.declinedAt,
      accountNumber: data.accountNumber,
      amount: data.amount,
      payer: data.payer,
      reason: data.reason,
      sessionId: data.sessionId,
    };
  });
  return { declined, pagination };
}
