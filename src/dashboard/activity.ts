import type { ActivityEntry } from "../businesses/users.js";
import { formatNaira } from "../ledger/kobo.js";

// The audit log as the Security page shows it: who did what, and when, in words.

const WHAT: Readonly<Record<string, string>> = {
  "user.signed_up": "Signed up (email confirmed)",
  "operator.created": "Operator account created",
  "sign_in.succeeded": "Signed in",
  "sign_in.password_accepted": "Password accepted; two-factor code asked for",
  "sign_in.failed": "Sign-in failed",
  sign_out: "Signed out",
  "password.changed": "Password changed",
  "password.change_failed": "Password not changed: the current password was wrong",
  "totp.enabled": "Two-factor sign-in turned on; other sessions ended",
  "totp.enable_failed": "Two-factor sign-in not turned on: the password was wrong",
  "totp.disabled": "Two-factor sign-in turned off; other sessions ended",
  "totp.disable_failed": "Two-factor sign-in not turned off: the password or the app's code was wrong",
  "totp.disable_confirmed": "Authenticator code given to turn two-factor sign-in off",
  "totp.reset_by_operator": "Two-factor sign-in reset by an operator; every session ended",
  "recovery_codes.replaced": "New recovery codes made; the old ones no longer work",
  "recovery_codes.change_failed": "Recovery codes not replaced: the password or the app's code was wrong",
  "recovery_codes.change_confirmed": "Authenticator code given for new recovery codes",
  "password.reset_requested": "Password reset link asked for",
  "password.reset": "Password reset from the mailed link; every session ended",
  "key.created": "API key created",
  "key.deactivated": "API key deactivated",
  "key.activated": "API key activated",
  "key.revoked": "API key revoked",
  "webhook.created": "Webhook endpoint added",
  "webhook.updated": "Webhook endpoint changed",
  "webhook.secret_rotated": "Webhook signing secret rotated",
  "webhook.enabled": "Webhook endpoint enabled",
  "webhook.disabled": "Webhook endpoint disabled",
  "webhook.deleted": "Webhook endpoint removed",
  "payout.sent": "Payout sent",
  "payout.confirmed": "Two-factor code given for a payout",
  "payout.code_failed": "Payout not sent: the two-factor code was wrong",
  "refund.sent": "Refund sent",
  "transactions.exported": "Transactions exported as CSV",
  "payouts.exported": "Payouts exported as CSV",
  "held.accepted": "Held payment accepted into the available balance",
  "held.returned": "Held payment returned to its payer",
  "credit.blocked": "Payment blocked by an operator: its payer's bank disputes it",
  "credit.released": "Block on a payment released by an operator",
  "credit.returned": "Blocked payment returned to its payer by an operator",
  "business.time_zone_changed": "Time zone changed",
  "business.fee_changed": "Collection fee changed by an operator",
  "account.issued": "Account issued",
  "account.reissued": "Account re-issued: a new number for its customer",
  "account.deactivated": "Account deactivated",
  "account.reactivated": "Account reactivated",
  "account.updated": "Who may pay into an account changed",
  "refund.confirmed": "Two-factor code given for a refund",
  "refund.code_failed": "Refund not sent: the two-factor code was wrong",
  "payouts.api_on": "Payouts through the API turned on",
  "payouts.api_off": "Payouts through the API turned off",
  "payouts.api_enabled.confirmed": "Two-factor code given to turn on payouts through the API",
  "payouts.api_enabled.code_failed": "Payouts through the API not turned on: the two-factor code was wrong",
  "payout_terms.updated": "Payout limits and fee changed",
  "settlement_account.updated": "Settlement account changed",
  "settlement_account.confirmed": "Two-factor code given to change the settlement account",
  "settlement_account.code_failed": "Settlement account not changed: the two-factor code was wrong",
  "settlement_schedule.updated": "Settlement schedule changed",
  "settlement.run": "Settlement asked for",
  "settlement.run.confirmed": "Two-factor code given to settle now",
  "settlement.run.code_failed": "Not settled: the two-factor code was wrong",
  "member.invited": "Member invited",
  "member.invitation_revoked": "Invitation revoked",
  "member.joined": "Joined the team",
  "member.role_changed": "Member's role changed",
  "member.removed": "Member removed; their sessions ended",
  "ownership.transferred": "Business handed over",
  "business.two_factor_required": "Two-factor sign-in required of every member",
  "business.two_factor_optional": "Two-factor sign-in no longer required of every member",
  "ownership.transfer_failed": "Business not handed over: the password was wrong",
  "ownership.transfer.confirmed": "Two-factor code given to hand the business over",
  "ownership.transfer.code_failed": "Business not handed over: the two-factor code was wrong",
};

const WHO: Readonly<Record<string, string>> = {
  cli: "The admin CLI",
  api_key: "An API key",
  operator: "An operator",
  anonymous: "Someone",
};

/** One row of the page's activity table. */
export interface ActivityLine {
  /** When, an ISO instant (the page shows it in the business's time zone). */
  at: string;
  who: string;
  what: string;
  /** A sign-in's address and browser ("102.89.1.1, Chrome on Android"), when it was kept. */
  from: string;
}

export function activityLines(entries: readonly ActivityEntry[]): ActivityLine[] {
  return entries.map((entry) => {
    let what = WHAT[entry.action] ?? entry.action;
    const { reason, factor } = entry.detail;
    if (entry.action === "sign_in.failed" && typeof reason === "string") what = `${what}: ${reason}`;
    if (entry.action === "sign_in.succeeded" && factor === "totp") what = "Signed in with a two-factor code";
    if (entry.action === "sign_in.succeeded" && factor === "recovery_code") {
      const { left } = entry.detail;
      what = `Signed in with a recovery code${typeof left === "number" ? ` (${left} left)` : ""}`;
    }
    if (entry.action === "totp.reset_by_operator" && typeof entry.detail.email === "string") {
      what = `${what}: ${entry.detail.email}`;
    }
    what = `${what}${teamDetail(entry)}`;
    const { amount, accountNumber } = entry.detail;
    if (entry.action === "business.time_zone_changed" && typeof entry.detail.timeZone === "string") {
      what = `${what}: ${entry.detail.timeZone}`;
    }
    if (entry.action.startsWith("account.") && typeof accountNumber === "string") {
      what = `${what}: ${accountNumber}`;
    }
    const withAmount = ["payout.sent", "refund.sent", "credit.blocked", "credit.released", "credit.returned"];
    if (withAmount.includes(entry.action) && typeof amount === "number") {
      what = `${what}: ${formatNaira(amount)}`;
    }
    return {
      at: entry.at,
      who: entry.actorEmail ?? WHO[entry.actorType] ?? entry.actorType,
      what,
      from: [entry.detail.address, entry.detail.device].filter((part) => typeof part === "string").join(", "),
    };
  });
}

/** Who a team change was about, and the roles, in words (": ada@example.com, Developer to Finance"). */
function teamDetail(entry: ActivityEntry): string {
  const { email, role, from, to } = entry.detail;
  const words = (value: unknown) =>
    typeof value === "string" ? value[0]?.toUpperCase() + value.slice(1) : "";
  if (entry.action === "member.role_changed" && typeof email === "string") {
    return `: ${email}, ${words(from)} to ${words(to)}`;
  }
  if ((entry.action === "member.invited" || entry.action === "member.removed") && typeof email === "string") {
    return `: ${email} (${words(role)})`;
  }
  if (entry.action === "member.joined" && typeof role === "string") return ` as ${words(role)}`;
  if (entry.action === "ownership.transferred" && typeof to === "string") return ` to ${to}`;
  return "";
}

/**
 * Who made each change of a verification history, in words: on the console every operator by
 * their email ("ops@... (operator)"), on a business's page "An operator"; the business's own users by
 * their email on both; the CLI and API keys as such.
 */
export async function historyWithWho<T extends { actor: { type: string; id: string | null } }>(
  history: readonly T[],
  emailsOf: (ids: readonly string[]) => Promise<Map<string, string>>,
  onConsole: boolean,
): Promise<(T & { who: string })[]> {
  const named = history
    .filter((change) => change.actor.type === "user" || (onConsole && change.actor.type === "operator"))
    .map((change) => change.actor.id)
    .filter((id): id is string => id !== null);
  const emails = await emailsOf(named);
  return history.map((change) => {
    const email = change.actor.id === null ? undefined : emails.get(change.actor.id);
    const fallback =
      change.actor.type === "operator"
        ? "An operator"
        : change.actor.type === "user"
          ? "A member of the team"
          : (WHO[change.actor.type] ?? change.actor.type);
    // Under the column "By" (a card's label on a phone): no second "by".
    const who =
      email === undefined ? fallback : change.actor.type === "operator" ? `${email} (operator)` : email;
    return { ...change, who };
  });
}
