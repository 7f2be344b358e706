import type { FastifyInstance } from "fastify";
import { lagosDate } from "../core/lagos-time.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, page } from "./kit.js";
import { signedIn } from "./sign-in.js";

// A business's monthly statement of its charges (issue 46, item 4): the VAT on its fees and the
// stamp duty, on its payments and on its payouts, as the operator remits them for it.

export function chargePages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/charges", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const asked = (request.query as { month?: unknown }).month;
    const month =
      typeof asked === "string" && /^\d{4}-(0[1-9]|1[0-2])$/.test(asked)
        ? asked
        : lagosDate(Date.now()).slice(0, 7);
    return page(reply, "charges", {
      title: "Charges",
      month,
      statement: await deps.charges.statement(forBusiness.businessId, month),
    });
  });
}
