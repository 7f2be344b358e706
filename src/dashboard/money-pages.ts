import type { FastifyInstance } from "fastify";
import { sandboxTransferInputFor, transactionQuery } from "../collections/validation.js";
import type { ForBusiness } from "../core/actor.js";
import { asFieldRefusal, checkForm } from "../core/form-fields.js";
import { check, listQuery } from "../core/validation.js";
import { AppError, ErrorCode, isAppError, validationFailed } from "../errors.js";
import { formatNaira } from "../ledger/kobo.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { refusal, signedIn } from "./sign-in.js";

/** A bank account's fields as the API names them, and as the forms label them (a payout, the settlement account). */
export const ACCOUNT_FIELDS = {
  bankCode: { field: "bankCode", label: "Bank" },
  accountNumber: { field: "accountNumber", label: "Account number" },
} as const;

/**
 * An amount refused by an account's expected amount, said in naira beside the field ("This
 * account takes exactly NGN 500.00, not NGN 500.01") instead of the API's kobo; anything else
 * as it is.
 */
export function inNaira(error: unknown): unknown {
  if (!isAppError(error) || error.code !== ErrorCode.AMOUNT_MISMATCH) return error;
  const said = /accepts (.+?) (\d+) kobo \(.*\), not (\d+)$/.exec(error.message);
  if (!said) return error;
  const message = `This account takes ${said[1]} ${formatNaira(Number(said[2]))}, not ${formatNaira(Number(said[3]))}`;
  return new AppError(error.code, error.statusCode, message, { fields: { amount: message } });
}

/** Rows on a page of the dashboard's lists. */
export const PAGE_SIZE = 20;

/**
 * What a business has issued and received: its accounts (paged, or found by number or email),
 * an account with its payments, and its transactions with filters. Read-only, through the same
 * domain calls as the API's GET routes, scoped to the session's business.
 */
export function moneyPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const ownedBy = (businessId: string | null) => actingFor(deps.businesses, businessId);

  pages.get("/accounts", async (request, reply) => {
    const forBusiness = await ownedBy(signedIn(request).businessId);
    const query = request.query as { q?: string; page?: string };
    const search = typeof query.q === "string" ? query.q.trim() : "";
    const view = { title: "Accounts", search };
    try {
      if (search !== "") {
        const items = await deps.accounts.search(forBusiness, search);
        return page(reply, "accounts", { ...view, items, pagination: undefined });
      }
      const listed = await deps.accounts.list(
        forBusiness,
        check(listQuery, { page: query.page ?? "1", limit: `${PAGE_SIZE}` }),
      );
      return page(reply, "accounts", { ...view, ...listed });
    } catch (error) {
      return refusal(reply, error, "accounts", { ...view, items: [], pagination: undefined });
    }
  });

  pages.get("/accounts/:number", async (request, reply) => {
    const forBusiness = await ownedBy(signedIn(request).businessId);
    const { number } = request.params as { number: string };
    const query = request.query as { page?: string; replaced?: string };
    try {
      const data = await accountData(deps, forBusiness, number, query.page ?? "1");
      // Reached from a number a re-issue retired: the page says so (only a number it had).
      const replaced = data.numbers.some((n) => n.retiredAt !== null && n.accountNumber === query.replaced)
        ? query.replaced
        : undefined;
      return page(reply, "account", { ...data, replaced, done: doneNotice(request.query, ACCOUNT_NOTICES) });
    } catch (error) {
      // A retired number's page is its account's page now.
      if (isAppError(error) && error.code === ErrorCode.ACCOUNT_RETIRED) {
        const [found] = await deps.accounts.search(forBusiness, number);
        if (found)
          return reply.redirect(`/dashboard/accounts/${found.accountNumber}?replaced=${number}`, 303);
      }
      throw error;
    }
  });

  pages.post("/accounts/:number/sandbox-transfer", async (request, reply) => {
    const forBusiness = await ownedBy(signedIn(request).businessId);
    const { number } = request.params as { number: string };
    const form = request.body as Form;
    try {
      const { amount } = checkForm(form, { amount: { label: "Amount", check: nairaToKobo } });
      // Paid from one of the sandbox's named accounts, the payment can be refunded to it.
      const payer = deps.banks
        .sandboxPayoutAccounts()
        .find((payee) => `${payee.bankCode}:${payee.accountNumber}` === form.payerAccount);
      const payerName = form.payerName || payer?.accountName;
      await deps.collections.sandboxTransfer(
        forBusiness,
        check(sandboxTransferInputFor(deps.maxTransferKobo), {
          accountNumber: number,
          amount,
          ...(payerName ? { payerName } : {}),
          ...(payer
            ? {
                payerAccountNumber: payer.accountNumber,
                payerBankName: payer.bankName,
                payerBankCode: payer.bankCode,
              }
            : {}),
          ...(form.narration ? { narration: form.narration } : {}),
        }),
      );
    } catch (error) {
      // The API's words for a field ("amount must be ...") in the form's ("Amount must be ..."),
      // and an amount the account does not take in naira, beside the amount.
      const worded = asFieldRefusal(inNaira(error), {
        amount: { field: "amount", label: "Amount" },
        payerName: { field: "payerName", label: "Payer's name" },
        narration: { field: "narration", label: "Narration" },
      });
      return refusal(reply, worded, "account", {
        ...(await accountData(deps, forBusiness, number, "1")),
        form,
      });
    }
    return doneRedirect(reply, `/dashboard/accounts/${encodeURIComponent(number)}`, "transferred");
  });
}

/**
 * An account's page: its detail, the numbers it has had, a page of its payments, and (in the
 * sandbox) the accounts a simulated transfer can come from.
 */
export async function accountData(
  deps: DashboardDependencies,
  forBusiness: ForBusiness,
  number: string,
  pageNumber: string,
) {
  // The detail first: a retired number is refused by it as such (ACCOUNT_RETIRED).
  const account = await deps.lifecycle.get(forBusiness, number);
  const numbers = await deps.lifecycle.numbers(forBusiness, number);
  const payments = await deps.collections.listTransactions(
    forBusiness,
    check(transactionQuery, {
      accountNumber: account.accountNumber,
      page: pageNumber,
      limit: `${PAGE_SIZE}`,
    }),
  );
  // The sandbox's accounts a refund can reach: a payment from one of them can be refunded.
  const payers = deps.sandbox
    ? deps.banks.sandboxPayoutAccounts().filter((payee) => payee.accountName !== null)
    : [];
  return {
    title: `Account ${account.accountNumber}`,
    account,
    numbers,
    payments,
    sandbox: deps.sandbox,
    payers,
    form: {},
  };
}

/** What the account page says after a form that lands on it. */
export const ACCOUNT_NOTICES: Record<string, string> = {
  issued: "The account is issued: give the customer its number.",
  reissued:
    "The customer's account is re-issued: this is its number now. Its earlier numbers are listed below, and a search finds the account by any of them.",
  deactivated:
    "The account is deactivated: transfers to it are refused (the bank is told) until it is reactivated.",
  reactivated: "The account is reactivated: it takes payments again.",
  payers: "Who may pay in is saved: it applies from the next payment into the account.",
};

/** A list page's filter form as its query: empty fields mean "any", and the page size is the page's. */
export function filtersOf(query: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query as Record<string, unknown>).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === "string" && entry[1] !== "" && entry[0] !== "limit",
    ),
  );
}

/** "1,500.50" naira as integer kobo (150050), by its digits: never through a floating-point number. */
export function nairaToKobo(text: string): number {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text.trim().replaceAll(",", ""));
  if (!match) throw validationFailed("Enter the amount in naira, like 1500 or 1500.50");
  const kobo = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  if (!Number.isSafeInteger(kobo) || kobo < 1) throw validationFailed("The amount must be at least NGN 0.01");
  return kobo;
}

/** Integer kobo as a form's naira text, "1500.50": the inverse of nairaToKobo, by integer arithmetic. */
export function koboToNairaText(kobo: number): string {
  return `${Math.trunc(kobo / 100)}.${String(kobo % 100).padStart(2, "0")}`;
}
