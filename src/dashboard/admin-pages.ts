import type { FastifyInstance } from "fastify";
import { validationFailed } from "../errors.js";
import { VERIFICATION_STATUSES, type VerificationStatus } from "../storage/schema.js";
import { adminPayoutPages, payoutTermsView, savePayoutTerms } from "./admin-payout-pages.js";
import { adminReconciliationPages } from "./admin-reconciliation-pages.js";
import { type DashboardDependencies, type Form, notFoundPage, page } from "./kit.js";
import { recoveryPages } from "./recovery-pages.js";
import { securityPages } from "./security-pages.js";
import { guard, refusal, type Surface, signedIn, signInRoutes } from "./sign-in.js";

export const ADMIN_SURFACE: Surface = {
  role: "operator",
  base: "/admin",
  home: "/admin/businesses?status=in_progress",
  name: "operator console",
};

/** An operator's action on a business: the status it moves to, and whether it needs a reason. */
const ACTIONS = {
  approve: { to: "completed", reason: false },
  reject: { to: "rejected", reason: true },
  suspend: { to: "rejected", reason: true },
} as const satisfies Record<string, { to: VerificationStatus; reason: boolean }>;

/** The operator console: businesses by status (in_progress is the queue), each one's detail and actions. */
export function adminPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  notFoundPage(pages);
  signInRoutes(pages, deps, ADMIN_SURFACE);
  recoveryPages(pages, deps, ADMIN_SURFACE);
  securityPages(pages, deps, ADMIN_SURFACE);
  adminPayoutPages(pages, deps, ADMIN_SURFACE);
  adminReconciliationPages(pages, deps, ADMIN_SURFACE);
  const operatorsOnly = { preHandler: guard(ADMIN_SURFACE) };

  pages.get("/", async (request, reply) =>
    reply.redirect(request.session?.role === "operator" ? ADMIN_SURFACE.home : "/admin/login", 303),
  );

  pages.get("/businesses", operatorsOnly, async (request, reply) => {
    const query = request.query as { status?: string };
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
    return page(reply, "admin-businesses", { title, businesses, status, counts, total: all.length });
  });

  pages.get("/businesses/:id", operatorsOnly, async (request, reply) => {
    const { id } = request.params as { id: string };
    return page(reply, "admin-business", await detail(id));
  });

  pages.post("/businesses/:id/payout-terms", operatorsOnly, async (request, reply) => {
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

  // A user who lost their phone and their recovery codes: checked out of band, then reset.
  pages.post("/businesses/:id/users/:userId/reset-two-factor", operatorsOnly, async (request, reply) => {
    const { id, userId } = request.params as { id: string; userId: string };
    const form = request.body as Form;
    try {
      if (form.confirm !== "yes") {
        throw validationFailed(
          "Tick the box to confirm you checked who is asking: resetting two-factor lets the password alone sign in",
        );
      }
      if (!(await deps.users.businessUsers(id)).some((user) => user.id === userId)) {
        return reply.callNotFound();
      }
      await deps.secondFactor.resetByOperator(userId, signedIn(request).actor);
    } catch (error) {
      return refusal(reply, error, "admin-business", { ...(await detail(id)), usersError: true });
    }
    return reply.redirect(`/admin/businesses/${encodeURIComponent(id)}?reset=1#users-heading`, 303);
  });

  pages.post("/businesses/:id/:action", operatorsOnly, async (request, reply) => {
    const { id, action } = request.params as { id: string; action: string };
    const form = request.body as Form;
    const chosen = ACTIONS[action as keyof typeof ACTIONS];
    try {
      if (!chosen) return reply.callNotFound();
      await deps.businesses.setVerificationStatus(id, chosen.to, signedIn(request).actor, form.reason);
    } catch (error) {
      return refusal(reply, error, "admin-business", { ...(await detail(id)), reason: form.reason ?? "" });
    }
    return reply.redirect(`/admin/businesses/${encodeURIComponent(id)}`, 303);
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
    return {
      title: business.name,
      business,
      profile,
      history: [...history].reverse(),
      keys: { total: keys.length, active: activeKeys },
      balance,
      accounts: recent.items,
      users,
      ...payoutTerms,
    };
  }
}
