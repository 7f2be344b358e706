import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import { Kicker } from "../jobs/kicker.js";
import type { Mail, MailTransport } from "../providers/mail-transport.js";
import type { Storage } from "../storage/database.js";
import {
  claimDueMail,
  countSentMail,
  countWaitingMail,
  markMailSent,
  markMailUnsent,
  queueMail,
} from "../storage/mail-repository.js";

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

/** A message claimed for sending, as storage's claim answers it (sealed null: sent or given up on). */
interface ClaimedMail {
  id: string;
  kind: string;
  recipient: string;
  sealed: string | null;
  attempts: number;
}

export interface MailerOptions {
  storage: Storage;
  box: Sealer;
  transport: MailTransport;
  now?: Clock;
  log?: MailLog;
  /** Told of each attempt's outcome (the metrics: failed attempts are counted). */
  onAttempt?: (outcome: "sent" | "failed") => void;
}

/** Words for a message still queued after its bounded wait, the same on the CLI and the console. */
export const MAIL_QUEUED_WORDS =
  "queued: the mail server did not answer; the service will retry (see the outbox)";

/** What became of the messages a command queued, once it has waited for them. */
export interface MailOutcome {
  sent: number;
  /** Queued still: the mail server did not answer in time, or refused; the outbox tries again. */
  waiting: number;
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

  /** The messages queued by the work `sending` runs, per call. */
  private readonly scope = new AsyncLocalStorage<string[]>();

  constructor(private readonly options: MailerOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.log;
  }

  /**
   * Runs `work`, then sends the mail it queued and waits at most `waitMs` for it (issue 44): its
   * result, and how many of its messages went and how many still wait in the outbox (the server
   * did not answer in time, or refused), so that a command or a page says what is true. What
   * waits is sent by the mail job, by its schedule.
   */
  async sending<T>(work: () => Promise<T>, waitMs: number): Promise<{ result: T; mail: MailOutcome }> {
    const ids: string[] = [];
    const result = await this.scope.run(ids, work);
    return { result, mail: await this.settle(ids, waitMs) };
  }

  private async settle(ids: readonly string[], waitMs: number): Promise<MailOutcome> {
    if (ids.length === 0) return { sent: 0, waiting: 0 };
    this.kick();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
    const sent = await countSentMail(this.options.storage.db, ids);
    return { sent, waiting: ids.length - sent };
  }

  /** How many messages wait to be sent (queued, not given up on): the metrics' gauge. */
  waiting(): Promise<number> {
    return countWaitingMail(this.options.storage.db);
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
    // Due at once, never tried: storage's queueMail maps the message's fields to its columns.
    await queueMail(this.options.storage.db, {
      id,
      kind,
      recipient: to,
      businessId,
      sealed: this.options.box.seal(JSON.stringify(content), sealContext(id)),
      createdAt: now,
    });
    this.scope.getStore()?.push(id);
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
      const due: ClaimedMail[] = await claimDueMail(
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
          this.options.onAttempt?.("sent");
          this.log?.info({ mailId: row.id, kind: row.kind }, "mail sent");
        } catch (error) {
          const attempts = row.attempts + 1;
          const message = (error as Error).message.slice(0, 500);
          const next =
            attempts >= MAX_ATTEMPTS
              ? undefined
              : new Date(this.now() + mailRetryDelay(attempts)).toISOString();
          await markMailUnsent(storage.db, row.id, attempts, message, next);
          this.options.onAttempt?.("failed");
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
