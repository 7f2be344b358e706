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
