import type { FastifyInstance } from "fastify";
import type { Payout } from "../core/api-types.js";
import { check } from "../core/validation.js";
import { type PayoutQuery, payoutQuery } from "../payouts/validation.js";
import { actingFor } from "./business-scope.js";
import { sendCsv } from "./csv-download.js";
import type { DashboardDependencies } from "./kit.js";
import { filtersOf, koboToNairaText } from "./money-pages.js";
import { signedIn } from "./sign-in.js";

// The business's payouts as CSV (issue 47, item 4, first part): every payout, refund and
// settlement the payouts list's filter selects (status, NIP session id, a range of creation
// times), every page of it, streamed; the API's fields as columns, times in UTC, money in kobo
// and naira. A filter the list refuses is refused here alike (a 400 page saying what to fix).

export const PAYOUT_CSV_COLUMNS = [
  "id",
  "reference",
  "created_at_utc",
  "updated_at_utc",
  "status",
  "failure_reason",
  "currency",
  "amount_kobo",
  "amount_naira",
  "fee_kobo",
  "fee_naira",
  "vat_kobo",
  "vat_naira",
  "stamp_duty_kobo",
  "stamp_duty_naira",
  "bank_code",
  "bank_name",
  "account_number",
  "account_name",
  "narration",
  "session_id",
  "refund_of",
] as const;

type PayoutCsvRecord = Record<(typeof PAYOUT_CSV_COLUMNS)[number], string | number>;

/** One payout as the export's row. */
export function payoutCsvRecord(p: Payout): PayoutCsvRecord {
  const charge = (kind: string) => p.charges.find((line) => line.kind === kind)?.amount ?? 0;
  const kobo = (name: "amount" | "fee" | "vat" | "stamp_duty", value: number) => ({
    [`${name}_kobo`]: value,
    [`${name}_naira`]: koboToNairaText(value),
  });
  return {
    id: p.id,
    reference: p.reference,
    created_at_utc: p.createdAt,
    updated_at_utc: p.updatedAt,
    status: p.status,
    failure_reason: p.failureReason ?? "",
    currency: p.currency,
    ...kobo("amount", p.amount),
    ...kobo("fee", p.fee),
    ...kobo("vat", charge("vat")),
    ...kobo("stamp_duty", charge("stamp_duty")),
    bank_code: p.bankCode,
    bank_name: p.bankName,
    account_number: p.accountNumber,
    account_name: p.accountName,
    narration: p.narration,
    session_id: p.sessionId ?? "",
    refund_of: p.refundOf ?? "",
  } as PayoutCsvRecord;
}

async function* records(batches: AsyncIterable<Payout[]>) {
  for await (const batch of batches) for (const payout of batch) yield payoutCsvRecord(payout);
}

export function payoutExport(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/payouts/export", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const filters = filtersOf(request.query);
    // The list's own parse: a filter it refuses is the dashboard's 400 page, saying what to fix.
    const query: PayoutQuery = check(payoutQuery, { ...filters, page: "1" });
    await deps.users.record(session.actor, forBusiness.businessId, "payouts.exported", { filters });
    return sendCsv(
      reply,
      "payouts",
      PAYOUT_CSV_COLUMNS,
      records(deps.payoutListing.batches(forBusiness, query)),
    );
  });
}
