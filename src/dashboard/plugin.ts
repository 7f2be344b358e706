import { fileURLToPath } from "node:url";
import fastifyCookie from "@fastify/cookie";
import fastifyCsrfProtection from "@fastify/csrf-protection";
import fastifyStatic from "@fastify/static";
import fastifyView from "@fastify/view";
import { Eta } from "eta";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AccountLifecycle } from "../accounts/account-lifecycle.js";
import type { AccountService } from "../accounts/account-service.js";
import type { BusinessProfiles } from "../businesses/business-profile.js";
import type { BusinessService } from "../businesses/business-service.js";
import type { UserService } from "../businesses/user-service.js";
import type { CollectionService } from "../collections/collection-service.js";
import { AppError, ErrorCode } from "../errors.js";
import type { EventService } from "../events/event-service.js";
import { receivedBody } from "../http/request-body.js";
import { formatNaira } from "../ledger/kobo.js";
import type { WebhookEndpointService } from "../webhooks/endpoint-service.js";
import type { RedeliveryService } from "../webhooks/redelivery.js";
import { adminPages } from "./admin-pages.js";
import { businessPages } from "./business-pages.js";
import { SESSION_COOKIE, type Session, type Sessions } from "./sessions.js";

/** What the dashboard and the console need: the domain services, never the public API. */
export interface DashboardDependencies {
  users: UserService;
  businesses: BusinessService;
  profiles: BusinessProfiles;
  accounts: AccountService;
  lifecycle: AccountLifecycle;
  collections: CollectionService;
  events: EventService;
  webhooks: WebhookEndpointService;
  redelivery: RedeliveryService;
  sessions: Sessions;
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
}

declare module "fastify" {
  interface FastifyRequest {
    /** The dashboard session the request's cookie opens, if any. */
    session?: Session;
  }
}

const VIEWS = fileURLToPath(new URL("./views", import.meta.url));
const ASSETS = fileURLToPath(new URL("./assets", import.meta.url));

// Everything the pages load comes from this service: no inline script or style, no CDN.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** A form's fields: the dashboard posts application/x-www-form-urlencoded. */
export type Form = Record<string, string>;

/**
 * The browser side, served by the same process: /dashboard for businesses, /admin for operators.
 * Server-rendered pages (eta templates), sessions in the database, CSRF tokens bound to the
 * session on every form, a strict Content-Security-Policy, and one error page.
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDependencies): Promise<void> {
  // The stylesheet and the script, in a scope of their own: no session or CSRF work for them.
  await app.register(fastifyStatic, {
    root: ASSETS,
    prefix: "/dashboard/assets/",
    maxAge: "1h",
    setHeaders: (reply) => void reply.header("x-content-type-options", "nosniff"),
  });
  await app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifyCsrfProtection, {
      cookieKey: "vas_csrf",
      cookieOpts: { path: "/", sameSite: "lax", httpOnly: true, secure: deps.secureCookies },
      getUserInfo: (request: FastifyRequest) => request.session?.id ?? "anonymous",
      csrfOpts: { hmacKey: deps.csrfKey, userInfo: true },
    });
    await scope.register(fastifyView, {
      engine: { eta: new Eta({ views: VIEWS, cache: true, autoEscape: true }) },
      root: VIEWS,
      production: true,
      // Helpers every template may call.
      defaultContext: { naira: formatNaira },
    });

    scope.addHook("onSend", async (_request, reply) => {
      reply.header("content-security-policy", CONTENT_SECURITY_POLICY);
      reply.header("x-frame-options", "DENY");
      reply.header("x-content-type-options", "nosniff");
      reply.header("referrer-policy", "same-origin");
      reply.header("cache-control", "no-store");
    });
    // The API captures every body as received (for its signatures); a page's form is read here.
    scope.addHook("preValidation", async (request) => {
      const received = receivedBody(request);
      if (!received || received.raw.length === 0) {
        if (request.method === "GET" || request.method === "HEAD") return;
        // Every form carries at least its CSRF token: a POST without a body is not a form.
        throw new AppError(ErrorCode.BAD_REQUEST, 400, "The form arrived empty: send it from its page again");
      }
      const type = request.declaredContentType ?? "";
      if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
        throw new AppError(
          ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          415,
          "Forms are sent as application/x-www-form-urlencoded",
        );
      }
      request.body = readForm(received.raw.toString("utf8"));
    });
    scope.addHook("preHandler", async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      request.session = await deps.sessions.resolve(token);
      if (token && !request.session) reply.clearCookie(SESSION_COOKIE, { path: "/" });
    });
    scope.addHook("preHandler", (request, reply, done) => {
      if (request.method === "GET" || request.method === "HEAD") return done();
      scope.csrfProtection(request, reply, done);
    });
    scope.setErrorHandler((error, request, reply) => errorPage(error, request, reply));

    await scope.register((pages) => businessPages(pages, deps), { prefix: "/dashboard" });
    await scope.register((pages) => adminPages(pages, deps), { prefix: "/admin" });
  });
}

// Control characters (NUL above all: PostgreSQL cannot store it) have no place in a form field;
// tabs and line breaks (a text box's) do.
const CONTROL_CHARACTER = /(?![\t\n\r])\p{Cc}/u;

/** A urlencoded form's fields; a field holding a control character is a 400 that names it. */
function readForm(text: string): Form {
  const form = Object.fromEntries(new URLSearchParams(text)) as Form;
  for (const [name, value] of Object.entries(form)) {
    if (CONTROL_CHARACTER.test(value) || CONTROL_CHARACTER.test(name)) {
      const field = CONTROL_CHARACTER.test(name) || name.length > 40 ? "A field" : `The field "${name}"`;
      throw new AppError(
        ErrorCode.BAD_REQUEST,
        400,
        `${field} contains a control character (such as NUL) that cannot be kept: remove it and send the form again`,
      );
    }
  }
  return form;
}

/** Sets the session cookie: HttpOnly, SameSite=Lax, Secure in production, gone when the browser closes. */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, { path: "/", httpOnly: true, sameSite: "lax", secure });
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
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .view(view, { session: request.session, csrf, url: request.url, ...data });
}

/** The 404 page of a prefix (/dashboard, /admin). */
export function notFoundPage(scope: FastifyInstance): void {
  scope.setNotFoundHandler((request, reply) =>
    errorPage(new AppError(ErrorCode.NOT_FOUND, 404, "There is no such page"), request, reply),
  );
}

function errorPage(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
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
