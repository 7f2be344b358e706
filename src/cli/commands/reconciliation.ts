import { formatNaira } from "../../ledger/kobo.js";
import type { ReconciliationReport } from "../../reconciliation/report.js";
import { DISCREPANCY_CATEGORIES, isReportDate } from "../../reconciliation/report.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";

// Reconciliation from the CLI (issue 27): a day's report on demand, and a business's requery of
// one payment by its session id.

/** `vas reconcile`'s exit code when the report has a discrepancy. */
export const DISCREPANCY_EXIT_CODE = 3;

const line = (label: string, tally: { count: number; amount: number }) =>
  `  ${label.padEnd(22)} ${String(tally.count).padStart(6)}  ${formatNaira(tally.amount)}\n`;

/** A report as an operator reads it at a terminal: the categories, then each discrepancy. */
function describe(report: ReconciliationReport): string {
  let text =
    `Reconciliation of ${report.date} (Africa/Lagos), ${report.window.from} to ${report.window.to}: ${report.id}\n` +
    line("matched", report.matched) +
    line("recovered", report.recovered) +
    line("missing at the bank", report.missingAtBank) +
    line("mismatched", report.mismatched) +
    line("not credited", report.notCredited) +
    line("payouts matched", report.payoutsMatched) +
    line("payout status mismatch", report.payoutStatusMismatch) +
    line("ledger total", report.ledgerTotal) +
    line("bank total", report.bankTotal);
  for (const category of ["recovered", ...DISCREPANCY_CATEGORIES] as const) {
    for (const item of report[category].items) text += `  ${category}: ${JSON.stringify(item)}\n`;
  }
  text +=
    report.discrepancies === 0
      ? "The ledger and the bank agree.\n"
      : `${report.discrepancies} discrepanc${report.discrepancies === 1 ? "y" : "ies"}: see docs/ledger.md, Reconciliation, for what to do about each.\n`;
  return text;
}

export const RECONCILIATION_COMMANDS: readonly Command[] = [
  {
    name: "reconcile",
    synopsis: "--date YYYY-MM-DD [--json]",
    description: [
      "Reconcile a day in Africa/Lagos (today: the day so far) with the bank's statement: credits",
      "the ledger lacks are credited now (recovered); the report counts and sums, in kobo, what",
      "matched, was recovered, is missing at the bank, mismatched, was not credited, and payouts",
      "whose status differs, and is stored beside the earlier ones. Exit 3 on any discrepancy.",
    ],
    run: async (args, { io, services }) => {
      const { values } = parse(args, { date: { type: "string" }, json: { type: "boolean" } });
      if (values.date === undefined) throw new UsageError("--date is required");
      if (!isReportDate(values.date)) throw new UsageError("--date must be a day, YYYY-MM-DD");
      const report = await (await services()).reconciliation.reconcile(values.date, "manual");
      if (values.json) json(io, report);
      else io.stdout(describe(report));
      return report.discrepancies > 0 ? DISCREPANCY_EXIT_CODE : 0;
    },
  },
  {
    name: "transaction requery",
    synopsis: "--business <businessId> <sessionId> [--json]",
    description: [
      "Find the business's payment with this session id: recorded already, or found at the bank",
      "and credited now (through the ingestion path, with its payment.received event).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        business: { type: "string" },
        json: { type: "boolean" },
      });
      const [sessionId] = positionals(rest, 1, "<sessionId>") as [string];
      if (values.business === undefined) throw new UsageError("--business is required");
      const business = businessId(values.business);
      const { reconciliation, businesses } = await services();
      const summary = await businesses.getBusiness(business);
      const found = await reconciliation.requery(
        { businessId: business, businessName: summary.name },
        sessionId,
      );
      if (values.json) return json(io, found);
      const { transaction } = found;
      io.stdout(
        `${transaction.id}  ${transaction.paidAt}  ${formatNaira(transaction.amount)} into ${transaction.accountNumber}` +
          `  ${found.duplicate ? "recorded already" : "credited now from the bank's statement"}\n`,
      );
    },
  },
];
