import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import { Kicker } from "../jobs/kicker.js";
import type { Mail, MailTransport } from "../providers/mail-transport.js";
import type { Storage } from "../storage/database.js";
import { claimDueMail, markMailSent, markMailUnsent, queueMail } from "../storage/mail-repository.js";

// The mail outbox (issue 28): a message is queued (sealed, never in plaintext at rest) by the
// code that decides to send it, and sent by `deliver`, the mail job, in every server process:
// each message claimed by one sender, retried with a doubling pause when the server refuses or
// cannot be reached, given up on after MAX_ATTEMPTS. `kick` sends at once what was just queued.

/** A message's content: what is sealed until it is sent. */
export type MailContent = Omit<Mail, "to">;

/** What seals a message at rest (the master key's SecretBox). */
export interface Sealer {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export interface MailerOptions {
  storage: Storage;
  box: Sealer;
  transport: MailTransport;
  now?: Clock;
  log?: MailLog;
}

export interface MailLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Attempts before a message is given up on (about a day of retries). */
export const MAX_ATTEMPTS = 10;

/** The pause after the `attempt`-th failure: 30 s, doubling, at most 4 hours. */
export const mailRetryDelay = (attempt: number) => Math.min(30_000 * 2 ** (attempt - 1), 4 * 60 * 60_000);

/** Messages a sender claims at a time, and how long a claim lasts. */
const BATCH = 20;
const CLAIM_MS = 2 * 60_000;

const sealContext = (id: string) => `mail:${id}`;

export class Mailer {
  private readonly now: Clock;
  private log: MailLog | undefined;
  private readonly kicker = new Kicker(
    () => this.deliver(),
    (error) => this.log?.warn({ err: error }, "mail could not be sent now: tried again by the mail job"),
  );

  constructor(private readonly options: MailerOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.log;
  }

  /** Where messages go, for the start-up log. */
  get destination(): string {
    return this.options.transport.describe;
  }

  useLog(log: MailLog): void {
    this.log = log;
  }

  /** Queues a message to `to`; sent by the next `deliver` (at once, after `kick`). */
  async queue(
    kind: string,
    to: string,
    content: MailContent,
    businessId: string | null = null,
  ): Promise<string> {
    const id = `mail_${randomUUID().replaceAll("-", "")}`;
    const now = isoNow(this.now);
    await queueMail(this.options.storage.db, {
      id,
      kind,
      recipient: to,
      business_id: businessId,
      sealed: this.options.box.seal(JSON.stringify(content), sealContext(id)),
      status: "queued",
      attempts: 0,
      next_attempt_at: now,
      claimed_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    });
    return id;
  }

  /** Sends what is due now, not at the mail job's next interval (a message just queued). */
  kick(): void {
    this.kicker.kick();
  }

  /** Waits for a pass in flight (a graceful shutdown, tests). */
  idle(): Promise<void> {
    return this.kicker.idle();
  }

  /** The mail job: sends every message due, a batch at a time; answers how many were sent. */
  async deliver(): Promise<number> {
    const { storage, box, transport } = this.options;
    let sent = 0;
    for (;;) {
      const now = this.now();
      const due = await claimDueMail(
        storage.db,
        new Date(now).toISOString(),
        new Date(now + CLAIM_MS).toISOString(),
        BATCH,
      );
      for (const row of due) {
        if (row.sealed === null) continue;
        const content = JSON.parse(box.open(row.sealed, sealContext(row.id))) as MailContent;
        try {
          await transport.send({ to: row.recipient, ...content });
          await markMailSent(storage.db, row.id, isoNow(this.now));
          sent++;
          this.log?.info({ mailId: row.id, kind: row.kind }, "mail sent");
        } catch (error) {
          const attempts = row.attempts + 1;
          const message = (error as Error).message.slice(0, 500);
          const next =
            attempts >= MAX_ATTEMPTS
              ? undefined
              : new Date(this.now() + mailRetryDelay(attempts)).toISOString();
          await markMailUnsent(storage.db, row.id, attempts, message, next);
          this.log?.warn(
            { mailId: row.id, kind: row.kind, attempts, error: message },
            next ? "mail not sent: tried again later" : "mail given up on after its attempts",
          );
        }
      }
      if (due.length < BATCH) return sent;
    }
  }
}
