import { type ChargeSchedule, DEFAULT_CHARGES } from "../../ledger/charges.js";
import { formatPercent, parsePercent } from "../../ledger/fees.js";
import { formatNaira } from "../../ledger/kobo.js";
import {
  ChargeScheduleError,
  chargeSchedule,
  monthlyStatement,
  type RemittanceReport,
  remittanceReport,
  setChargeSchedule,
} from "../../ledger-audit/charges.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";

// The charges the operator collects for the state: the schedule (VAT on fees, stamp duty on
// transfers), what to remit for a month, and a business's monthly statement. See docs/ledger.md.

const WHOLE = /^\d{1,16}$/;
const STAMP_DUTY_ON = ["payouts", "credits", "both", "none"] as const;

const kobo = (text: string, what: string) => {
  if (!WHOLE.test(text)) throw new UsageError(`${what} must be a whole number of kobo`);
  return Number(text);
};

const scheduleText = (schedule: ChargeSchedule) => {
  const on = [
    ...(schedule.stampDutyOnPayouts ? ["payouts (sender)"] : []),
    ...(schedule.stampDutyOnCredits ? ["credits (receiver)"] : []),
  ];
  return (
    `VAT: ${formatPercent(schedule.vatBasisPoints)} % of the service's fees\n` +
    `Stamp duty: ${schedule.stampDutyKobo} kobo on transfers of ${schedule.stampDutyThresholdKobo} kobo and more, ` +
    `charged on ${on.length > 0 ? on.join(" and ") : "nothing (off)"}\n`
  );
};

const month = (text: string | undefined) => {
  if (text === undefined) throw new UsageError("--month YYYY-MM is required");
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(text)) throw new UsageError("--month must be YYYY-MM, like 2026-11");
  return text;
};

const reportText = (report: RemittanceReport) =>
  `Charges to remit for ${report.month} (Africa/Lagos, ${report.from} to ${report.to}):\n` +
  `VAT: ${report.vat} kobo (${formatNaira(report.vat)})\n` +
  `Stamp duty: ${report.stampDuty} kobo (${formatNaira(report.stampDuty)})\n` +
  `Total: ${report.total} kobo (${formatNaira(report.total)})\n` +
  (report.businesses.length === 0
    ? ""
    : formatTable(
        report.businesses.map((b) => ({
          business: b.businessId,
          vat: b.vat.total,
          stampDuty: b.stampDuty.total,
          total: b.total,
        })),
        ["business", "vat", "stampDuty", "total"],
      ));

export const CHARGE_COMMANDS: readonly Command[] = [
  {
    name: "charges show",
    synopsis: "[--json]",
    description: ["Print the charges schedule in force: VAT on the service's fees, and the stamp duty."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      positionals(rest, 0, "no positional arguments");
      const schedule = await chargeSchedule((await services()).storage.db);
      if (values.json) json(io, schedule);
      else io.stdout(scheduleText(schedule));
    },
  },
  {
    name: "charges set",
    synopsis:
      "[--defaults] [--vat <percent>] [--stamp-duty-kobo <n>] [--stamp-duty-threshold-kobo <n>] [--stamp-duty-on payouts|credits|both|none]",
    description: [
      "Set the charges on future postings; what is not given keeps its value. --defaults starts from",
      "the law's: VAT 7.5 % of every fee, stamp duty 5000 kobo (NGN 50) on payouts, refunds and",
      "settlements of 1000000 kobo (NGN 10,000) and more, charged to the sending business. --stamp-duty-on",
      "credits (or both) charges the receiver-side levy on inbound credits too. Recorded postings keep theirs.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        defaults: { type: "boolean" },
        vat: { type: "string" },
        "stamp-duty-kobo": { type: "string" },
        "stamp-duty-threshold-kobo": { type: "string" },
        "stamp-duty-on": { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      const vat = values.vat === undefined ? undefined : parsePercent(values.vat);
      if (values.vat !== undefined && vat === undefined)
        throw new UsageError("--vat must be a number from 0 to 100 with at most two decimals, like 7.5");
      const on = values["stamp-duty-on"];
      if (on !== undefined && !(STAMP_DUTY_ON as readonly string[]).includes(on))
        throw new UsageError(`--stamp-duty-on must be one of ${STAMP_DUTY_ON.join(", ")}`);
      const stampDuty = values["stamp-duty-kobo"];
      const threshold = values["stamp-duty-threshold-kobo"];
      const amount = stampDuty === undefined ? undefined : kobo(stampDuty, "--stamp-duty-kobo");
      const from = threshold === undefined ? undefined : kobo(threshold, "--stamp-duty-threshold-kobo");
      const { storage } = await services();
      const base = values.defaults ? DEFAULT_CHARGES : await chargeSchedule(storage.db);
      const schedule: ChargeSchedule = {
        vatBasisPoints: vat ?? base.vatBasisPoints,
        stampDutyKobo: amount ?? base.stampDutyKobo,
        stampDutyThresholdKobo: from ?? base.stampDutyThresholdKobo,
        stampDutyOnPayouts: on === undefined ? base.stampDutyOnPayouts : on === "payouts" || on === "both",
        stampDutyOnCredits: on === undefined ? base.stampDutyOnCredits : on === "credits" || on === "both",
      };
      try {
        await setChargeSchedule(storage.db, schedule, new Date().toISOString());
      } catch (error) {
        if (error instanceof ChargeScheduleError) throw new UsageError(error.message);
        throw error;
      }
      if (values.json) json(io, schedule);
      else io.stdout(scheduleText(schedule));
    },
  },
  {
    name: "charges report",
    synopsis: "--month <YYYY-MM> [--json]",
    description: [
      "What to remit for a month (Africa/Lagos): the VAT and stamp duty every business was charged,",
      "summed from the month's postings to the charges' ledger accounts, exact to the kobo.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        month: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      const report = await remittanceReport((await services()).storage.db, month(values.month));
      if (!report) throw new UsageError("--month must be YYYY-MM");
      if (values.json) json(io, report);
      else io.stdout(reportText(report));
    },
  },
  {
    name: "charges statement",
    synopsis: "<businessId> --month <YYYY-MM> [--json]",
    description: [
      "A business's charges for a month (Africa/Lagos): VAT and stamp duty, on its credits and on its",
      "payouts, from its postings to the charges' ledger accounts.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        month: { type: "string" },
        json: { type: "boolean" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const statement = await monthlyStatement((await services()).storage.db, business, month(values.month));
      if (!statement) throw new UsageError("--month must be YYYY-MM");
      if (values.json) json(io, statement);
      else
        io.stdout(
          `Charges of business ${business} for ${statement.month} (Africa/Lagos):\n` +
            `VAT: ${statement.vat.total} kobo (credits ${statement.vat.credits}, payouts ${statement.vat.payouts})\n` +
            `Stamp duty: ${statement.stampDuty.total} kobo (credits ${statement.stampDuty.credits}, payouts ${statement.stampDuty.payouts})\n` +
            `Total: ${statement.total} kobo (${formatNaira(statement.total)})\n`,
        );
    },
  },
];
