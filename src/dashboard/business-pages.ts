import type { FastifyInstance } from "fastify";
import { TIME_ZONES } from "../core/zoned-time.js";
import { enforceAccess } from "./access.js";
import { accountPages } from "./account-pages.js";
import { BUSINESS_SURFACE, ownBusiness } from "./business-scope.js";
import { keyPages } from "./key-pages.js";
import { type DashboardDependencies, doneRedirect, type Form, notFoundPage, page } from "./kit.js";
import { moneyPages } from "./money-pages.js";
import { payoutPages } from "./payout-pages.js";
import { recoveryPages } from "./recovery-pages.js";
import { securityPages } from "./security-pages.js";
import { settlementPages } from "./settlement-pages.js";
import { refusal, signedIn, signInRoutes } from "./sign-in.js";
import { signUpPages } from "./signup-pages.js";
import { teamPages } from "./team-pages.js";
import { transactionPages } from "./transaction-pages.js";
import { webhookPages } from "./webhook-pages.js";

/** What a business's user sees: sign-up, sign-in, the overview and verification. */
export function businessPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  notFoundPage(pages);
  enforceAccess(pages);
  signInRoutes(pages, deps, BUSINESS_SURFACE);
  recoveryPages(pages, deps, BUSINESS_SURFACE);
  signUpPages(pages, deps);
  teamPages(pages, deps);
  keyPages(pages, deps);
  securityPages(pages, deps, BUSINESS_SURFACE);
  accountPages(pages, deps);
  moneyPages(pages, deps);
  payoutPages(pages, deps);
  transactionPages(pages, deps);
  settlementPages(pages, deps);
  webhookPages(pages, deps);

  pages.get("/", async (request, reply) =>
    reply.redirect(request.session?.role === "business" ? BUSINESS_SURFACE.home : "/dashboard/login", 303),
  );

  pages.get("/home", async (request, reply) => {
    const { businessId } = signedIn(request);
    const business = await deps.businesses.getBusiness(ownBusiness(businessId));
    const balance = await deps.collections.balance({
      businessId: business.businessId,
      businessName: business.name,
    });
    return page(reply, "home", { title: business.name, business, balance, zones: TIME_ZONES });
  });

  // The zone the business's pages show times in (its owner or an admin sets it; audited).
  pages.post("/time-zone", async (request, reply) => {
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    const timeZone = (request.body as Form).timeZone ?? "";
    try {
      await deps.profiles.setTimeZone(businessId, session.actor, timeZone);
    } catch (error) {
      const business = await deps.businesses.getBusiness(businessId);
      const balance = await deps.collections.balance({ businessId, businessName: business.name });
      return refusal(reply, error, "home", { title: business.name, business, balance, zones: TIME_ZONES });
    }
    return doneRedirect(reply, "/dashboard/home", "time-zone");
  });

  pages.get("/verification", async (request, reply) => {
    const data = await verificationData(ownBusiness(signedIn(request).businessId));
    const { profile } = data;
    return page(reply, "verification", { ...data, form: profile ?? {} });
  });

  pages.post("/verification", async (request, reply) => {
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    const form = request.body as Form;
    try {
      await deps.profiles.submit(businessId, session.actor, form);
    } catch (error) {
      return refusal(reply, error, "verification", { ...(await verificationData(businessId)), form });
    }
    return doneRedirect(reply, "/dashboard/verification", "submitted");
  });

  async function verificationData(businessId: string) {
    const business = await deps.businesses.getBusiness(businessId);
    const [profile, history] = await Promise.all([
      deps.profiles.find(businessId),
      deps.businesses.verificationHistory(businessId),
    ]);
    const canSubmit =
      business.verificationStatus === "not_submitted" || business.verificationStatus === "rejected";
    return { title: "Verification", business, profile, history: [...history].reverse(), canSubmit };
  }
}
