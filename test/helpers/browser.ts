import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

// Debian's Chromium (.ci/run installs it): pages are checked in a real browser, on a real port.
export const CHROMIUM = "/usr/bin/chromium";

/** False, or why a browser suite is skipped: in CI a missing browser fails it rather than skipping it. */
export const skipWithoutBrowser: false | string =
  existsSync(CHROMIUM) || process.env.CI ? false : `${CHROMIUM} is missing (apt-get install chromium)`;

/** Headless Chromium with no background traffic (this machine's network is closed). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Listens on a free loopback port; resolves with the origin. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A page in a fresh browser profile (its own cookies), and what it loaded and what went wrong. */
export interface RecordingPage {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for. */
  requested: string[];
  /** Script errors and console errors (a CSP violation among them). */
  problems: string[];
}

/**
 * Opens a page that records what it loads and every script or console error; a refused form's
 * 4xx answer, logged by the browser as a failed resource, is what a test means, not a problem.
 */
export async function openRecordingPage(browser: Browser): Promise<RecordingPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
  });
  return { context, page, requested, problems };
}

/** Who signs in, and where. */
export interface BrowserSignIn {
  email: string;
  password: string;
  /** The second factor, when the account asks for one: called once the page asks (a code is of its moment). */
  code?: () => string;
  /** The sign-in page: the dashboard's (default) or the console's, `/admin/login`. */
  path?: string;
}

/**
 * Signs in as a person does: the sign-in page, the email and the password, the button, then the
 * second factor's code when one is given. Where the page lands is the caller's to check.
 */
export async function signInInBrowser(
  page: Page,
  origin: string,
  { email, password, code, path = "/dashboard/login" }: BrowserSignIn,
): Promise<void> {
  await page.goto(`${origin}${path}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  if (code === undefined) return;
  await page.getByLabel("Code").fill(code());
  await page.getByRole("button", { name: "Continue" }).click();
}
