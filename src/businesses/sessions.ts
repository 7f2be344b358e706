import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../clock.js";
import type { MemberRole, OperatorRole, UserRole } from "../core/people.js";
import { DEFAULT_TIME_ZONE } from "../core/zoned-time.js";
import type { Storage } from "../storage/database.js";
import {
  deleteEndedSessions,
  findLiveSession,
  insertSession,
  revokeSession,
  touchSession,
} from "../storage/session-repository.js";
import type { User } from "./users.js";

export interface SessionSettings {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
}

/** A live session, as a page sees it. */
export interface Session {
  /** SHA-256 of the cookie's token: what the database keeps, and what CSRF tokens are bound to. */
  id: string;
  userId: string;
  role: UserRole;
  businessId: string | null;
  email: string;
  /** The user's role at their business, read with the session on every request (null: an operator). */
  memberRole: MemberRole | null;
  /** False between the password and the TOTP code: only the code page is open to it. */
  verified: boolean;
  /** An operator's role in the console, read with the session on every request (null: a business user). */
  operatorRole: OperatorRole | null;
  /** The time zone the pages show times in: the business's (an operator's: Africa/Lagos). */
  timeZone: string;
  /**
   * Why this person must set up two-factor sign-in before anything else (issue 43): every
   * operator must, and a member of a business that requires it; undefined once they have it.
   */
  twoFactorSetup: "operator" | "required" | undefined;
}

/** A session as it starts, told to storage (last seen when it starts, not revoked, nothing kept to show). */
interface NewSession {
  id: string;
  userId: string;
  /** 1 when every factor was passed; 0 between the password and the TOTP code. */
  verified: number;
  createdAt: string;
  expiresAt: string;
}

/** A live session as storage's findLiveSession reads it, with its user and their business's settings. */
interface LiveSession {
  id: string;
  userId: string;
  verified: number;
  lastSeenAt: string;
  role: UserRole;
  businessId: string | null;
  email: string;
  memberRole: MemberRole | null;
  operatorRole: OperatorRole | null;
  totpEnabledAt: string | null;
  /** The business's (null: an operator, who has none). */
  timeZone: string | null;
  /** 1 when the business requires two-factor sign-in of every member (null: an operator). */
  requireTwoFactor: number | null;
}

// A session's last use is written at most once a second: a page and its assets are one write, and the
// idle timeout is exact to the second (a session used every 15 s with a one-minute timeout
// never ends; a write a minute once ended it at 60 s).
const TOUCH_EVERY_MS = 1_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Server-side sessions in the database: the cookie holds a random token, the database its hash
 * (a stolen database opens no session). A session ends when revoked (sign-out, a password
 * change), idle for `idleMs`, or `absoluteMs` after sign-in.
 */
export class Sessions {
  private readonly now: Clock;

  constructor(
    private readonly storage: Storage,
    readonly settings: SessionSettings,
    now?: Clock,
  ) {
    this.now = now ?? Date.now;
  }

  /** Starts a session for a user who passed the password (and, when `verified`, every factor). */
  async start(user: User, verified: boolean): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.now();
    const id = hashToken(token);
    const started: NewSession = {
      id,
      userId: user.id,
      verified: verified ? 1 : 0,
      createdAt: iso(now),
      expiresAt: iso(now + this.settings.absoluteMs),
    };
    await insertSession(this.storage.db, started);
    return {
      token,
      session: {
        id,
        userId: user.id,
        role: user.role,
        businessId: user.businessId,
        email: user.email,
        memberRole: user.memberRole,
        operatorRole: user.operatorRole,
        verified,
        // The sign-in's own answer is a redirect: the next request reads the business's zone
        // and whether the business requires two factors.
        timeZone: DEFAULT_TIME_ZONE,
        twoFactorSetup: undefined,
      },
    };
  }

  /** The live session the token opens, if any; its idle clock starts again. */
  async resolve(token: string | undefined): Promise<Session | undefined> {
    if (!token || token.length > 100) return undefined;
    const now = this.now();
    const row: LiveSession | undefined = await findLiveSession(this.storage.db, hashToken(token), iso(now));
    if (!row) return undefined;
    const lastSeen = Date.parse(row.lastSeenAt);
    if (now - lastSeen >= this.settings.idleMs) {
      await revokeSession(this.storage.db, row.id, iso(now));
      return undefined;
    }
    if (now - lastSeen >= TOUCH_EVERY_MS) await touchSession(this.storage.db, row.id, iso(now));
    return {
      id: row.id,
      userId: row.userId,
      role: row.role,
      businessId: row.businessId,
      email: row.email,
      memberRole: row.memberRole,
      operatorRole: row.operatorRole,
      verified: row.verified === 1,
      timeZone: row.timeZone ?? DEFAULT_TIME_ZONE,
      twoFactorSetup:
        row.totpEnabledAt !== null
          ? undefined
          : row.role === "operator"
            ? "operator"
            : Number(row.requireTwoFactor) === 1
              ? "required"
              : undefined,
    };
  }

  async end(session: Session): Promise<void> {
    await revokeSession(this.storage.db, session.id, iso(this.now()));
  }

  /** Removes sessions that ended a day ago or more, in small batches (a background job). */
  async prune(batch = 500, maxBatches = 20): Promise<number> {
    const before = iso(this.now() - 86_400_000);
    let removed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const deleted = await deleteEndedSessions(this.storage.db, before, batch);
      removed += deleted;
      if (deleted < batch) break;
    }
    return removed;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
