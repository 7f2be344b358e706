import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Session } from "../businesses/sessions.js";
import { actorOf, type User } from "../businesses/users.js";
import { DEFAULT_TIME_ZONE, zonedTime } from "../core/zoned-time.js";
import { type AppError, isAppError, rateLimited } from "../errors.js";
import { describeDevice } from "../mail/notices.js";
import { rememberDevice, trustedDevice } from "./device-cookie.js";
import { type DashboardDependencies, type Form, page, SESSION_COOKIE, setSessionCookie } from "./kit.js";

const MINUTE_MS = 60_000;

/** Where a sign-in comes from, for its audit entry: the address, and the browser in a few words. */
const origin = (request: FastifyRequest) => ({
  address: request.ip,
  device: describeDevice(request.headers["user-agent"] ?? ""),
});

/** Where a role signs in, and where it lands after. */
export interface Surface {
  role: "business" | "operator";
  /** The prefix: /dashboard or /admin. */
  base: string;
  /** The page a signed-in user lands on. */
  home: string;
  /** What the sign-in page calls the place. */
  name: string;
}

/**
 * The page's signed-in session, fully verified and of the surface's role; otherwise the request
 * goes to the sign-in page (or the code page, between the password and the code).
 */
export function guard(surface: Surface) {
  const setUp = new Set(
    ["/security", "/security/totp/start", "/security/totp/confirm"].map((p) => surface.base + p),
  );
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const session = request.session;
    // A page asked for while signed out (a bookmark, a link in one of our mails) is where
    // signing in returns to; a form's answer is not a page to return to.
    const back = request.method === "GET" ? withNext(surface, request.url) : "";
    if (!session || session.role !== surface.role) return reply.redirect(`${surface.base}/login${back}`, 303);
    if (!session.verified) return reply.redirect(`${surface.base}/login/code${back}`, 303);
    // Two factors required and not set up yet: the Security page, and nothing else, until they are.
    if (session.twoFactorSetup && !setUp.has(request.routeOptions.url ?? "")) {
      return reply.redirect(`${surface.base}/security?setup=${session.twoFactorSetup}`, 303);
    }
  };
}

/** The session of a guarded page (the guard ran first). */
export function signedIn(request: FastifyRequest): Session & { actor: ReturnType<typeof actorOf> } {
  const session = request.session as Session;
  return { ...session, actor: actorOf({ id: session.userId, role: session.role }) };
}

/** The form a throttled request came from, shown again (its values kept) with when to try again. */
export type KeptForm = (request: FastifyRequest) => { view: string; data: Record<string, unknown> };

/**
 * A preHandler that refuses (429) a client address past SIGN_IN_RATE_LIMIT_PER_MIN attempts a
 * minute: on the sign-in, code and sign-up forms, where guessing and spam would come from. With
 * `keep`, the refusal is the form again, what was typed kept, saying when to try again.
 */
export function signInThrottle(pages: FastifyInstance, deps: DashboardDependencies, keep?: KeptForm) {
  const limited =
    deps.signInPerMinute > 0
      ? pages.createRateLimit({
          max: deps.signInPerMinute,
          timeWindow: MINUTE_MS,
          keyGenerator: (request) => `sign-in:${request.ip}`,
        })
      : undefined;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const result = limited && (await limited(request));
    if (!result || result.isAllowed || !result.isExceeded) return;
    const seconds = Math.max(1, result.ttlInSeconds);
    if (!keep) throw rateLimited(seconds);
    const at = zonedTime(new Date(Date.now() + seconds * 1000).toISOString(), DEFAULT_TIME_ZONE, {
      seconds: true,
    }).slice(11);
    const { view, data } = keep(request);
    reply.header("retry-after", String(seconds));
    return page(
      reply,
      view,
      {
        ...data,
        error: `Too many attempts from your address. Try again in ${seconds} second${seconds === 1 ? "" : "s"} (at ${at}); what you typed is kept.`,
      },
      429,
    );
  };
}

/**
 * Where signing in may return to: a page of this surface, by its path (`/dashboard/...`), never
 * another site (`//host`, `https:`, a backslash a browser would read as a slash) nor the
 * sign-in pages themselves; undefined otherwise.
 */
export function safeNext(surface: Surface, text: unknown): string | undefined {
  if (typeof text !== "string" || text.length > 2_000) return undefined;
  if (!text.startsWith(`${surface.base}/`) || /[\\\p{Cc}]|\/\//u.test(text)) return undefined;
  if (/^\/[a-z]+\/(login|logout)\b/.test(text)) return undefined;
  return text;
}

/** `?next=...` for a page to return to after signing in, or nothing when it is not one. */
function withNext(surface: Surface, url: string): string {
  const next = safeNext(surface, url);
  return next === undefined ? "" : `?next=${encodeURIComponent(next)}`;
}

/** Sign-in (password, then the TOTP code when the user has one) and sign-out, for one surface. */
export function signInRoutes(pages: FastifyInstance, deps: DashboardDependencies, surface: Surface): void {
  const view = { surface, title: `Sign in to the ${surface.name}` };
  const throttle = signInThrottle(pages, deps, (request) => ({
    view: "sign-in",
    data: { ...view, email: (request.body as Form | undefined)?.email ?? "" },
  }));

  const nextOf = (request: FastifyRequest) =>
    safeNext(surface, (request.query as { next?: unknown }).next ?? (request.body as Form | undefined)?.next);

  pages.get("/login", async (request, reply) => {
    const session = request.session;
    const next = nextOf(request);
    if (session?.role === surface.role && session.verified) return reply.redirect(next ?? surface.home, 303);
    return page(reply, "sign-in", { ...view, email: "", next });
  });

  pages.post("/login", { preHandler: throttle }, async (request, reply) => {
    const form = request.body as Form;
    let user: User;
    try {
      const device = trustedDevice(request, deps.deviceKey);
      user = await deps.users.signIn(
        surface.role,
        form.email ?? "",
        form.password ?? "",
        device,
        origin(request),
      );
    } catch (error) {
      return refusal(reply, error, "sign-in", { ...view, email: form.email ?? "", next: nextOf(request) });
    }
    const next = nextOf(request);
    return startSession(request, reply, deps, surface, user, next === undefined ? {} : { to: next });
  });

  pages.get("/login/code", async (request, reply) => {
    const session = request.session;
    if (!session || session.role !== surface.role) return reply.redirect(`${surface.base}/login`, 303);
    if (session.verified) return reply.redirect(nextOf(request) ?? surface.home, 303);
    return page(reply, "sign-in-code", { ...view, title: "Enter your code", next: nextOf(request) });
  });

  pages.post("/login/code", { preHandler: throttle }, async (request, reply) => {
    const session = request.session;
    if (!session || session.role !== surface.role) return reply.redirect(`${surface.base}/login`, 303);
    const form = request.body as Form;
    try {
      await deps.secondFactor.verifySignInCode(session.userId, form.code ?? "", origin(request));
    } catch (error) {
      return refusal(reply, error, "sign-in-code", {
        ...view,
        title: "Enter your code",
        next: nextOf(request),
      });
    }
    // A new session (and cookie) once every factor is passed: the half-signed-in one ends.
    await deps.sessions.end(session);
    const next = nextOf(request);
    return startSession(request, reply, deps, surface, await deps.users.getUser(session.userId), {
      passedCode: true,
      ...(next === undefined ? {} : { to: next }),
    });
  });

  pages.post("/logout", async (request, reply) => {
    if (request.session) {
      await deps.sessions.end(request.session);
      await deps.users.record(
        actorOf({ id: request.session.userId, role: request.session.role }),
        request.session.businessId,
        "sign_out",
        {},
      );
    }
    reply.clearCookie(SESSION_COOKIE, { path: "/" });
    return reply.redirect(`${surface.base}/login`, 303);
  });
}

/**
 * Starts a session for a user who passed the password (and the code, when `passedCode`) and
 * sends them on: home when every factor is passed, otherwise the code page. A browser that
 * passed every factor becomes a known device; the first time, the user is mailed (a sign-in
 * nobody recognises is seen at once), unless `firstSignIn` (the account was just made here).
 */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: DashboardDependencies,
  surface: Surface,
  user: User,
  options: { passedCode?: boolean; firstSignIn?: boolean; to?: string } = {},
) {
  const verified = options.passedCode === true || !user.totpEnabled;
  const { token } = await deps.sessions.start(user, verified);
  setSessionCookie(reply, token, deps.secureCookies);
  if (verified && !options.firstSignIn && trustedDevice(request, deps.deviceKey)?.userId !== user.id) {
    await deps.notices.newDevice(
      user,
      new Date().toISOString(),
      request.ip,
      request.headers["user-agent"] ?? "",
    );
  }
  if (verified) {
    rememberDevice(request, reply, {
      userId: user.id,
      key: deps.deviceKey,
      path: surface.base,
      secure: deps.secureCookies,
    });
  }
  const back = options.to === undefined ? "" : `?next=${encodeURIComponent(options.to)}`;
  return reply.redirect(verified ? (options.to ?? surface.home) : `${surface.base}/login/code${back}`, 303);
}

/**
 * Shows the form again with the domain's refusal (a 4xx AppError) and its status; anything else
 * goes to the error page.
 */
export function refusal(
  reply: FastifyReply,
  error: unknown,
  view: string,
  data: Record<string, unknown>,
): FastifyReply {
  if (!isAppError(error) || error.statusCode >= 500) throw error;
  const refused = error as AppError;
  if (refused.statusCode === 429) reply.header("retry-after", "60");
  return page(
    reply,
    view,
    { ...data, error: refused.message, fieldErrors: refused.fields },
    refused.statusCode,
  );
}
