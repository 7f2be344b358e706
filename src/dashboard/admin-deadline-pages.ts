import type { FastifyInstance } from "fastify";
import { validationFailed } from "../errors.js";
import { lateText } from "../reconciliation/deadlines.js";
import type { DashboardDependencies } from "./kit.js";
import { page } from "./kit.js";
import { PAGE_SIZE } from "./money-pages.js";
import { refusal } from "./sign-in.js";

// The console's deadlines (issue 46, item 3): the credits applied late after the bank's paid
// time, and the payouts whose money came back late or is not back, each with its times and how
// late, paged, under the thresholds (DEADLINE_CREDIT_MINUTES, DEADLINE_RETURN_HOURS).

/** What the page lists: late credits, or payouts' returns (all, back late, or not back yet). */
const SHOWN = {
  credits: { kind: "credit", state: "all" },
  returns: { kind: "return", state: "all" },
  "returned-late": { kind: "return", state: "ended" },
  "not-back": { kind: "return", state: "open" },
} as const;
type Shown = keyof typeof SHOWN;

const isShown = (value: string): value is Shown => Object.hasOwn(SHOWN, value);

/** Reads `?show=` and `?page=`: anything else is a 400 on the page, saying what to write. */
function queryOf(query: unknown): { show: Shown; page: number } {
  const { show = "credits", page = "1" } = (query ?? {}) as Record<string, unknown>;
  if (typeof show !== "string" || !isShown(show))
    throw validationFailed(`Show must be one of ${Object.keys(SHOWN).join(", ")}`);
  if (typeof page !== "string" || !/^[1-9]\d{0,5}$/.test(page))
    throw validationFailed("Page must be a whole number from 1");
  return { show, page: Number(page) };
}

export function adminDeadlinePages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/deadlines", async (request, reply) => {
    const watch = deps.deadlines;
    const [counts, businesses] = await Promise.all([
      watch.counts(),
      deps.businesses.listBusinesses().then((all) => new Map(all.map((b) => [b.businessId, b.name]))),
    ]);
    const view = {
      title: "Deadlines",
      creditMinutes: watch.creditLateMs / 60_000,
      returnHours: watch.returnLateMs / 3_600_000,
      counts,
      businesses,
      lateText,
    };
    try {
      const { show, page: at } = queryOf(request.query);
      const { kind, state } = SHOWN[show];
      const listed = await watch.list(kind, state, at, PAGE_SIZE);
      return page(reply, "admin-deadlines", { ...view, show, ...listed });
    } catch (error) {
      return refusal(reply, error, "admin-deadlines", {
        ...view,
        show: "credits",
        items: [],
        pagination: undefined,
      });
    }
  });
}
