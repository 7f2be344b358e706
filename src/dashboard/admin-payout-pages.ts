import type { FastifyInstance } from "fastify";
import type { Actor } from "../core/actor.js";
import { check } from "../core/validation.js";
import { AppError, ErrorCode } from "../errors.js";
import { checkPayoutFeeTiers, type PayoutFeeTier, PayoutFeeTiersError } from "../ledger/payout-fees.js";
import { DEFAULT_PAYOUT_DAILY_LIMIT_KOBO, DEFAULT_PAYOUT_LIMIT_KOBO } from "../payouts/payout-settings.js";
import { payoutQuery } from "../payouts/validation.js";
import { NIP_CODES } from "../providers/nip.js";
import { type DashboardDependencies, type Form, page } from "./kit.js";
import { filtersOf, koboToNairaText, nairaToKobo, PAGE_SIZE } from "./money-pages.js";
import { refusal } from "./sign-in.js";

/** The NIP codes a payout's bank answered with, each with what it means (providers/nip.ts's table). */
const nipCodesSeen = (codes: string | null) =>
  (codes === null ? [] : codes.split(",")).map((code) => ({
    code,
    meaning: NIP_CODES[code]?.meaning ?? "not in the service's table: read as unknown",
  }));

/**
 * The console's money out: every business's payouts, by status, by business, and the stuck ones
 * (pending past PAYOUT_STUCK_MINUTES, still asked about by the tracker until the bank answers).
 */
export function adminPayoutPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const stuckMinutes = Math.round(deps.payoutListing.stuckAfterMs / 60_000);

  pages.get("/payouts", async (request, reply) => {
    const filters = filtersOf(request.query);
    const { stuck, attention, businessId, ...rest } = filters;
    const onlyStuck = stuck === "1";
    const onlyAttention = attention === "1";
    const businesses = new Map((await deps.businesses.listBusinesses()).map((b) => [b.businessId, b.name]));
    const title = onlyAttention ? "Payouts needing attention" : onlyStuck ? "Stuck payouts" : "Payouts";
    const view = {
      title,
      filters,
      businesses,
      stuckMinutes,
      attentionQueries: deps.payoutListing.attentionAfterQueries,
    };
    const [stuckCount, attentionCount] = await Promise.all([
      deps.payoutListing.stuckCount(),
      deps.payoutListing.attentionCount(),
    ]);
    try {
      const query = check(payoutQuery, { ...rest, limit: `${PAGE_SIZE}` });
      const listed = await deps.payoutListing.acrossBusinesses(query, {
        ...(businessId ? { businessId } : {}),
        stuck: onlyStuck,
        attention: onlyAttention,
      });
      return page(reply, "admin-payouts", { ...view, ...listed, stuckCount, attentionCount });
    } catch (error) {
      return refusal(reply, error, "admin-payouts", {
        ...view,
        items: [],
        pagination: undefined,
        stuckCount,
        attentionCount,
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
      nipCodes: nipCodesSeen(payout.nipCodes),
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

const FEE_LINE =
  /^(?:up to\s+(?:NGN\s*)?([\d,]+(?:\.\d{1,2})?)|(above|over)(?:\s+that)?)\s*:\s*(?:NGN\s*)?([\d,]+(?:\.\d{1,2})?)$/i;

/**
 * The fee form's text (issue 43, item 7): `default`, or one tier a line, in naira, as an
 * operator says it ("up to 5,000: 10", then "above: 50" for every larger payout); a bad line is a
 * 400 beside the field, saying which line and what to write. The CLI keeps its kobo syntax.
 */
export function feeTiersOf(text: string): PayoutFeeTier[] | null {
  const lines = text
    .split(/[\n;]+/)
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length === 0 || (lines.length === 1 && lines[0]?.toLowerCase() === "default")) return null;
  const refuse = (why: string): never => {
    const message = `Fee tiers: ${why}`;
    throw new AppError(ErrorCode.VALIDATION_FAILED, 400, message, { fields: { feeTiers: message } });
  };
  const tiers = lines.map((line, i) => {
    const said = FEE_LINE.exec(line);
    if (!said) {
      return refuse(
        `line ${i + 1}, "${line.slice(0, 40)}", is not a tier: write "up to 5,000: 10" (naira), or "above: 50" for every larger payout`,
      );
    }
    const [, upTo, above, fee = ""] = said;
    const naira = (amount: string) => {
      try {
        return nairaToKobo(amount);
      } catch {
        return refuse(`line ${i + 1}'s amounts must be naira, like 5,000 or 10.50`);
      }
    };
    return { upTo: above ? null : naira(upTo ?? ""), fee: naira(fee) };
  });
  try {
    checkPayoutFeeTiers(tiers);
  } catch (error) {
    if (!(error instanceof PayoutFeeTiersError)) throw error;
    const last = tiers[tiers.length - 1];
    refuse(
      last?.upTo !== null
        ? 'the last line must be "above: ..." (the fee for every larger payout)'
        : tiers.slice(0, -1).some((tier) => tier.upTo === null)
          ? 'only the last line may be "above: ..."'
          : 'each "up to" must be more than the one before it',
    );
  }
  return tiers;
}

/** Tiers as the fee form writes them: one a line, in naira. */
export function feeTiersText(tiers: readonly PayoutFeeTier[]): string {
  return tiers
    .map(
      (tier) =>
        `${tier.upTo === null ? "above" : `up to ${koboToNairaText(tier.upTo)}`}: ${koboToNairaText(tier.fee)}`,
    )
    .join("\n");
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
      feeTiers: fees.isDefault ? "default" : feeTiersText(fees.tiers),
    },
  };
}
