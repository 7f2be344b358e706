import type { FastifyInstance } from "fastify";
import { lagosDate } from "../core/lagos-time.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, page } from "./kit.js";
import { signedIn } from "./sign-in.js";

// A business's monthly statement of its charges (issue 46, item 4): the VAT on its fees and the
// stamp duty, on its payments and on its payouts, as the operator remits them for it.

/**
 * The month a statement or a report is asked for (`YYYY-MM`): this month in Africa/Lagos when none
 * is; a malformed one is said (the page answers 400 with this month), never guessed at.
 */
export function monthAsked(asked: unknown, now: number): { month: string; monthError?: string } {
  const current = lagosDate(now).slice(0, 7);
  if (asked === undefined || asked === "") return { month: current };
  if (typeof asked === "string" && /^\d{4}-(0[1-9]|1[0-2])$/.test(asked)) return { month: asked };
  return {
    month: current,
    monthError: "A month is written as year and month, like 2026-11: this month is shown instead.",
  };
}

export function chargePages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/charges", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { month, monthError } = monthAsked((request.query as { month?: unknown }).month, Date.now());
    const statement = await deps.charges.statement(forBusiness.businessId, month);
    return page(reply, "charges", { title: "Charges", month, monthError, statement }, monthError ? 400 : 200);
  });
}
