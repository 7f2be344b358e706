import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { TrustedDevice } from "../businesses/sign-in-attempts.js";

// OWASP's device cookie: a browser that completed a sign-in carries a signed token naming the
// user, so that its own password guesses count apart from everyone else's and its owner can sign
// in while someone else is locked out. Scoped to the surface's path (/dashboard or /admin).

export const DEVICE_COOKIE = "vas_device";
const ONE_YEAR_SECONDS = 365 * 24 * 3600;

const mac = (key: Buffer, body: string) =>
  createHmac("sha256", key).update(`device:${body}`).digest("base64url");

/** The device the request's cookie names, if its signature holds. */
export function trustedDevice(request: FastifyRequest, key: Buffer): TrustedDevice | undefined {
  const token = request.cookies[DEVICE_COOKIE];
  if (!token || token.length > 200) return undefined;
  const [userId, nonce, signature, extra] = token.split(".");
  if (!userId || !nonce || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(key, `${userId}.${nonce}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { userId, nonce };
}

/** Gives the browser a device cookie for the user, unless it already carries one. */
export function rememberDevice(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { userId: string; key: Buffer; path: string; secure: boolean },
): void {
  if (trustedDevice(request, options.key)?.userId === options.userId) return;
  const body = `${options.userId}.${randomBytes(16).toString("base64url")}`;
  reply.setCookie(DEVICE_COOKIE, `${body}.${mac(options.key, body)}`, {
    path: options.path,
    httpOnly: true,
    sameSite: "lax",
    secure: options.secure,
    maxAge: ONE_YEAR_SECONDS,
  });
}
