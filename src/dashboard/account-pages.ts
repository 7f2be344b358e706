import type { FastifyInstance } from "fastify";
import { accountUpdateInput, nameSchema, permanentInput, temporaryInput } from "../accounts/validation.js";
import { AMOUNT_POLICIES } from "../core/api-types.js";
import { checkForm, digitsField, emailField, labelled } from "../core/form-fields.js";
import { check } from "../core/validation.js";
import { AppError, ErrorCode, isAppError, validationFailed } from "../errors.js";
import { formatNaira } from "../ledger/kobo.js";
import { actingFor } from "./business-scope.js";
import { type DashboardDependencies, doneRedirect, type Form, page } from "./kit.js";
import { accountData, nairaToKobo } from "./money-pages.js";
import { payersBody } from "./payer-lines.js";
import { refusal, signedIn } from "./sign-in.js";

// Accounts from the dashboard (issue 28, item 9): issue a permanent or a temporary account, as
// the API's POST /account/generate and /account/generate/temporary do (the same rules, the same
// bank), stop or restart a permanent one taking payments, and change who may pay into one.

const IDENTITY_LABELS = { bvn: "BVN", nin: "NIN" } as const;
/** Why an unverified business issues no number yet, by where its verification stands. */
const NOT_VERIFIED: Record<string, string> = {
  not_submitted:
    "Your business is not verified, so it cannot issue account numbers yet. Submit its details under Verification: once an operator approves them, accounts can be issued here and through the API.",
  in_progress:
    "Your business is not verified yet: its details are with an operator for review. Accounts can be issued here and through the API once they approve them.",
  rejected:
    "Your business is not verified, so it cannot issue account numbers: see why under Verification, correct its details and submit them again.",
};
const MAX_MINUTES = 10_080;

/** The form's values as the page draws them again (never the BVN or NIN: it is typed again). */
const shownAgain = (form: Form) => ({
  kind: form.kind === "temporary" ? "temporary" : "permanent",
  name: form.name ?? "",
  email: form.email ?? "",
  identityType: form.identityType === "nin" ? "nin" : "bvn",
  duration: form.duration ?? "",
  expectedAmount: form.expectedAmount ?? "",
  amountPolicy: form.amountPolicy ?? "exact",
});

export function accountPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const view = (form: Form, extra: Record<string, unknown> = {}) => ({
    title: "Issue an account",
    form: shownAgain(form),
    policies: AMOUNT_POLICIES,
    ...extra,
  });

  pages.get("/accounts/new", async (request, reply) => {
    const { businessId } = await actingFor(deps.businesses, signedIn(request).businessId);
    const { verificationStatus } = await deps.businesses.getBusiness(businessId);
    // Said before anything is typed: the domain refuses the number all the same (issue 43).
    const refused = NOT_VERIFIED[verificationStatus];
    return page(reply, "account-new", view({}, refused ? { error: refused, unverified: true } : {}));
  });

  pages.post("/accounts/new", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const form = request.body as Form;
    let issued: { accountNumber: string; reissued: boolean };
    try {
      const body = accountBody(form, deps.maxTransferKobo);
      if (form.kind === "temporary") {
        const input = check(temporaryInput(deps.maxTransferKobo), body);
        const account = await deps.accounts.generateTemporary(forBusiness, session.actor, input);
        issued = { accountNumber: account.accountNumber, reissued: false };
      } else {
        const input = check(permanentInput, body);
        // One permanent account per customer email: issuing again replaces its number, which
        // the user says they mean, having been shown the number it replaces.
        const existing = await deps.accounts.permanentFor(forBusiness, input.email);
        if (existing && form.replace !== "yes") {
          return page(reply, "account-new", view(form, { existing }), 409);
        }
        const generated = await deps.accounts.generatePermanent(forBusiness, session.actor, input);
        issued = { accountNumber: generated.account.accountNumber, reissued: !generated.created };
      }
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.BUSINESS_NOT_VERIFIED) {
        const { verificationStatus } = await deps.businesses.getBusiness(forBusiness.businessId);
        const why = NOT_VERIFIED[verificationStatus] ?? NOT_VERIFIED.not_submitted ?? "";
        const refused = new AppError(ErrorCode.BUSINESS_NOT_VERIFIED, 403, why);
        return refusal(reply, refused, "account-new", view(form, { unverified: true }));
      }
      return refusal(reply, error, "account-new", view(form));
    }
    const action = issued.reissued ? "account.reissued" : "account.issued";
    await deps.users.record(session.actor, forBusiness.businessId, action, {
      accountNumber: issued.accountNumber,
    });
    return doneRedirect(
      reply,
      `/dashboard/accounts/${issued.accountNumber}`,
      issued.reissued ? "reissued" : "issued",
    );
  });

  // Deactivate and reactivate (permanent accounts): the API's POST /account/{number}/deactivate
  // and /reactivate, the bank told first.
  // Deactivating asks for a tick: transfers to the customer's number are refused while it lasts.
  for (const change of ["deactivate", "reactivate"] as const) {
    pages.post(`/accounts/:number/${change}`, async (request, reply) => {
      const session = signedIn(request);
      const forBusiness = await actingFor(deps.businesses, session.businessId);
      const { number } = request.params as { number: string };
      if (change === "deactivate" && (request.body as Form).confirm !== "yes") {
        const data = await accountData(deps, forBusiness, number, "1");
        const activeError =
          "Tick the box beside Deactivate to confirm: transfers to this number are refused while it is deactivated.";
        return page(reply, "account", { ...data, activeError }, 400);
      }
      await deps.lifecycle.setActive(forBusiness, session.actor, number, change === "reactivate");
      await deps.users.record(session.actor, forBusiness.businessId, `account.${change}d`, {
        accountNumber: number,
      });
      return doneRedirect(reply, `/dashboard/accounts/${encodeURIComponent(number)}`, `${change}d`);
    });
  }

  // Who may pay in and what a payment from anyone else becomes (issue 46, item 6): the API's
  // PATCH /account/{number}, its rules applied to what the form's lines say.
  pages.post("/accounts/:number/payers", async (request, reply) => {
    const session = signedIn(request);
    const forBusiness = await actingFor(deps.businesses, session.businessId);
    const { number } = request.params as { number: string };
    const form = request.body as Form;
    let update: ReturnType<typeof payersBody>;
    try {
      update = payersBody(form);
      // The API's own rule on what the lines became, so the form takes only what PATCH takes.
      await deps.lifecycle.update(forBusiness, session.actor, number, check(accountUpdateInput, update));
    } catch (error) {
      // Another business's account (or none) is the dashboard's 404, as on every form.
      const data = await accountData(deps, forBusiness, number, "1");
      const typed = { allowedPayers: form.allowedPayers ?? "", onMismatch: form.onMismatch ?? "" };
      return refusal(reply, error, "account", { ...data, payersFailed: true, payersForm: typed });
    }
    await deps.users.record(session.actor, forBusiness.businessId, "account.updated", {
      accountNumber: number,
      allowedPayers: update.allowedPayers,
      onMismatch: update.onMismatch,
    });
    return doneRedirect(reply, `/dashboard/accounts/${encodeURIComponent(number)}`, "payers");
  });
}

/**
 * The form as the API's body: each field checked in the words of its label, every problem at
 * once; then the API's own parse gives the input (so its rules are the ones applied).
 */
function accountBody(form: Form, maxTransferKobo: number): Record<string, unknown> {
  const identityType = form.identityType === "nin" ? "nin" : "bvn";
  const identityLabel = IDENTITY_LABELS[identityType];
  const temporary = form.kind === "temporary";
  const values = checkForm(form, {
    name: {
      label: "Customer's name",
      check: (v) => labelled("Customer's name", "name", () => check(nameSchema, v)),
    },
    email: { label: "Customer's email", check: emailField("Customer's email") },
    identityNumber: { label: identityLabel, check: digitsField(identityLabel, 11) },
    ...(temporary
      ? {
          duration: {
            label: "Minutes until it expires",
            optional: true,
            check: (v: string) => {
              const minutes = /^\d{1,6}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
              if (!(minutes >= 1 && minutes <= MAX_MINUTES)) {
                throw validationFailed(
                  `Minutes until it expires must be a whole number from 1 to ${MAX_MINUTES}`,
                );
              }
              return minutes;
            },
          },
          expectedAmount: {
            label: "Expected amount",
            optional: true,
            check: (v: string) => {
              const kobo = nairaToKobo(v);
              if (kobo > maxTransferKobo) {
                throw validationFailed(
                  `Expected amount must be at most ${formatNaira(maxTransferKobo)}, the most one transfer can be`,
                );
              }
              return kobo;
            },
          },
        }
      : {}),
  }) as Record<string, unknown>;
  const body: Record<string, unknown> = {
    name: values.name,
    email: values.email,
    [identityType]: values.identityNumber,
  };
  if (temporary) {
    if (values.duration !== undefined) body.duration = values.duration;
    if (values.expectedAmount !== undefined) {
      body.expectedAmount = values.expectedAmount;
      body.amountPolicy = (AMOUNT_POLICIES as readonly string[]).includes(form.amountPolicy ?? "")
        ? form.amountPolicy
        : "exact";
    }
  }
  return body;
}
