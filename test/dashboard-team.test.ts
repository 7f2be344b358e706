import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import {
  launchBrowser,
  listenOnLoopback,
  openRecordingPage,
  skipWithoutBrowser as skip,
} from "./helpers/browser.js";
import { signUpInBrowser } from "./helpers/browser-sign-up.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { lastMail, linkIn, pathOf } from "./helpers/mail-files.js";

// A business's team in a real browser (issue 28, item 3), on each database: the owner invites,
// the member joins from the mailed link and sees only what their role allows, and the server
// refuses what the page does not offer.

const PASSWORD = "correct horse battery staple 42";
const MEMBER_PASSWORD = "kano market before the rains 8";

for (const dialect of DIALECTS) {
  describe(`the team in a browser on ${dialect}`, { skip }, () => {
    let h: Harness;
    let browser: Browser;
    let origin: string;

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      origin = await listenOnLoopback(h.app);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await h?.close();
    });

    test("an invited viewer joins from the mailed link, sees no button they cannot use, and the server refuses their POST", async () => {
      const owner = await openRecordingPage(browser);
      const ownerEmail = `owner.${dialect}@teamfoods.example`;
      const viewerEmail = `viewer.${dialect}@teamfoods.example`;
      await signUpInBrowser(
        owner.page,
        origin,
        { dir: h.dir, mailer: h.services.mailer },
        { businessName: "Team Foods", email: ownerEmail, password: PASSWORD },
      );
      await owner.page.getByRole("link", { name: "Team" }).click();
      await owner.page.getByLabel("Their email").fill(viewerEmail);
      await owner.page.getByLabel("Role", { exact: true }).selectOption("viewer");
      await owner.page.getByRole("button", { name: "Send the invitation" }).click();
      assert.match(await owner.page.getByRole("status").innerText(), /The invitation is mailed/);
      assert.match(owner.page.url(), /\/dashboard\/team\?done=invited$/, "the form ended in a redirect");
      await owner.page.getByRole("cell", { name: viewerEmail, exact: true }).waitFor();

      const invitation = await lastMail(
        { dir: h.dir, mailer: h.services.mailer },
        viewerEmail,
        /^Join Team Foods/,
      );
      assert.match(
        invitation.text ?? "",
        new RegExp(`${ownerEmail} invited ${viewerEmail} to join Team Foods's team as Viewer`),
      );
      const viewer = await openRecordingPage(browser);
      await viewer.page.goto(`${origin}${pathOf(linkIn(invitation, "http"))}`);
      await viewer.page.getByLabel("Password").fill(MEMBER_PASSWORD);
      await viewer.page.getByLabel("The same again").fill(MEMBER_PASSWORD);
      await viewer.page.getByRole("button", { name: "Join Team Foods" }).click();
      await viewer.page.getByRole("heading", { name: "Team Foods", level: 1 }).waitFor();

      await viewer.page.getByRole("link", { name: "API keys" }).click();
      await viewer.page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
      assert.equal(await viewer.page.getByRole("button", { name: "Create a key pair" }).count(), 0);
      await viewer.page.getByRole("link", { name: "Team" }).click();
      await viewer.page
        .getByRole("cell", { name: new RegExp(`^${ownerEmail}`) })
        .first()
        .waitFor();
      assert.equal(await viewer.page.getByRole("button", { name: "Send the invitation" }).count(), 0);
      assert.equal(await viewer.page.getByRole("button", { name: /^Remove/ }).count(), 0);

      // The form the page does not show, sent anyway from the page (its own CSRF token): 403.
      const forged = await viewer.page.evaluate(async () => {
        const doc = (globalThis as unknown as { document: { querySelector(s: string): { value: string } } })
          .document;
        const csrf = doc.querySelector('input[name="_csrf"]').value;
        const answer = await fetch("/dashboard/keys", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: csrf }).toString(),
        });
        return { status: answer.status, text: await answer.text() };
      });
      assert.equal(forged.status, 403);
      assert.match(forged.text, /Your role as viewer does not allow this/);
      const business = await h.services.users.businessUserByEmail(ownerEmail);
      assert.deepEqual(await h.services.businesses.listKeys(business.businessId as string), []);
      assert.deepEqual([...owner.problems, ...viewer.problems], []);
      await owner.context.close();
      await viewer.context.close();
    });
  });
}
