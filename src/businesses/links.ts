import { createHash, randomBytes } from "node:crypto";
import { AppError, ErrorCode } from "../errors.js";

// The single-use links the service mails (a password reset, a sign-up's confirmation, an
// invitation): 32 random bytes in the link, only their SHA-256 at rest, so a copy of the
// database opens nothing. Each is taken under a write, so two clicks use it once.

/** A new link's token (for the mail) and its hash (for the database). */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: linkHash(token) };
}

/** What the database keeps of a link's token. */
export const linkHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** A link that is no good (never made, used, voided by a newer one, or expired): `then` says what to do. */
export const linkGone = (then: string): AppError =>
  new AppError(ErrorCode.NOT_FOUND, 410, `This link has expired or was already used. ${then}`);
