import type { FastifyInstance } from "fastify";
import type { TransactionSearch } from "../collections/transaction-search.js";
import { transactionQuery } from "../collections/validation.js";
import type { Transaction } from "../core/api-types.js";
import { checkForm } from "../core/form-fields.js";
import { check } from "../core/validation.js";
import { zonedMinuteToUtc } from "../core/zoned-time.js";
import { AppError, ErrorCode, isAppError, validationFailed } from "../errors.js";
import { actingFor } from "./business-scope.js";
import { sendCsv } from "./csv-download.js";
import { declinedPayments } from "./declined-pages.js";
import { type DashboardDependencies, type Form, page } from "./kit.js";
import { filtersOf, koboToNairaText, nairaToKobo, PAGE_SIZE } from "./money-pages.js";
import { refusal, signedIn } from "./sign-in.js";

const PAYER_NAME_MAX = 100;

/**
 * The business's transactions (issue 28, item 8): the list with GET /transactions' filters and
 * a search by the payer's name and the amount, its CSV export (streamed), and "find a payment"
 * (the API's requery). One transaction's page: transaction-detail-pages.ts.
 */
export function transactionPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/transactions", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const filters = filtersOf(request.query);
    const balance = await deps.collections.balance(forBusiness);
    const view = { title: "Transactions", filters, balance, exportable: false };
    // Declined payments (issue 46) were never transactions: their events list them.
    if (filters.status === "declined") {
      const { declined, pagination } = await declinedPayments(deps, forBusiness, filters.page);
      return page(reply, "transactions", { ...view, items: [], declined, pagination });
    }
    try {
      const listed = await deps.collectionReads.search(
        forBusiness,
        searchOf(filters, PAGE_SIZE, session.timeZone),
      );
      return page(reply, "transactions", { ...view, ...listed, exportable: listed.pagination.total > 0 });
    } catch (error) {
      // A filter on a number that is not one of the business's accounts matches nothing.
      if (isAppError(error) && error.statusCode === 404) {
        return page(reply, "transactions", {
          ...view,
          items: [],
          pagination: undefined,
          error: error.message,
        });
      }
      return refusal(reply, error, "transactions", { ...view, items: [], pagination: undefined });
    }
  });

  // The filtered range as CSV, every page of it, streamed a batch at a time: a year of a busy
  // business is never built in memory. Times in UTC; money in kobo and in naira.
  pages.get("/transactions/export", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const filters = filtersOf(request.query);
    let batches: AsyncIterable<Transaction[]>;
    try {
      batches = await deps.collectionReads.toExport(forBusiness, searchOf(filters, 1, session.timeZone));
    } catch (error) {
      const balance = await deps.collections.balance(forBusiness);
      const view = {
        title: "Transactions",
        filters,
        balance,
        exportable: false,
        items: [],
        pagination: undefined,
      };
      return refusal(reply, error, "transactions", view);
    }
    await deps.users.record(session.actor, forBusiness.businessId, "transactions.exported", { filters });
    return sendCsv(reply, "transactions", CSV_COLUMNS, csvRecords(batches));
  });

  // Find a payment (issue 27): the API's requery. Found recorded, or at the bank and credited
  // now: its page; found nowhere (or refused by the rules): the list, with why beside the form.
  pages.post("/transactions/find", async (request, reply) => {
    const forBusiness = await actingFor(deps.businesses, signedIn(request).businessId);
    const sessionId = ((request.body as Form).sessionId ?? "").trim();
    try {
      const found = await deps.reconciliation.requery(forBusiness, sessionId);
      const how = found.duplicate ? "recorded" : "recovered";
      return reply.redirect(`/dashboard/transactions/${found.transaction.id}?found=${how}`, 303);
    } catch (error) {
      const [balance, listed] = await Promise.all([
        deps.collections.balance(forBusiness),
        deps.collections.listTransactions(forBusiness, check(transactionQuery, { limit: `${PAGE_SIZE}` })),
      ]);
      const view = {
        title: "Transactions",
        filters: {},
        balance,
        ...listed,
        find: { sessionId },
        exportable: false,
      };
      return refusal(reply, error, "transactions", view);
    }
  });
}

/**
 * The list's filters as a search: GET /transactions' own (account, from and to as minutes in
 * the business's time zone, as the form labels them; `to` takes its whole minute; an ISO
 * instant is taken as it is), the payer's name and the amount, each refused in the words of
 * its label, and `status=held`: only the credits held now (issue 46).
 */
export function searchOf(
  filters: Record<string, string>,
  limit: number,
  timeZone: string,
): TransactionSearch {
  const { payerName, amount, status, ...rest } = filters;
  if (status !== undefined && status !== "held") {
    const message = "Show must be every transaction, the held ones or the declined ones (not exported)";
    throw new AppError(ErrorCode.VALIDATION_FAILED, 400, message, { fields: { status: message } });
  }
  for (const [field, seconds] of [
    ["from", ":00.000"],
    ["to", ":59.999"],
  ] as const) {
    const value = rest[field];
    const instant = typeof value === "string" ? zonedMinuteToUtc(value, timeZone, seconds) : undefined;
    if (instant !== undefined) rest[field] = instant;
  }
  const extra = checkForm(
    { payerName: payerName ?? "", amount: amount ?? "" },
    {
      payerName: {
        label: "Payer's name",
        optional: true,
        check: (value: string) => {
          const name = value.trim();
          // A control character (NUL among them) is in no name, and PostgreSQL refuses it outright.
          if (/\p{Cc}/u.test(name)) throw validationFailed("Payer's name contains a character no name has");
          if (name.length > PAYER_NAME_MAX) {
            throw validationFailed(`Payer's name is longer than ${PAYER_NAME_MAX} characters`);
          }
          return name;
        },
      },
      amount: { label: "Amount", optional: true, check: nairaToKobo },
    },
  );
  if (rest.from !== undefined && rest.to !== undefined && rest.from > rest.to) {
    // Said in the words of the form's labels, beside the field (the API says "from" and "to").
    const message = "Paid from must not be after Paid until";
    throw new AppError(ErrorCode.VALIDATION_FAILED, 400, message, { fields: { from: message } });
  }
  return {
    ...check(transactionQuery, { ...rest, limit: `${limit}` }),
    ...(extra.payerName !== undefined ? { payerName: extra.payerName } : {}),
    ...(extra.amount !== undefined ? { amount: extra.amount } : {}),
    ...(status === "held" ? { held: true } : {}),
  };
}

/** The export's columns, in order: its header row. */
const CSV_COLUMNS = [
  "id",
  "paid_at_utc",
  "recorded_at_utc",
  "account_number",
  "payer_name",
  "payer_account_number",
  "payer_bank_name",
  "payer_bank_code",
  "narration",
  "session_id",
  "status",
  "currency",
  "amount_kobo",
  "amount_naira",
  "fee_kobo",
  "fee_naira",
  "vat_kobo",
  "vat_naira",
  "stamp_duty_kobo",
  "stamp_duty_naira",
  "net_kobo",
  "net_naira",
  "refunded_kobo",
  "refunded_naira",
  "balance_after_kobo",
  "balance_after_naira",
] as const;

/** A transaction's charges as the export's columns: 0 where it has none of a kind. */
function chargeColumns(charges: Transaction["charges"]) {
  const of = (kind: string) => charges.find((line) => line.kind === kind)?.amount ?? 0;
  const vat = of("vat");
  const stampDuty = of("stamp_duty");
  return {
    vat_kobo: vat,
    vat_naira: koboToNairaText(vat),
    stamp_duty_kobo: stampDuty,
    stamp_duty_naira: koboToNairaText(stampDuty),
  };
}

/** Each transaction of each batch as one CSV record (kobo as integers, naira as "1500.50"). */
async function* csvRecords(batches: AsyncIterable<Transaction[]>) {
  for await (const batch of batches) {
    for (const t of batch) {
      const record: Record<(typeof CSV_COLUMNS)[number], string | number> = {
        id: t.id,
        paid_at_utc: t.paidAt,
        recorded_at_utc: t.createdAt,
        account_number: t.accountNumber,
        payer_name: t.payer.name,
        payer_account_number: t.payer.accountNumber,
        payer_bank_name: t.payer.bankName,
        payer_bank_code: t.payer.bankCode ?? "",
        narration: t.narration,
        session_id: t.sessionId,
        status: t.status,
        currency: t.currency,
        amount_kobo: t.amount,
        amount_naira: koboToNairaText(t.amount),
        fee_kobo: t.fee,
        fee_naira: koboToNairaText(t.fee),
        ...chargeColumns(t.charges),
        net_kobo: t.netAmount,
        net_naira: koboToNairaText(t.netAmount),
        refunded_kobo: t.refundedAmount,
        refunded_naira: koboToNairaText(t.refundedAmount),
        balance_after_kobo: t.balanceAfter,
        balance_after_naira: koboToNairaText(t.balanceAfter),
      };
      yield record;
    }
  }
}
