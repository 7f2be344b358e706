import type { Payout } from "../../core/api-types.js";
import { check } from "../../core/validation.js";
import { isAppError } from "../../errors.js";
import { formatNaira } from "../../ledger/kobo.js";
import {
  formatPayoutFeeTiers,
  type PayoutFeeTier,
  PayoutFeeTiersError,
  parsePayoutFeeTiers,
} from "../../ledger/payout-fees.js";
import type { PayoutTerms } from "../../payouts/payout-settings.js";
import { type PayoutQuery, payoutQuery } from "../../payouts/validation.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";

// Money out from the CLI: the operator's payout settings of a business, and its payouts.

/** A schedule as people read it: "up to 500000 kobo: 1000 kobo; ...; above: 5000 kobo". */
const describe = (tiers: readonly PayoutFeeTier[]) =>
  tiers.map(({ upTo, fee }) => `${upTo === null ? "above" : `up to ${upTo} kobo`}: ${fee} kobo`).join("; ");

/** A limit given as kobo, or `default`. */
function limit(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "default") return null;
  if (!/^\d{1,16}$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a whole number of kobo, 1 or more, or default`);
  }
  return Number(value);
}

const describeTerms = (id: string, terms: PayoutTerms) =>
  `Payouts of ${id}: through the API ${terms.apiPayouts ? "on" : "off"}; ` +
  `at most ${formatNaira(terms.perPayoutLimit)} a payout${terms.defaults.perPayoutLimit ? " (default)" : ""}, ` +
  `${formatNaira(terms.dailyLimit)} a day${terms.defaults.dailyLimit ? " (default)" : ""}\n`;

/** A payout as a table row: naira amounts, the charges summed, where it went. */
const payoutRow = (p: Payout) => ({
  id: p.id,
  createdAt: p.createdAt,
  amount: formatNaira(p.amount),
  fee: formatNaira(p.fee),
  charges: formatNaira(p.charges.reduce((sum, charge) => sum + charge.amount, 0)),
  status: p.status,
  to: `${p.accountName}, ${p.bankName} ${p.accountNumber}`,
  sessionId: p.sessionId ?? "",
  refundOf: p.refundOf ?? "",
});

/** The API's parameter names in a refusal of the query, as the command's options. */
const OPTION_OF: Readonly<Record<string, string>> = {
  sessionId: "--session-id",
  status: "--status",
  limit: "--limit",
  page: "--page",
};

export const PAYOUT_COMMANDS: readonly Command[] = [
  {
    name: "payouts list",
    synopsis:
      "--business <businessId> [--session-id <30 digits>] [--status pending|successful|failed|reversed] [--limit <n>] [--page <n>] [--json]",
    description: [
      "The business's payouts, refunds and settlements, newest first, as GET /payouts lists them",
      "(its filters; --limit 1 to 100, default 10): amount, fee, charges, status, destination, the",
      "NIP session id a bank traces it by, and the payment a refund returns. --json prints the",
      "API's payouts and pagination.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        business: { type: "string" },
        "session-id": { type: "string" },
        status: { type: "string" },
        limit: { type: "string" },
        page: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      if (values.business === undefined) throw new UsageError("--business is required");
      const business = businessId(values.business);
      const raw: Record<string, string> = {};
      for (const [name, value] of [
        ["sessionId", values["session-id"]],
        ["status", values.status],
        ["limit", values.limit],
        ["page", values.page],
      ] as const)
        if (value !== undefined) raw[name] = value;
      let query: PayoutQuery;
      try {
        query = check(payoutQuery, raw);
      } catch (error) {
        if (!isAppError(error)) throw error;
        const field = error.message.split(" ")[0] ?? "";
        throw new UsageError(`${OPTION_OF[field] ?? field}${error.message.slice(field.length)}`);
      }
      const { payoutListing, businesses } = await services();
      const summary = await businesses.getBusiness(business);
      const listed = await payoutListing.list({ businessId: business, businessName: summary.name }, query);
      if (values.json) return json(io, { data: listed.items, pagination: listed.pagination });
      io.stdout(
        formatTable(listed.items.map(payoutRow), [
          "id",
          "createdAt",
          "amount",
          "fee",
          "charges",
          "status",
          "to",
          "sessionId",
          "refundOf",
        ]),
      );
      const { page, pages, total } = listed.pagination;
      if (total > 0)
        io.stdout(`Page ${page} of ${pages}, ${total} payout${total === 1 ? "" : "s"} in all.\n`);
    },
  },
  {
    name: "business set-payouts",
    synopsis: "<businessId> [--api on|off] [--json]",
    description: [
      "Turn payouts through the API on or off for the business (off until its owner or an operator",
      "turns them on: POST /payouts is 403 PAYOUTS_DISABLED meanwhile). Applies to the next payout",
      "on every process. Without --api, prints where the business stands.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        api: { type: "string" },
        json: { type: "boolean" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      if (values.api !== undefined && values.api !== "on" && values.api !== "off") {
        throw new UsageError("--api must be on or off");
      }
      const { payoutSettings } = await services();
      if (values.api !== undefined) await payoutSettings.setApiPayouts(business, values.api === "on");
      const terms = await payoutSettings.terms(business);
      if (values.json) return json(io, { businessId: business, ...terms });
      io.stdout(describeTerms(business, terms));
    },
  },
  {
    name: "business set-payout-limits",
    synopsis: "<businessId> [--per-payout <kobo>|default] [--daily <kobo>|default] [--json]",
    description: [
      "Set the most one payout may be and the most the business's payouts may total in a day",
      "(Africa/Lagos), in kobo; past either, POST /payouts is 422 PAYOUT_LIMIT_EXCEEDED. Defaults:",
      "NGN 5,000,000 a payout, NGN 50,000,000 a day (default puts one back). Prints the result.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        "per-payout": { type: "string" },
        daily: { type: "string" },
        json: { type: "boolean" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const perPayoutLimit = limit("--per-payout", values["per-payout"]);
      const dailyLimit = limit("--daily", values.daily);
      const { payoutSettings } = await services();
      await payoutSettings.setLimits(business, {
        ...(perPayoutLimit !== undefined ? { perPayoutLimit } : {}),
        ...(dailyLimit !== undefined ? { dailyLimit } : {}),
      });
      const terms = await payoutSettings.terms(business);
      if (values.json) return json(io, { businessId: business, ...terms });
      io.stdout(describeTerms(business, terms));
    },
  },
  {
    name: "business set-payout-fee",
    synopsis: '<businessId> --tiers "<upTo>:<fee>,...,*:<fee>" | --tiers default [--above-cbn-caps] [--json]',
    description: [
      "Set the flat fee on each future payout of the business, by the payout's size, in kobo:",
      '"500000:1000,5000000:2500,*:5000" charges 1000 kobo (NGN 10) up to NGN 5,000, 2500 up to',
      "NGN 50,000 and 5000 above (the default: --tiers default puts it back). Limits rise, the last",
      "tier is * (every larger payout). Without --tiers, prints the business's schedule. Tiers above",
      "the CBN's caps on a transfer's fee (PAYOUT_FEE_CAPS) are refused without --above-cbn-caps.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        tiers: { type: "string" },
        "above-cbn-caps": { type: "boolean" },
        json: { type: "boolean" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      let tiers: PayoutFeeTier[] | null | undefined;
      if (values.tiers === "default") tiers = null;
      else if (values.tiers !== undefined) {
        try {
          tiers = parsePayoutFeeTiers(values.tiers);
        } catch (error) {
          if (error instanceof PayoutFeeTiersError) throw new UsageError(`--tiers: ${error.message}`);
          throw error;
        }
      }
      const { payoutSettings } = await services();
      if (tiers !== undefined)
        await payoutSettings.setFeeTiers(business, tiers, { aboveCaps: values["above-cbn-caps"] === true });
      const now = await payoutSettings.feeTiers(business);
      if (values.json) return json(io, { businessId: business, tiers: now.tiers, isDefault: now.isDefault });
      io.stdout(
        `Payout fee for ${business}${now.isDefault ? " (the default)" : ""}: ${describe(now.tiers)}\n` +
          `As --tiers: ${formatPayoutFeeTiers(now.tiers)}\n`,
      );
    },
  },
];
