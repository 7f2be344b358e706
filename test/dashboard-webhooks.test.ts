import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { createDeliveryWorker } from "../src/compose/server.js";
import type { DeliveryWorker } from "../src/webhooks/delivery-worker.js";
import { launchBrowser, listenOnLoopback, skipWithoutBrowser as skip } from "./helpers/browser.js";
import { signUpInBrowser } from "./helpers/browser-sign-up.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { type Receiver, startReceiver } from "./helpers/receiver.js";

// Webhooks from the dashboard (issues 13 and 18), in a real browser, to real receivers on real
// ports, with the delivery worker running as the server runs it.

const PASSWORD = "correct horse battery staple 42";
const silent = { info: () => {}, warn: () => {} };

for (const dialect of DIALECTS) {
  describe(`webhooks in the dashboard on ${dialect}`, { skip }, () => {
    let h: Harness;
    let browser: Browser;
    let origin: string;
    let worker: DeliveryWorker;
    let healthy: Receiver;
    let gone: Receiver;
    let page: Page;

    before(async () => {
      h = await createHarness({
        dialect,
        env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0", WEBHOOK_POLL_INTERVAL_MS: "50" },
      });
      origin = await listenOnLoopback(h.app);
      worker = createDeliveryWorker(h.services, silent);
      worker.start();
      healthy = await startReceiver();
      gone = await startReceiver();
      gone.answer = () => ({ status: 410 });
      browser = await launchBrowser();
      page = await (await browser.newContext()).newPage();
      await signUpInBrowser(
        page,
        origin,
        { dir: h.dir, mailer: h.services.mailer },
        {
          businessName: "Hook Foods",
          email: `owner.${dialect}@hookfoods.example`,
          password: PASSWORD,
        },
      );
    });

    after(async () => {
      await browser?.close();
      await worker?.stop();
      await healthy?.close();
      await gone?.close();
      await h?.close();
    });

    /** Adds an endpoint from the page; returns its signing secret, shown once. */
    async function addEndpoint(url: string): Promise<string> {
      await page.goto(`${origin}/dashboard/webhooks`);
      await page.getByLabel("URL").fill(url);
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByText("this is the only time it is shown").waitFor();
      return (await page.locator("#webhook-secret").innerText()).trim();
    }

    test("an endpoint added in the dashboard gets a test event, signed with the secret shown once", async () => {
      const secret = await addEndpoint(healthy.url);
      await page.getByRole("link", { name: "I have copied it: back to webhooks" }).click();
      await page.getByRole("button", { name: `Send test event for ${healthy.url}` }).click();
      assert.match(await page.getByRole("status").innerText(), /webhook\.test event is queued/);
      await waitFor(() => healthy.received.length > 0);
      const delivery = healthy.received[0];
      assert.ok(delivery);
      const verified = new Webhook(secret).verify(
        delivery.body,
        delivery.headers as Record<string, string>,
      ) as {
        type: string;
      };
      assert.equal(verified.type, "webhook.test");

      // Its delivery and attempt show in the log.
      await page.goto(`${origin}/dashboard/webhooks`);
      await page.getByRole("link", { name: "webhook.test" }).click();
      await waitFor(async () => {
        await page.reload();
        return /delivered/.test(await page.getByRole("table").first().innerText());
      });
      assert.match(await page.getByRole("table", { name: "Every delivery attempt" }).innerText(), /200/);
      await page.getByRole("button", { name: "Deliver again" }).click();
      assert.match(await page.getByRole("status").innerText(), /Queued again/);
      await waitFor(() => healthy.received.length > 1);
      assert.equal(
        healthy.received[1]?.headers["webhook-id"],
        delivery.headers["webhook-id"],
        "the same webhook-id",
      );
    });

    test("an endpoint that answers 410 is disabled: the dashboard says so, and endpoint.disabled reaches the others", async () => {
      await addEndpoint(gone.url);
      await page.goto(`${origin}/dashboard/webhooks`);
      await page.getByRole("button", { name: `Send test event for ${gone.url}` }).click();
      await waitFor(async () => {
        await page.goto(`${origin}/dashboard/webhooks`);
        return (await page.getByRole("alert").count()) > 0;
      });
      assert.match(await page.getByRole("alert").innerText(), new RegExp(`Disabled: ${gone.url}`));
      assert.match(
        await page.getByRole("table", { name: "Recent events, newest first" }).innerText(),
        /endpoint\.disabled/,
      );
      await waitFor(() => healthy.received.some((r) => r.body.includes('"endpoint.disabled"')));
      // Repaired before it is enabled: endpoint.enabled goes to it too, and a 410 would disable it
      // again before the page is read.
      gone.answer = () => ({ status: 200 });
      await page.getByRole("button", { name: `Enable for ${gone.url}` }).click();
      await page.getByRole("button", { name: `Disable for ${gone.url}` }).waitFor();
      assert.equal(await page.getByRole("alert").count(), 0, "enabled again");
      assert.match(
        await page.getByRole("table", { name: "Recent events, newest first" }).innerText(),
        /endpoint\.enabled/,
      );
      // Removing asks for a tick first; then it is gone, and the page says so.
      const row = page.getByRole("row").filter({ hasText: gone.url });
      await row.getByRole("button", { name: `Remove for ${gone.url}` }).click();
      assert.match(await page.getByRole("alert").innerText(), /Tick the box beside Remove to confirm/);
      await page
        .getByRole("row")
        .filter({ hasText: gone.url })
        .getByRole("checkbox", { name: "Yes, remove it" })
        .check();
      await page
        .getByRole("row")
        .filter({ hasText: gone.url })
        .getByRole("button", { name: `Remove for ${gone.url}` })
        .click();
      assert.match(await page.getByRole("status").innerText(), /The endpoint is removed/);
      assert.equal(await page.getByRole("row").filter({ hasText: gone.url }).count(), 0);
    });
  });
}

/** Polls until `ready` holds; a bound, not a measurement, so a stuck worker fails the test. */
async function waitFor(ready: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("not ready after 10 s");
}
