import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { BusinessProfiles } from "../businesses/business-profile.js";
import type { BusinessService } from "../businesses/business-service.js";
import type { ConsoleSearch } from "../businesses/console-search.js";
import type { Invitations } from "../businesses/invitations.js";
import type { OneTimeReveals } from "../businesses/one-time-reveals.js";
import type { Operators } from "../businesses/operators.js";
import type { PasswordResets } from "../businesses/password-resets.js";
import { may, type Permission } from "../businesses/roles.js";
import type { SecondFactor } from "../businesses/second-factor.js";
import type { Session, Sessions } from "../businesses/sessions.js";
import type { SignUps } from "../businesses/sign-ups.js";
import type { Team } from "../businesses/team.js";
import type { UserService } from "../businesses/user-service.js";
import { DEFAULT_TIME_ZONE, zonedParts, zonedTime } from "../core/zoned-time.js";
import { AppError, ErrorCode } from "../errors.js";
import type { ChargesService } from "../ledger-audit/charges.js";
import type { MailNotices } from "../mail/notices.js";
import type { PayoutSettings } from "../payouts/payout-settings.js";
import type { DeadlineWatch } from "../reconciliation/deadline-watch.js";
import type { DomainServices } from "../web/domain-services.js";

// What every page shares, apart from the plugin that registers them: the dependencies, the
// form type, rendering a page (with its CSRF token), the session cookie and the error page.

/** What the dashboard and the console need: the domain services, never the public API. */
export interface DashboardDependencies extends DomainServices {
  users: UserService;
  /** Two-factor sign-in: enrolment, the code at sign-in and before money moves. */
  secondFactor: SecondFactor;
  businesses: BusinessService;
  profiles: BusinessProfiles;
  sessions: Sessions;
  /** The business's payout switch and limits, shown beside its payouts. */
  payoutSettings: PayoutSettings;
  /** Binds CSRF tokens to sessions (a service key: the same in every process). */
  csrfKey: Buffer;
  /** Signs device cookies (a service key: the same in every process). */
  deviceKey: Buffer;
  /** Secure cookies (production: the dashboard is served over HTTPS). */
  secureCookies: boolean;
  /** Sign-in attempts per client address per minute (0: no limit). */
  signInPerMinute: number;
  /** SANDBOX: the account page offers a simulated transfer. */
  sandbox: boolean;
  /** MAX_TRANSFER_KOBO: the simulated transfer's limit, as its refusal names it. */
  maxTransferKobo: number;
  /** What the dashboard mails as it happens (a sign-in from a new browser). */
  notices: MailNotices;
  /** "Forgot password": the mailed link and the new password. */
  passwordResets: PasswordResets;
  /** Sign-up, confirmed by a mailed link. */
  signUps: SignUps;
  /** The business's members and their roles. */
  team: Team;
  /** The console's searches across every business. */
  consoleSearch: ConsoleSearch;
  /** The CBN's deadlines watched: the console's list of late credits and late returns. */
  deadlines: DeadlineWatch;
  /** The operator's charges: the schedule, what to remit, a business's statement. */
  charges: ChargesService;
  /** The console's operators: invited, given a role, disabled. */
  operators: Operators;
  /** Invitations to the business's team. */
  invitations: Invitations;
  /** A new secret, kept for the page a form redirects to, shown once. */
  reveals: OneTimeReveals;
  /**
   * Runs `work` and waits a few seconds (MAIL_WAIT_MS) for the mail it queued: its result, and
   * whether that mail is sent or still queued (issue 44: a page never says "mailed" for a
   * message the server did not accept).
   */
  mailing<T>(work: () => Promise<T>): Promise<{ result: T; queued: boolean }>;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The dashboard session the request's cookie opens, if any. */
    session?: Session;
  }
  interface FastifyReply {
    /** What @fastify/view adds to every page this reply renders (the console's banner). */
    locals: Record<string, unknown> | null;
  }
}

/** A form's fields: the dashboard posts application/x-www-form-urlencoded. */
export type Form = Record<string, string>;

/** The cookie holding a session's token (HttpOnly, SameSite=Lax, Secure in production). */
export const SESSION_COOKIE = "vas_session";

/** Sets the session cookie: HttpOnly, SameSite=Lax, Secure in production, gone when the browser closes. */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, { path: "/", httpOnly: true, sameSite: "lax", secure });
}

/** How a page writes a time for the person reading it: their business's zone, named (WAT by default). */
export function localTime(request: FastifyRequest): (iso: string) => string {
  const timeZone = request.session?.timeZone ?? DEFAULT_TIME_ZONE;
  return (iso) => zonedTime(iso, timeZone);
}

/** Renders a page with what every page has: the CSRF token for its forms, the session, the title. */
export function page(
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown>,
  status = 200,
): FastifyReply {
  const request = reply.request;
  const csrf = reply.generateCsrf({ userInfo: request.session?.id ?? "anonymous" });
  // Times as the business reads them (its zone, named); the API and exports keep UTC.
  const timeZone = request.session?.timeZone ?? DEFAULT_TIME_ZONE;
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .view(view, {
      session: request.session,
      csrf,
      url: request.url,
      // What the member's role allows (the server refuses the rest; pages hide what would be refused).
      can: (permission: Permission) => may(request.session?.memberRole, permission),
      time: (iso: string, options?: { seconds?: boolean }) => zonedTime(iso, timeZone, options),
      timeZone,
      zoneName: zonedParts(Date.now(), timeZone).zoneName,
      ...data,
      // What the form before this page did (the layout shows it): the page's own words, or these.
      done: data.done ?? doneNotice(request.query, DONE),
    });
}

/** What a form says on the page it redirects to, where that page has no words of its own. */
const DONE: Record<string, string> = {
  submitted: "Your details are submitted: an operator reviews them, and you are mailed the decision.",
  transferred:
    "The sandbox transfer is paid: it is in the account's payments, the transactions and the balance.",
  "api-on": "Payouts through the API are on.",
  "api-off":
    "Payouts through the API are off: your systems cannot send payouts or refunds until they are on again.",
  "account-set": "The settlement account is set. It is used after its cool-off; your team is mailed.",
  "schedule-saved": "The settlement schedule is saved.",
  "time-zone": "The time zone is saved: every page of your business shows times in it.",
};

/**
 * After a form did what it asked: to `url` with `?done=<what>` (a refresh then reloads the page,
 * never posts again); the page shows the notice `what` names in its own list of fixed texts.
 */
export function doneRedirect(reply: FastifyReply, url: string, what: string): FastifyReply {
  return reply.redirect(`${url}${url.includes("?") ? "&" : "?"}done=${encodeURIComponent(what)}`, 303);
}

/** The notice a page's `?done=` names, from the page's own texts (anything else shows nothing). */
export function doneNotice(query: unknown, notices: Record<string, string>): string | undefined {
  const what = (query as { done?: unknown }).done;
  return typeof what === "string" && Object.hasOwn(notices, what) ? notices[what] : undefined;
}

/** A mailed link's token: what the query names, if it is one (anything else is no link). */
export function linkToken(query: unknown): string {
  const token = (query as { token?: unknown }).token;
  return typeof token === "string" && /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : "";
}

/** The 404 page of a prefix (/dashboard, /admin). */
export function notFoundPage(scope: FastifyInstance): void {
  scope.setNotFoundHandler((request, reply) =>
    errorPage(new AppError(ErrorCode.NOT_FOUND, 404, "There is no such page"), request, reply),
  );
}

/** The one error page: a refusal (4xx) says what to fix; anything else is logged with its request id. */
export function errorPage(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const code = (error as { code?: string }).code;
  let status = 500;
  let message = `Something went wrong on our side (request id ${request.id}). Try again in a moment.`;
  if (error instanceof AppError && error.statusCode < 500) {
    status = error.statusCode;
    message = error.message;
  } else if (code === "FST_CSRF_INVALID_TOKEN" || code === "FST_CSRF_MISSING_SECRET") {
    status = 403;
    message = "This form has expired or did not come from this site. Go back, reload the page and try again.";
  } else if (typeof (error as { statusCode?: number }).statusCode === "number") {
    const fastifyStatus = (error as { statusCode: number }).statusCode;
    if (fastifyStatus < 500) {
      status = fastifyStatus;
      message = "The request could not be read.";
    }
  }
  if (status >= 500) request.log.error({ err: error }, "dashboard page failed");
  return page(
    reply,
    "error",
    { title: status === 404 ? "Not found" : "Something went wrong", message, status },
    status,
  );
}
