import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser, listenOnLoopback, skipWithoutBrowser as skip } from "./helpers/browser.js";
import { createHarness, type Harness } from "./helpers/harness.js";

describe("GET /docs in a browser", { skip }, () => {
  let h: Harness;
  let browser: Browser;
  let origin: string;

  before(async () => {
    h = await createHarness();
    origin = await listenOnLoopback(h.app);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test("shows every operation, loading nothing from anywhere but this server", async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    try {
      const response = await page.goto(`${origin}/docs`);
      assert.equal(response?.status(), 200);
      await page.locator(".opblock-summary-path").nth(2).waitFor({ timeout: 30_000 });
      await page.waitForLoadState("networkidle");

      const operations = await page
        .locator(".opblock-summary")
        .evaluateAll((summaries) =>
          summaries.map(
            (summary) =>
              `${summary.querySelector(".opblock-summary-method")?.textContent} ${summary.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
          ),
        );
      // The list of operations itself is pinned in openapi.test.ts; here the page must show all of them.
      const document = (await (await fetch(`${origin}/docs/json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const documented = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      assert.ok(documented.includes("POST /account/generate") && documented.includes("GET /webhooks"));
      assert.deepEqual(operations.sort(), documented.sort());
      assert.match(await page.locator(".info .title").innerText(), /Virtual Account Service API/);

      assert.ok(requested.length > 1, "the page loaded its assets");
      const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`));
      assert.deepEqual(elsewhere, [], "every request goes to this server");
      assert.ok(requested.includes(`${origin}/docs/json`), "the document comes from this server");
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test("an operation opened at phone width fits the screen", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    try {
      await page.goto(`${origin}/docs`);
      await page.getByRole("button", { name: /POST \/sandbox\/transfers/ }).click();
      await page.getByRole("heading", { name: "Responses" }).first().waitFor();
      const width = await page.locator("html").evaluate((html) => html.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide`);
    } finally {
      await page.close();
    }
  });
});
