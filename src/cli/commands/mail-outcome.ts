import { MAIL_QUEUED_WORDS, type Mailer } from "../../mail/mailer.js";

// What a command that mails says of its mail (issue 44): the truth after a bounded wait. A mail
// server that never answers (a firewall that drops, a relay that hangs) leaves the message in
// the outbox, where the service's mail job tries again by its schedule; the command never says
// "mailed" for a message the server did not accept.

/** The message a command queued: sent, queued (the server did not answer in time), or none. */
export type MailSaid = "sent" | "queued" | "none";

/** Words for a queued message, the same on every command and the console. */
export const QUEUED_WORDS = MAIL_QUEUED_WORDS;

/** Runs `work` and waits at most MAIL_WAIT_MS for the mail it queued: its result, and what became of that mail. */
export async function withMail<T>(
  services: { mailer: Mailer; config: { mail: { waitMs: number } } },
  work: () => Promise<T>,
): Promise<{ result: T; mail: MailSaid }> {
  const { result, mail } = await services.mailer.sending(work, services.config.mail.waitMs);
  return { result, mail: saidOf(mail) };
}

/** A mail outcome in one word. */
export const saidOf = ({ sent, waiting }: { sent: number; waiting: number }): MailSaid =>
  waiting > 0 ? "queued" : sent > 0 ? "sent" : "none";
