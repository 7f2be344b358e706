import type { FastifyInstance } from "fastify";
import type { Actor } from "../core/actor.js";
import { check } from "../core/validation.js";
import { validationFailed } from "../errors.js";
import { formatPayoutFeeTiers, PayoutFeeTiersError, parsePayoutFeeTiers } from "../ledger/payout-fees.js";
import { DEFAULT_PAYOUT_DAILY_LIMIT_KOBO, DEFAULT_PAYOUT_LIMIT_KOBO } from "../payouts/payout-settings.js";
import { payoutQuery } from "../payouts/validation.js";
import { type DashboardDependencies, type Form, page } from "./kit.js";
import { filtersOf, koboToNairaText, nairaToKobo, PAGE_SIZE } from "./money-pages.js";
import { refusal } from "./sign-in.js";

/**
 * The console's money out: every business's payouts, by status, by business, and the stuck ones
 * (pending past PAYOUT_STUCK_MINUTES, still asked about by the tracker until the bank answers).
 */
export function adminPayoutPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const stuckMinutes = Math.round(deps.payoutListing.stuckAfterMs / 60_000);

  pages.get("/payouts", async (request, reply) => {
    const filters = filtersOf(request.query);
    const { stuck, businessId, ...rest } = filters;
    const onlyStuck = stuck === "1";
    const businesses = new Map((await deps.businesses.listBusinesses()).map((b) => [b.businessId, b.name]));
    const view = { title: onlyStuck ? "Stuck payouts" : "Payouts", filters, businesses, stuckMinutes };
    const stuckCount = await deps.payoutListing.stuckCount();
    try {
      const query = check(payoutQuery, { ...rest, limit: `${PAGE_SIZE}` });
      const listed = await deps.payoutListing.acrossBusinesses(query, {
        ...(businessId ? { businessId } : {}),
        stuck: onlyStuck,
      });
      return page(reply, "admin-payouts", { ...view, ...listed, stuckCount });
    } catch (error) {
      return refusal(reply, error, "admin-payouts", {
        ...view,
        items: [],
        pagination: undefined,
        stuckCount,
      });
    }
  });

  pages.get("/payouts/:id", async (request, reply) => {
    const { id } = request.params as { id: string };
    const payout = await deps.payoutListing.find(id);
    const business = await deps.businesses.getBusiness(payout.businessId);
    return page(reply, "payout", {
      title: `Payout to ${payout.accountName}`,
      payout,
      business,
      stuck: deps.payoutListing.isStuck(payout),
      stuckMinutes,
      back: "/admin/payouts",
    });
  });
}

/**
 * Sets a business's payout limits (naira; empty: the documented default) and its fee (as `vas
 * business set-payout-fee` reads it, or `default`) from the console's form, in the audit log.
 */
export async function savePayoutTerms(
  deps: DashboardDependencies,
  actor: Actor,
  businessId: string,
  form: Form,
): Promise<void> {
  const limit = (text: string | undefined) => (text?.trim() ? nairaToKobo(text) : null);
  const limits = { perPayoutLimit: limit(form.perPayoutLimit), dailyLimit: limit(form.dailyLimit) };
  const tiers = feeTiersOf(form.feeTiers ?? "");
  await deps.payoutSettings.setLimits(businessId, limits);
  await deps.payoutSettings.setFeeTiers(businessId, tiers);
  await deps.users.record(actor, businessId, "payout_terms.updated", { ...limits, feeTiers: tiers });
}

/** The fee form's text: `default`, or the tiers in kobo; a bad schedule is a 400 saying what to fix. */
function feeTiersOf(text: string) {
  if (text.trim() === "" || text.trim() === "default") return null;
  try {
    return parsePayoutFeeTiers(text);
  } catch (error) {
    if (error instanceof PayoutFeeTiersError) throw validationFailed(`Fee tiers: ${error.message}`);
    throw error;
  }
}

/** What the business page's payout form shows: the terms, the fee, and the form's starting text. */
export async function payoutTermsView(deps: DashboardDependencies, businessId: string) {
  const [terms, fees, settlement] = await Promise.all([
    deps.payoutSettings.terms(businessId),
    deps.payoutSettings.feeTiers(businessId),
    deps.settlementTerms.terms(businessId),
  ]);
  return {
    terms,
    feeTiers: fees.tiers,
    feeTiersDefault: fees.isDefault,
    settlement,
    settlementCoolingOff: deps.settlementTerms.isCoolingOff(settlement),
    limitDefaults: { perPayoutLimit: DEFAULT_PAYOUT_LIMIT_KOBO, dailyLimit: DEFAULT_PAYOUT_DAILY_LIMIT_KOBO },
    termsForm: {
      perPayoutLimit: terms.defaults.perPayoutLimit ? "" : koboToNairaText(terms.perPayoutLimit),
      dailyLimit: terms.defaults.dailyLimit ? "" : koboToNairaText(terms.dailyLimit),
      feeTiers: fees.isDefault ? "default" : formatPayoutFeeTiers(fees.tiers),
    },
  };
}
