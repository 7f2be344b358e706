import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";

// Outgoing mail (issue 28): SMTP through nodemailer, or, in development and tests without
// SMTP_URL, each message written as an .eml file (what an SMTP server would have received) so
// that its links can be followed by hand.

/** One message, in plain text and HTML (no remote images: nothing a mail client fetches). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends one message; throws when the server refuses it or cannot be reached (the outbox tries again). */
export interface MailTransport {
  send(mail: Mail): Promise<void>;
  /** Where messages go, for the start-up log (an SMTP host, or a directory). */
  readonly describe: string;
  close(): void;
}

/** How long a send waits for each step (issue 44): a server that never answers fails in seconds. */
export interface SmtpWaits {
  connectMs: number;
  greetingMs: number;
  commandMs: number;
}

/** SMTP at `url` (smtp:// or smtps://, credentials in it), every message from `from`. */
export function smtpTransport(url: string, from: string, waits: SmtpWaits): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    connectionTimeout: waits.connectMs,
    greetingTimeout: waits.greetingMs,
    socketTimeout: waits.commandMs,
  });
  const { host, port } = new URL(url);
  return {
    describe: `SMTP at ${host}:${port || "default port"}`,
    async send(mail) {
      await transporter.sendMail({ from, ...mail });
    },
    close: () => transporter.close(),
  };
}

/** Each message as an .eml file in `dir` (made when the first is written). */
export function fileTransport(dir: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    describe: `files in ${dir}`,
    async send(mail) {
      const { message } = (await transporter.sendMail({ from, ...mail })) as { message: Buffer };
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replaceAll(":", "-")}-${randomUUID().slice(0, 8)}.eml`;
      writeFileSync(path.join(dir, name), message, { mode: 0o600 });
    },
    close: () => transporter.close(),
  };
}
