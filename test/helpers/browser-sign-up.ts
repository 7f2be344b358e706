import type { Page } from "playwright-core";
import { lastMail, linkIn, pathOf } from "./mail-files.js";

/** What signing up in a browser reads the confirmation mail from: the data directory and the mailer. */
export interface MailSource {
  dir: string;
  mailer: { idle(): Promise<void> };
}

/**
 * Signs a business up in the browser as a person does: the form, then the link from the mail,
 * then the confirmation button; the page ends on Verification, signed in.
 */
export async function signUpInBrowser(
  page: Page,
  origin: string,
  mail: MailSource,
  input: { businessName: string; email: string; password: string },
): Promise<void> {
  await page.goto(`${origin}/dashboard/signup`);
  await page.getByLabel("Business name").fill(input.businessName);
  await page.getByLabel("Your email").fill(input.email);
  await page.getByLabel("Password").fill(input.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByText("Check your email.").waitFor();
  const confirmation = await lastMail(mail, input.email, "Confirm your email to create your account");
  await page.goto(`${origin}${pathOf(linkIn(confirmation, "http"))}`);
  await page.getByRole("button", { name: "Confirm and create my account" }).click();
  await page.getByRole("heading", { name: "Verification", level: 1 }).waitFor();
}
