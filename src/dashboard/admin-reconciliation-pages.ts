import type { FastifyInstance } from "fastify";
import { lagosDate } from "../core/lagos-time.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import { isReportDate } from "../reconciliation/report.js";
import { type DashboardDependencies, type Form, page } from "./kit.js";
import { refusal, type Surface, signedIn } from "./sign-in.js";

// The console's reconciliation (issue 27): every report, a day reconciled on demand, and each
// discrepancy with the ledger's transaction and the bank's record side by side; and the banner
// every console page carries while a recent day's report has a discrepancy.

export function adminReconciliationPages(
  pages: FastifyInstance,
  deps: DashboardDependencies,
  surface: Surface,
): void {
  // The banner: the newest report of each of the last 7 days that found a discrepancy.
  pages.addHook("preHandler", async (request, reply) => {
    const session = request.session;
    if (session?.role !== surface.role || !session.verified) return;
    reply.locals = { ...reply.locals, attention: await deps.reconciliation.needingAttention() };
  });

  const listView = async (form: Form = {}) => ({
    title: "Reconciliation",
    reports: await deps.reconciliation.reports({ limit: 60 }),
    form: { date: form.date ?? lagosDate(Date.now()) },
  });

  pages.get("/reconciliation", async (_request, reply) =>
    page(reply, "admin-reconciliation", await listView()),
  );

  pages.post("/reconciliation", async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    let reportId: string;
    try {
      const date = (form.date ?? "").trim();
      if (!isReportDate(date)) throw validationFailed("Date must be a day, like 2026-11-25");
      const report = await deps.reconciliation.reconcile(date, "manual");
      reportId = report.id;
      await deps.users.record(session.actor, null, "reconciliation.run", {
        reportId,
        date,
        discrepancies: report.discrepancies,
      });
    } catch (error) {
      return refusal(reply, error, "admin-reconciliation", await listView(form));
    }
    return reply.redirect(`/admin/reconciliation/${reportId}`, 303);
  });

  pages.get("/reconciliation/:id", async (request, reply) => {
    const { id } = request.params as { id: string };
    const report = /^rcn_[0-9a-f]{32}$/.test(id) ? await deps.reconciliation.report(id) : undefined;
    if (!report) throw new AppError(ErrorCode.NOT_FOUND, 404, "There is no such report");
    const businesses = new Map((await deps.businesses.listBusinesses()).map((b) => [b.businessId, b.name]));
    return page(reply, "admin-reconciliation-report", {
      title: `Reconciliation of ${report.date}`,
      report,
      businesses,
    });
  });
}
