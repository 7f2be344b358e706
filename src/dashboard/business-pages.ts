import type { FastifyInstance } from "fastify";
import type { Session } from "../businesses/sessions.js";
import { TIME_ZONES } from "../core/zoned-time.js";
import { enforceAccess } from "./access.js";
import { accountPages } from "./account-pages.js";
import { historyWithWho } from "./activity.js";
import { BUSINESS_SURFACE, ownBusiness } from "./business-scope.js";
import { chargePages } from "./charge-pages.js";
import { collectionsChart } from "./collections-chart.js";
import { heldPages } from "./held-pages.js";
import { keyPages } from "./key-pages.js";
import { type DashboardDependencies, doneRedirect, type Form, notFoundPage, page } from "./kit.js";
import { moneyPages } from "./money-pages.js";
import { payoutExport } from "./payout-export.js";
import { payoutPages } from "./payout-pages.js";
import { recoveryPages } from "./recovery-pages.js";
import { securityPages } from "./security-pages.js";
import { settlementPages } from "./settlement-pages.js";
import { refusal, signedIn, signInRoutes } from "./sign-in.js";
import { signUpPages } from "./signup-pages.js";
import { teamPages } from "./team-pages.js";
import { transactionDetailPages } from "./transaction-detail-pages.js";
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
  payoutExport(pages, deps);
  transactionPages(pages, deps);
  transactionDetailPages(pages, deps);
  heldPages(pages, deps);
  settlementPages(pages, deps);
  chargePages(pages, deps);
  webhookPages(pages, deps);

  pages.get("/", async (request, reply) =>
    reply.redirect(request.session?.role === "business" ? BUSINESS_SURFACE.home : "/dashboard/login", 303),
  );

  pages.get("/home", async (request, reply) => {
    return page(reply, "home", await overview(signedIn(request)));
  });

  // The zone the business's pages show times in (its owner or an admin sets it; audited).
  pages.post("/time-zone", async (request, reply) => {
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    const timeZone = (request.body as Form).timeZone ?? "";
    try {
      await deps.profiles.setTimeZone(businessId, session.actor, timeZone);
    } catch (error) {
      return refusal(reply, error, "home", await overview(session));
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

  /**
   * The overview: the verification, the balance, collections per day for 30 days (in the
   * business's time zone) and, until each is done, the getting-started checklist.
   */
  async function overview(session: Session) {
    const business = await deps.businesses.getBusiness(ownBusiness(session.businessId));
    const forBusiness = { businessId: business.businessId, businessName: business.name };
    const [balance, days, keys, endpoints] = await Promise.all([
      deps.collections.balance(forBusiness),
      deps.collectionReads.perDay(forBusiness, session.timeZone),
      deps.businesses.listKeys(business.businessId),
      deps.webhooks.list(forBusiness),
    ]);
    const checklist = [
      {
        done: business.verificationStatus === "completed",
        text: "Get verified",
        href: "/dashboard/verification",
      },
      {
        done: keys.some((key) => key.status === "active"),
        text: "Create an API key",
        href: "/dashboard/keys",
      },
      { done: business.accounts > 0, text: "Issue a first account", href: "/dashboard/accounts/new" },
      { done: endpoints.length > 0, text: "Add a webhook endpoint", href: "/dashboard/webhooks" },
      { done: balance.totalReceived > 0, text: "Receive a first payment", href: "/dashboard/accounts" },
    ];
    return {
      title: business.name,
      business,
      balance,
      days,
      chart: collectionsChart(days),
      checklist: checklist.every((step) => step.done) ? undefined : checklist,
      zones: TIME_ZONES,
    };
  }

  async function verificationData(businessId: string) {
    const business = await deps.businesses.getBusiness(businessId);
    const [profile, history] = await Promise.all([
      deps.profiles.find(businessId),
      deps.businesses.verificationHistory(businessId),
    ]);
    const canSubmit =
      business.verificationStatus === "not_submitted" || business.verificationStatus === "rejected";
    const named = await historyWithWho([...history].reverse(), (ids) => deps.users.emailsOf(ids), false);
    return { title: "Verification", business, profile, history: named, canSubmit };
  }
}
