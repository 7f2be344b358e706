import type { FastifyInstance } from "fastify";
import type { ForBusiness } from "../core/actor.js";
import { asFieldRefusal, checkForm, digitsField } from "../core/form-fields.js";
import { check, listQuery } from "../core/validation.js";
import { fieldsInvalid, isAppError } from "../errors.js";
import { accountAtBankQuery } from "../payouts/banks.js";
import { payoutQuery } from "../payouts/validation.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, doneRedirect, type Form, page } from "./kit.js";
import { confirmMoney, ledToSetUp } from "./money-gate.js";
import { ACCOUNT_FIELDS, filtersOf, koboToNairaText, nairaToKobo, PAGE_SIZE } from "./money-pages.js";
import { refusal, signedIn } from "./sign-in.js";

/**
 * Where the business's money goes: its settlement account (named by the bank, confirmed with the
 * owner's two-factor code, then the cool-off), its schedule and reserve, a settlement now, and
 * its settlements with the transactions each covered.
 */
export function settlementPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/settlements", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const data = await overview(forBusiness, session.userId, filtersOf(request.query), {});
    if (data.refused) return refusal(reply, data.refused, "settlements", data);
    return page(reply, "settlements", data);
  });

  // The account to change to, named by the bank: the review the owner confirms with their code.
  pages.post("/settlements/account/review", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    try {
      return page(reply, "settlement-account-review", await accountReview(forBusiness, session.userId, form));
    } catch (error) {
      return refusal(reply, error, "settlements", {
        ...(await overview(forBusiness, session.userId, {}, form)),
        errorAt: "account",
      });
    }
  });

  pages.post("/settlements/account", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    try {
      // The account and its name are checked first: no code is spent on an account refused.
      await deps.settlementTerms.setAccount(
        forBusiness.businessId,
        session.actor,
        {
          bankCode: form.bankCode ?? "",
          accountNumber: (form.accountNumber ?? "").trim(),
          nameDiffersConfirmed: form.nameDiffers === "yes",
        },
        () => confirmMoney(deps, request, form.code, "settlement_account"),
      );
    } catch (error) {
      if (!isAppError(error) || error.statusCode >= 500) throw error;
      const led = ledToSetUp(reply, error);
      if (led) return led;
      const again = await accountReview(forBusiness, session.userId, form).catch(() => undefined);
      if (again) return refusal(reply, error, "settlement-account-review", again);
      return refusal(reply, error, "settlements", {
        ...(await overview(forBusiness, session.userId, {}, form)),
        errorAt: "account",
      });
    }
    return doneRedirect(reply, "/dashboard/settlements", "account-set");
  });

  pages.post("/settlements/schedule", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    try {
      // The reserve in the words of its label; the time, beside its field when a daily
      // schedule has none or a bad one (the domain's rule, reworded for the form).
      const { reserve } = checkForm(form, {
        reserve: { label: "Keep as a reserve", optional: true, check: nairaToKobo },
      });
      await deps.settlementTerms
        .setSchedule(forBusiness.businessId, session.actor, {
          schedule: form.schedule ?? "",
          dailyAt: form.dailyAt || undefined,
          reserve: reserve ?? 0,
        })
        .catch((error: unknown) => {
          if (isAppError(error) && error.statusCode === 400 && /^a daily schedule/.test(error.message)) {
            throw fieldsInvalid({ dailyAt: "Daily at must be a time, like 17:00, for a daily schedule" });
          }
          throw asFieldRefusal(error, { schedule: { field: "schedule", label: "Settle" } });
        });
    } catch (error) {
      return refusal(reply, error, "settlements", {
        ...(await overview(forBusiness, session.userId, {}, form)),
        errorAt: "schedule",
      });
    }
    return doneRedirect(reply, "/dashboard/settlements", "schedule-saved");
  });

  pages.post("/settlements/run", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    let id: string;
    try {
      await confirmMoney(deps, request, (request.body as Form).code, "settlement.run");
      id = (await deps.settlements.settle(forBusiness)).id;
      await deps.users.record(session.actor, forBusiness.businessId, "settlement.run", { settlementId: id });
    } catch (error) {
      const led = ledToSetUp(reply, error);
      if (led) return led;
      return refusal(reply, error, "settlements", {
        ...(await overview(forBusiness, session.userId, {}, {})),
        errorAt: "run",
      });
    }
    return reply.redirect(`/dashboard/settlements/${id}`, 303);
  });

  pages.get("/settlements/:id", async (request, reply) => {
    const forBusiness = await actingFor(deps.businesses, signedIn(request).businessId);
    const { id } = request.params as { id: string };
    const query = request.query as { page?: string };
    const settlement = await deps.settlements.get(forBusiness, id);
    const covered = await deps.settlements.transactions(
      forBusiness,
      id,
      check(listQuery, { page: query.page ?? "1", limit: `${PAGE_SIZE}` }),
    );
    return page(reply, "settlement", { title: "Settlement", settlement, covered });
  });

  async function accountReview(forBusiness: ForBusiness, userId: string, form: Form) {
    // Each field refused in the words of its label, both at once; then the API's own parse.
    const fields = checkForm(form, {
      bankCode: { label: "Bank", check: (value: string) => value.trim() },
      accountNumber: { label: "Account number", check: digitsField("Account number", 10) },
    });
    const destination = await deps.banks
      .resolve(check(accountAtBankQuery, fields))
      .catch((error: unknown) => {
        throw asFieldRefusal(error, ACCOUNT_FIELDS);
      });
    const [user, otherName] = await Promise.all([
      deps.users.getUser(userId),
      deps.settlementTerms.nameOf(forBusiness.businessId, destination.accountName),
    ]);
    return {
      title: "Confirm the settlement account",
      destination,
      // Flagged before anything is sent: the name the bank gave is not the business's.
      otherName,
      needsCode: user.totpEnabled,
      coolOffHours: deps.settlementTerms.coolOffHours,
    };
  }

  async function overview(
    forBusiness: ForBusiness,
    userId: string,
    filters: Record<string, string>,
    form: Form,
  ) {
    const [terms, balance, user, banks, quote] = await Promise.all([
      deps.settlementTerms.terms(forBusiness.businessId),
      deps.collections.balance(forBusiness),
      deps.users.getUser(userId),
      deps.banks.list().catch(() => undefined),
      // Why nothing can be settled now is shown in place of the button.
      deps.settlements.quote(forBusiness).catch((error: unknown) => {
        if (isAppError(error) && error.statusCode < 500) return error.message;
        throw error;
      }),
    ]);
    const view = {
      title: "Settlements",
      terms,
      balance,
      banks,
      needsCode: user.totpEnabled,
      quote,
      filters,
      form: {
        schedule: form.schedule ?? terms.schedule,
        dailyAt: form.dailyAt ?? terms.dailyAt ?? "17:00",
        reserve: form.reserve ?? (terms.reserve > 0 ? koboToNairaText(terms.reserve) : ""),
        bankCode: form.bankCode ?? "",
        accountNumber: form.accountNumber ?? "",
      },
      coolingOff: deps.settlementTerms.isCoolingOff(terms),
    };
    try {
      const listed = await deps.settlements.list(
        forBusiness,
        check(payoutQuery, { ...filters, limit: `${PAGE_SIZE}` }),
      );
      return { ...view, ...listed, refused: undefined };
    } catch (error) {
      if (!isAppError(error) || error.statusCode >= 500) throw error;
      return { ...view, items: [], pagination: undefined, refused: error };
    }
  }
}
