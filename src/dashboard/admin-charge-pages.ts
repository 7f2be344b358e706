import type { FastifyInstance } from "fastify";
import { validationFailed } from "../errors.js";
import type { ChargeSchedule } from "../ledger/charges.js";
import { formatPercent, parsePercent } from "../ledger/fees.js";
import { monthAsked } from "./charge-pages.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { koboToNairaText, nairaToKobo } from "./money-pages.js";
import { refusal, signedIn } from "./sign-in.js";

// The console's charges (issue 46, item 4): the schedule the operator sets (VAT on the service's
// fees, the stamp duty), and what to remit for a month, every business's part of it: the same
// figures as `vas charges show|set|report`, from the same service.

const STAMP_DUTY_ON = ["payouts", "credits", "both", "none"] as const;

const onOf = (s: ChargeSchedule) =>
  s.stampDutyOnPayouts
    ? s.stampDutyOnCredits
      ? "both"
      : "payouts"
    : s.stampDutyOnCredits
      ? "credits"
      : "none";

/** The form as the schedule shows it: VAT in percent, the stamp duty and its threshold in naira. */
const formOf = (s: ChargeSchedule): Form => ({
  vat: formatPercent(s.vatBasisPoints),
  stampDuty: koboToNairaText(s.stampDutyKobo),
  threshold: koboToNairaText(s.stampDutyThresholdKobo),
  on: onOf(s),
});

/** The schedule a form asks for: 400 naming the field to fix. */
function scheduleOf(form: Form): ChargeSchedule {
  const vat = parsePercent(form.vat ?? "");
  if (vat === undefined) throw validationFailed("VAT must be a percentage from 0 to 100, like 7.5");
  const naira = (text: string | undefined, what: string) => {
    try {
      return nairaToKobo(text ?? "");
    } catch {
      throw validationFailed(`${what} must be an amount in naira, like 10,000`);
    }
  };
  const stampDuty = naira(form.stampDuty, "Stamp duty");
  const threshold = naira(form.threshold, "The threshold");
  const on = form.on ?? "";
  if (!(STAMP_DUTY_ON as readonly string[]).includes(on))
    throw validationFailed("Say which transfers the stamp duty is charged on");
  return {
    vatBasisPoints: vat,
    stampDutyKobo: stampDuty,
    stampDutyThresholdKobo: threshold,
    stampDutyOnPayouts: on === "payouts" || on === "both",
    stampDutyOnCredits: on === "credits" || on === "both",
  };
}

export function adminChargePages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const view = async (query: Record<string, unknown>, form?: Form) => {
    const { month, monthError } = monthAsked(query.month, Date.now());
    const report = await deps.charges.report(month);
    const names = new Map((await deps.businesses.listBusinesses()).map((b) => [b.businessId, b.name]));
    return {
      title: "Charges",
      form: form ?? formOf(await deps.charges.schedule()),
      month,
      monthError,
      report,
      names,
      notice: doneNotice(query, {
        saved: "The charges schedule is saved: postings from now on charge by it.",
      }),
    };
  };

  pages.get("/charges", async (request, reply) => {
    const data = await view(request.query as Record<string, unknown>);
    return page(reply, "admin-charges", data, data.monthError ? 400 : 200);
  });

  pages.post("/charges", async (request, reply) => {
    const session = signedIn(request);
    const form = request.body as Form;
    try {
      const schedule = scheduleOf(form);
      await deps.charges.set(schedule);
      await deps.users.record(session.actor, null, "charges.set", { ...schedule });
    } catch (error) {
      return refusal(reply, error, "admin-charges", await view({}, form));
    }
    return doneRedirect(reply, "/admin/charges", "saved");
  });
}
