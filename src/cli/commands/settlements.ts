import { CLI } from "../../core/actor.js";
import type { Settlement, SettlementTerms } from "../../core/api-types.js";
import { check } from "../../core/validation.js";
import { formatNaira } from "../../ledger/kobo.js";
import { payoutQuery } from "../../payouts/validation.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";

// Settlement from the CLI: the account and schedule an operator sets for a business, a
// settlement run now, and the business's settlements.

const describeTerms = (id: string, terms: SettlementTerms) => {
  const account = terms.account
    ? `${terms.account.accountName}, ${terms.account.bankName} ${terms.account.accountNumber} ` +
      `(set ${terms.account.setAt}; settlements from ${terms.account.usableFrom})`
    : "none";
  const schedule = terms.schedule === "daily" ? `daily at ${terms.dailyAt} (Africa/Lagos)` : terms.schedule;
  return `Settlement of ${id}: account ${account}; ${schedule}; reserve ${formatNaira(terms.reserve)}\n`;
};

const describeSettlement = (s: Settlement) =>
  `${s.id}  ${s.createdAt}  ${formatNaira(s.amount)} (fee ${formatNaira(s.fee)})  ${s.status}  ${s.trigger}  ` +
  `${s.transactionCount} transaction${s.transactionCount === 1 ? "" : "s"}  to ${s.accountName} ${s.accountNumber}\n`;

export const SETTLEMENT_COMMANDS: readonly Command[] = [
  {
    name: "business set-settlement-account",
    synopsis: "<businessId> --bank-code <code> --account-number <10 digits> [--json]",
    description: [
      "Set the bank account the business's settlements go to, named by the bank's name enquiry.",
      "The change is audited and sent to the business's webhooks (settlement_account.updated); no",
      "settlement goes to the new account for SETTLEMENT_COOL_OFF_HOURS (24 by default).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        "bank-code": { type: "string" },
        "account-number": { type: "string" },
        json: { type: "boolean" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      if (values["bank-code"] === undefined || values["account-number"] === undefined) {
        throw new UsageError("--bank-code and --account-number are required");
      }
      const { settlementTerms } = await services();
      const terms = await settlementTerms.setAccount(business, CLI, {
        bankCode: values["bank-code"],
        accountNumber: values["account-number"],
      });
      if (values.json) return json(io, { businessId: business, ...terms });
      io.stdout(describeTerms(business, terms));
    },
  },
  {
    name: "business set-settlement-schedule",
    synopsis: "<businessId> --schedule manual|daily|instant [--at HH:MM] [--reserve <kobo>] [--json]",
    description: [
      "Set when the business is settled: manual (the default: by `vas settlement run` or its owner),",
      "daily at --at in Africa/Lagos, or instant (each credit settled as it arrives); --reserve keeps",
      "that many kobo in the available balance.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        schedule: { type: "string" },
        at: { type: "string" },
        reserve: { type: "string" },
        json: { type: "boolean" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      if (values.schedule === undefined) throw new UsageError("--schedule is required");
      if (values.reserve !== undefined && !/^\d{1,16}$/.test(values.reserve)) {
        throw new UsageError("--reserve must be a whole number of kobo");
      }
      const { settlementTerms } = await services();
      const terms = await settlementTerms.setSchedule(business, CLI, {
        schedule: values.schedule,
        dailyAt: values.at,
        reserve: values.reserve === undefined ? undefined : Number(values.reserve),
      });
      if (values.json) return json(io, { businessId: business, ...terms });
      io.stdout(describeTerms(business, terms));
    },
  },
  {
    name: "settlement run",
    synopsis: "--business <businessId> [--json]",
    description: [
      "Settle the business now: its available balance, less its reserve and the payout's fee, to",
      "its settlement account. Refused without an account, during the account's cool-off, or when",
      "there is nothing to settle. Prints the settlement (pending until the bank finishes).",
    ],
    run: async (args, { io, services }) => {
      const { values } = parse(args, { business: { type: "string" }, json: { type: "boolean" } });
      if (values.business === undefined) throw new UsageError("--business is required");
      const business = businessId(values.business);
      const { settlements, businesses } = await services();
      const summary = await businesses.getBusiness(business);
      const settlement = await settlements.settle({ businessId: business, businessName: summary.name });
      if (values.json) return json(io, settlement);
      io.stdout(describeSettlement(settlement));
    },
  },
  {
    name: "settlement list",
    synopsis: "--business <businessId> [--json]",
    description: ["The business's latest settlements (up to 100), newest first, with their status."],
    run: async (args, { io, services }) => {
      const { values } = parse(args, { business: { type: "string" }, json: { type: "boolean" } });
      if (values.business === undefined) throw new UsageError("--business is required");
      const business = businessId(values.business);
      const { settlements, settlementTerms, businesses } = await services();
      const summary = await businesses.getBusiness(business);
      const listed = await settlements.list(
        { businessId: business, businessName: summary.name },
        check(payoutQuery, { limit: "100" }),
      );
      if (values.json) return json(io, listed.items);
      io.stdout(describeTerms(business, await settlementTerms.terms(business)));
      if (listed.items.length === 0) io.stdout("No settlements yet.\n");
      for (const settlement of listed.items) io.stdout(describeSettlement(settlement));
    },
  },
];
