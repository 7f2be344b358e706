import { formatNaira } from "../../ledger/kobo.js";
import {
  formatPayoutFeeTiers,
  type PayoutFeeTier,
  PayoutFeeTiersError,
  parsePayoutFeeTiers,
} from "../../ledger/payout-fees.js";
import type { PayoutTerms } from "../../payouts/payout-settings.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";

// Money out from the CLI: the operator's payout settings of a business.

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

export const PAYOUT_COMMANDS: readonly Command[] = [
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
