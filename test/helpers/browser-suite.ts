import { after, before } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser, listenOnLoopback } from "./browser.js";
import { createHarness, type Harness, type HarnessOptions } from "./harness.js";

/** What a browser suite's tests share, set once its `before` has run. */
export interface BrowserSuite {
  h: Harness;
  browser: Browser;
  /** The app's origin on a loopback port. */
  origin: string;
}

/**
 * Registers, in the calling `describe`, a harness listening on a loopback port and a headless
 * Chromium before its tests, and their closing after them.
 */
export function browserSuite(options: HarnessOptions): BrowserSuite {
  const suite = {} as BrowserSuite;
  before(async () => {
    suite.h = await createHarness(options);
    suite.origin = await listenOnLoopback(suite.h.app);
    suite.browser = await launchBrowser();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.h?.close();
  });
  return suite;
}
