import { createHash } from "node:crypto";
import type { Clock } from "../clock.js";
import type { UserRole } from "../core/people.js";
import { DEFAULT_TIME_ZONE, zonedTime } from "../core/zoned-time.js";
import { AppError, ErrorCode } from "../errors.js";
import type { Executor } from "../storage/executor.js";
import { claimAttempt, clearAttempts, deleteEndedAttempts } from "../storage/sign-in-attempts.js";

/** Guesses checked per subject in one window before sign-in is paused for it. */
export const MAX_FAILED_SIGN_INS = 5;
/** The window, and how long a pause lasts after the last guess it allowed. */
export const LOCKOUT_MS = 15 * 60_000;

/** A browser that signed in as this user before: its device cookie, already verified. */
export interface TrustedDevice {
  userId: string;
  nonce: string;
}

const subject = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Who a password guess counts against (OWASP's device cookies): a browser that signed in as
 * this user before counts against itself alone, so the owner still signs in from it while
 * someone else guesses; every other client counts against the email, known or not, so the
 * pause reveals nothing about which emails exist.
 */
export function passwordSubject(role: UserRole, email: string, device: TrustedDevice | undefined): string {
  return device ? subject(`password:device:${device.nonce}`) : subject(`password:${role}:${email}:untrusted`);
}

/** A user's second-factor codes count against the user. */
export const codeSubject = (userId: string) => subject(`code:${userId}`);

const paused = (until: string) =>
  new AppError(
    ErrorCode.SIGN_IN_LOCKED,
    429,
    // Said before anyone is signed in, so in the service's zone (Africa/Lagos), named.
    `Too many failed sign-ins: signing in is paused until ${zonedTime(until, DEFAULT_TIME_ZONE).slice(11)}`,
  );

/**
 * Counts each guess before it is checked, in one statement per guess, so that however many
 * arrive at once, on however many processes, at most MAX_FAILED_SIGN_INS are checked per
 * subject and window; past that, a 429 that says until when. A subject that proves itself
 * (the right password or code) starts again from nothing.
 */
export class SignInAttempts {
  constructor(
    private readonly db: Executor,
    private readonly now: Clock,
  ) {}

  /** Counts one guess at `subject`, or refuses it (429) while the subject is paused. */
  async count(subjectHash: string): Promise<void> {
    const now = this.now();
    const claim = await claimAttempt(
      this.db,
      subjectHash,
      MAX_FAILED_SIGN_INS,
      new Date(now).toISOString(),
      new Date(now + LOCKOUT_MS).toISOString(),
    );
    if (!claim.claimed) throw paused(claim.pausedUntil);
  }

  /** The subject proved itself: its count starts again. */
  async clear(subjectHash: string, db: Executor = this.db): Promise<void> {
    await clearAttempts(db, subjectHash);
  }

  /** Forgets subjects whose window ended a day ago or more, in small batches (a background job). */
  async prune(batch = 500, maxBatches = 20): Promise<number> {
    const before = new Date(this.now() - 86_400_000).toISOString();
    let removed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const deleted = await deleteEndedAttempts(this.db, before, batch);
      removed += deleted;
      if (deleted < batch) break;
    }
    return removed;
  }
}
