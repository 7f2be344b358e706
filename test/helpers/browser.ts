import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { type Browser, chromium } from "playwright-core";

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
