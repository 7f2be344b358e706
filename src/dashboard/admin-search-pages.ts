import type { FastifyInstance } from "fastify";
import type { ConsoleCursor } from "../businesses/console-search.js";
import { type DashboardDependencies, page } from "./kit.js";
import { PAGE_SIZE } from "./money-pages.js";

// The console across every business (issue 28, item 11): a customer's accounts, by a number
// they have or had or by their email, and payments, latest first, by session id or account.

const SESSION_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** `before=<valueAt>~<sessionId>` as a cursor, when it is one. */
function cursorOf(text: unknown): ConsoleCursor | undefined {
  if (typeof text !== "string") return undefined;
  const [valueAt, sessionId] = text.split("~");
  if (!valueAt || !sessionId || Number.isNaN(Date.parse(valueAt)) || !SESSION_ID.test(sessionId))
    return undefined;
  return { valueAt, sessionId };
}

export function adminSearchPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/accounts", async (request, reply) => {
    const q =
      typeof (request.query as { q?: unknown }).q === "string"
        ? (request.query as { q: string }).q.trim()
        : "";
    const items = q === "" ? [] : await deps.consoleSearch.accounts(q);
    return page(reply, "admin-accounts", { title: "Accounts", q, items });
  });

  pages.get("/transactions", async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === "string" ? (query[name] as string).trim() : "");
    const sessionId = text("sessionId");
    const accountNumber = text("accountNumber");
    const filters = {
      ...(SESSION_ID.test(sessionId) ? { sessionId } : {}),
      ...(/^\d{10}$/.test(accountNumber) ? { accountNumber } : {}),
    };
    const listed = await deps.consoleSearch.transactions(filters, cursorOf(query.before), PAGE_SIZE);
    const params = new URLSearchParams(filters);
    if (listed.next) params.set("before", `${listed.next.valueAt}~${listed.next.sessionId}`);
    return page(reply, "admin-transactions", {
      title: "Transactions",
      filters: { sessionId, accountNumber },
      items: listed.items,
      older: listed.next ? `/admin/transactions?${params}` : undefined,
      newest: query.before !== undefined ? `/admin/transactions?${new URLSearchParams(filters)}` : undefined,
      ignored:
        (sessionId !== "" && !filters.sessionId) || (accountNumber !== "" && !filters.accountNumber)
          ? "A session id is letters, digits and . _ : -; an account number is 10 digits: the filter that was neither is left out."
          : undefined,
    });
  });
}
