import { fileURLToPath } from "node:url";
import fastifyCookie from "@fastify/cookie";
import fastifyCsrfProtection from "@fastify/csrf-protection";
import fastifyStatic from "@fastify/static";
import fastifyView from "@fastify/view";
import { Eta } from "eta";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, ErrorCode } from "../errors.js";
import { formatNaira } from "../ledger/kobo.js";
import { adminPages } from "./admin-pages.js";
import { businessPages } from "./business-pages.js";
import { type DashboardDependencies, errorPage, type Form, SESSION_COOKIE } from "./kit.js";

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
      const raw = capturedBytes(request);
      if (!raw || raw.length === 0) {
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
      request.body = readForm(raw.toString("utf8"));
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

/**
 * The body's exact bytes as the app's one parser captured them (http/request-body.ts keeps every
 * body as received, with its Content-Type set aside in `declaredContentType`): read by shape, so
 * that the dashboard needs nothing of the API's front.
 */
function capturedBytes(request: FastifyRequest): Buffer | undefined {
  const body = request.body as { raw?: unknown } | null | undefined;
  return body && Buffer.isBuffer(body.raw) ? body.raw : undefined;
}
