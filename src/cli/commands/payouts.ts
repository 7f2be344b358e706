import {
  formatPayoutFeeTiers,
  type PayoutFeeTier,
  PayoutFeeTiersError,
  parsePayoutFeeTiers,
} from "../../ledger/payout-fees.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";

// Money out from the CLI: the operator's payout settings of a business.

/** A schedule as people read it: "up to 500000 kobo: 1000 kobo; ...; above: 5000 kobo". */
const describe = (tiers: readonly PayoutFeeTier[]) =>
  tiers.map(({ upTo, fee }) => `${upTo === null ? "above" : `up to ${upTo} kobo`}: ${fee} kobo`).join("; ");

export const PAYOUT_COMMANDS: readonly Command[] = [
  {
    name: "business set-payout-fee",
    synopsis: '<businessId> --tiers "<upTo>:<fee>,...,*:<fee>" | --tiers default [--json]',
    description: [
      "Set the flat fee on each future payout of the business, by the payout's size, in kobo:",
      '"500000:1000,5000000:2500,*:5000" charges 1000 kobo (NGN 10) up to NGN 5,000, 2500 up to',
      "NGN 50,000 and 5000 above (the default: --tiers default puts it back). Limits rise, the last",
      "tier is * (every larger payout). Without --tiers, prints the business's schedule.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        tiers: { type: "string" },
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
      if (tiers !== undefined) await payoutSettings.setFeeTiers(business, tiers);
      const now = await payoutSettings.feeTiers(business);
      if (values.json) return json(io, { businessId: business, tiers: now.tiers, isDefault: now.isDefault });
      io.stdout(
        `Payout fee for ${business}${now.isDefault ? " (the default)" : ""}: ${describe(now.tiers)}\n` +
          `As --tiers: ${formatPayoutFeeTiers(now.tiers)}\n`,
      );
    },
  },
];
