import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";

/** The mails written to `DATA_DIR/mail` (no SMTP_URL) to `to`, oldest first, parsed. */
export async function mailsTo(dataDir: string, to: string): Promise<ParsedMail[]> {
  const dir = path.join(dataDir, "mail");
  if (!existsSync(dir)) return [];
  const parsed = await Promise.all(
    readdirSync(dir)
      .filter((name) => name.endsWith(".eml"))
      .sort()
      .map((name) => simpleParser(readFileSync(path.join(dir, name)))),
  );
  return parsed.filter((mail) => JSON.stringify(mail.to ?? "").includes(to));
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ParsedMail | undefined, prefix: string): string {
  const link = (mail?.text ?? "").split(/\s+/).find((word) => word.startsWith(prefix));
  if (!link) throw new Error(`no link starting ${prefix} in: ${mail?.text}`);
  return link;
}

/** The newest mail to `to` with `subject`, once the mailer has sent what it holds. */
export async function lastMail(
  mail: { dir: string; mailer: { idle(): Promise<void> } },
  to: string,
  subject: string | RegExp,
): Promise<ParsedMail> {
  await mail.mailer.idle();
  const found = (await mailsTo(mail.dir, to)).filter((m) =>
    typeof subject === "string" ? m.subject === subject : subject.test(m.subject ?? ""),
  );
  const newest = found.at(-1);
  if (!newest) throw new Error(`no mail "${subject}" to ${to}`);
  return newest;
}

/** A mailed link, as a path and query on this server (the mail's PUBLIC_URL may differ). */
export function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** Waits (up to `timeoutMs`) until `count` mails to `to` are written, by this process or another. */
export async function waitForMails(
  dir: string,
  to: string,
  count: number,
  timeoutMs = 15_000,
): Promise<ParsedMail[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const mails = await mailsTo(dir, to);
    if (mails.length >= count) return mails;
    if (Date.now() > until)
      throw new Error(`${mails.length} of ${count} mails to ${to} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
