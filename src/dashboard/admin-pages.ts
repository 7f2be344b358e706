import type { FastifyInstance } from "fastify";
import { VERIFICATION_STATUSES, type VerificationStatus } from "../core/business-states.js";
import { checkForm } from "../core/form-fields.js";
import { validationFailed } from "../errors.js";
import { MAIL_QUEUED_WORDS } from "../mail/mailer.js";
import { historyWithWho } from "./activity.js";
import { adminBlockPages } from "./admin-block-pages.js";
import { adminChargePages } from "./admin-charge-pages.js";
import { adminDeadlinePages } from "./admin-deadline-pages.js";
import { adminOperatorPages } from "./admin-operator-pages.js";
import { adminPayoutPages, payoutTermsView, savePayoutTerms } from "./admin-payout-pages.js";
import { adminReconciliationPages } from "./admin-reconciliation-pages.js";
import { adminSearchPages } from "./admin-search-pages.js";
import { ADMIN_SURFACE, enforceConsoleAccess } from "./console-access.js";
import {
  type DashboardDependencies,
  doneNotice,
  doneRedirect,
  type Form,
  notFoundPage,
  page,
} from "./kit.js";
import { koboToNairaText, nairaToKobo } from "./money-pages.js";
import { recoveryPages } from "./recovery-pages.js";
import { securityPages } from "./security-pages.js";
import { refusal, signedIn, signInRoutes } from "./sign-in.js";

export { ADMIN_SURFACE };

/** An operator's action on a business: the status it moves to, and whether it needs a reason. */
const ACTIONS = {
  approve: { to: "completed", reason: false },
  reject: { to: "rejected", reason: true },
  suspend: { to: "rejected", reason: true },
} as const satisfies Record<string, { to: VerificationStatus; reason: boolean }>;

/** What a business's page says after an operator's action on it (`?done=`). */
const NOTICES: Record<string, string> = {
  approve: "The business is verified: its API keys work. Its people are mailed the decision.",
  reject:
    "The submitted details are rejected: the business is mailed your reason, and may correct them and submit again.",
  suspend:
    "The business is suspended: its API keys are refused and its money does not move. Its people are mailed your reason.",
  "two-factor-reset":
    "Two-factor sign-in is off for that user, their sessions have ended, and they were mailed.",
  "approve-queued": `The business is verified: its API keys work. The mail telling its people is ${MAIL_QUEUED_WORDS}.`,
  "reject-queued": `The submitted details are rejected. The mail giving the business your reason is ${MAIL_QUEUED_WORDS}.`,
  "suspend-queued": `The business is suspended: its API keys are refused and its money does not move. The mail giving its people your reason is ${MAIL_QUEUED_WORDS}.`,
  "two-factor-reset-queued": `Two-factor sign-in is off for that user and their sessions have ended. The mail telling them is ${MAIL_QUEUED_WORDS}.`,
};

/** The operator console: businesses by status (in_progress is the queue), each one's detail and actions. */
export function adminPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  notFoundPage(pages);
  // Every route below is held to CONSOLE_ACCESS: who may open or send it is that table's.
  enforceConsoleAccess(pages);
  signInRoutes(pages, deps, ADMIN_SURFACE);
  recoveryPages(pages, deps, ADMIN_SURFACE);
  securityPages(pages, deps, ADMIN_SURFACE);
  adminPayoutPages(pages, deps);
  adminReconciliationPages(pages, deps, ADMIN_SURFACE);
  adminChargePages(pages, deps);
  adminSearchPages(pages, deps);
  adminOperatorPages(pages, deps);
  adminDeadlinePages(pages, deps);
  adminBlockPages(pages, deps);

  pages.get("/", async (request, reply) =>
    reply.redirect(request.session?.role === "operator" ? ADMIN_SURFACE.home : "/admin/login", 303),
  );

  pages.get("/businesses", async (request, reply) => {
    const query = request.query as { status?: string; q?: string };
    const q = typeof query.q === "string" ? query.q.trim() : "";
    if (q !== "") {
      // A search: by name, an email, an RC number or an account number (see console-search.ts).
      const businesses = await deps.consoleSearch.businesses(q);
      return page(reply, "admin-businesses", { title: "Businesses", businesses, q, counts: undefined });
    }
    const status = VERIFICATION_STATUSES.find((s) => s === query.status);
    const all = await deps.businesses.listBusinesses();
    const counts = Object.fromEntries(VERIFICATION_STATUSES.map((s) => [s, 0])) as Record<
      VerificationStatus,
      number
    >;
    for (const business of all) counts[business.verificationStatus]++;
    // The queue shows the longest waiting first; every other list, the newest first.
    const businesses = all
      .filter((business) => status === undefined || business.verificationStatus === status)
      .sort((a, b) =>
        status === "in_progress"
          ? a.updatedAt.localeCompare(b.updatedAt)
          : b.createdAt.localeCompare(a.createdAt),
      );
    const title = status === "in_progress" ? "Verification queue" : "Businesses";
    return page(reply, "admin-businesses", { title, businesses, status, counts, total: all.length, q });
  });

  pages.get("/businesses/:id", async (request, reply) => {
    const { id } = request.params as { id: string };
    return page(reply, "admin-business", { ...(await detail(id)), done: doneNotice(request.query, NOTICES) });
  });

  pages.post("/businesses/:id/payout-terms", async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    try {
      await savePayoutTerms(deps, signedIn(request).actor, id, form);
    } catch (error) {
      return refusal(reply, error, "admin-business", {
        ...(await detail(id)),
        termsForm: form,
        termsError: true,
      });
    }
    return reply.redirect(`/admin/businesses/${encodeURIComponent(id)}#payout-terms`, 303);
  });

  // The fee on each payment the business receives (as `vas business set-fee`): a percent, and
  // a cap in naira (empty: none). It applies to payments recorded after it; audited.
  pages.post("/businesses/:id/collection-fee", async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    try {
      const { percent, cap } = checkForm(form, {
        percent: { label: "Fee (percent)", check: percentToBasisPoints },
        cap: { label: "Cap (NGN)", optional: true, check: nairaToKobo },
      });
      const schedule = { basisPoints: percent, capKobo: cap ?? null };
      await deps.collections.setFee(id, schedule);
      await deps.users.record(signedIn(request).actor, id, "business.fee_changed", { ...schedule });
    } catch (error) {
      return refusal(reply, error, "admin-business", {
        ...(await detail(id)),
        feeForm: form,
        feeError: true,
      });
    }
    return reply.redirect(`/admin/businesses/${encodeURIComponent(id)}?fee=1#fee-heading`, 303);
  });

  // A user who lost their phone and their recovery codes: checked out of band, then reset.
  pages.post("/businesses/:id/users/:userId/reset-two-factor", async (request, reply) => {
    const { id, userId } = request.params as { id: string; userId: string };
    const form = request.body as Form;
    let mailQueued = false;
    try {
      if (form.confirm !== "yes") {
        throw validationFailed(
          "Tick the box to confirm you checked who is asking: resetting two-factor lets the password alone sign in",
        );
      }
      if (!(await deps.users.businessUsers(id)).some((user) => user.id === userId)) {
        return reply.callNotFound();
      }
      const { queued } = await deps.mailing(() =>
        deps.secondFactor.resetByOperator(userId, signedIn(request).actor),
      );
      mailQueued = queued;
    } catch (error) {
      return refusal(reply, error, "admin-business", { ...(await detail(id)), usersError: true });
    }
    const done = mailQueued ? "two-factor-reset-queued" : "two-factor-reset";
    return doneRedirect(reply, `/admin/businesses/${encodeURIComponent(id)}`, done);
  });

  pages.post("/businesses/:id/:action", async (request, reply) => {
    const { id, action } = request.params as { id: string; action: string };
    const form = request.body as Form;
    const chosen = ACTIONS[action as keyof typeof ACTIONS];
    let mailQueued = false;
    try {
      if (!chosen) return reply.callNotFound();
      // Who may make the move is the domain's rule (verification.ts), by the transition, not
      // the button: any move out of `completed`, "reject" or "suspend", is an admin's.
      const { queued } = await deps.mailing(() =>
        deps.businesses.setVerificationStatus(id, chosen.to, signedIn(request).actor, form.reason),
      );
      mailQueued = queued;
    } catch (error) {
      return refusal(reply, error, "admin-business", { ...(await detail(id)), reason: form.reason ?? "" });
    }
    return doneRedirect(
      reply,
      `/admin/businesses/${encodeURIComponent(id)}`,
      mailQueued ? `${action}-queued` : action,
    );
  });

  async function detail(id: string) {
    const business = await deps.businesses.getBusiness(id);
    const forBusiness = { businessId: id, businessName: business.name };
    const [profile, history, keys, balance, recent, payoutTerms, users] = await Promise.all([
      deps.profiles.find(id),
      deps.businesses.verificationHistory(id),
      deps.businesses.listKeys(id),
      deps.collections.balance(forBusiness),
      deps.accounts.list(forBusiness, { page: 1, limit: 10 }),
      payoutTermsView(deps, id),
      deps.users.businessUsers(id),
    ]);
    const activeKeys = keys.filter((key) => key.status === "active").length;
    const { basisPoints, capKobo } = business.fee;
    return {
      title: business.name,
      business,
      feeForm: {
        percent: `${Math.trunc(basisPoints / 100)}.${String(basisPoints % 100).padStart(2, "0")}`,
        cap: capKobo === null ? "" : koboToNairaText(capKobo),
      },
      profile,
      history: await historyWithWho([...history].reverse(), (ids) => deps.users.emailsOf(ids), true),
      keys: { total: keys.length, active: activeKeys },
      balance,
      accounts: recent.items,
      users,
      ...payoutTerms,
    };
  }
}

/** "1.5" percent as basis points (150), by its digits: two decimals at most, from 0 to 100. */
export function percentToBasisPoints(text: string): number {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim().replace(/%$/, ""));
  const points = match ? Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")) : Number.NaN;
  if (!(points >= 0 && points <= 10_000)) {
    throw validationFailed(
      "Fee (percent) must be a percent from 0 to 100, like 1.5, with two decimals at most",
    );
  }
  return points;
}
