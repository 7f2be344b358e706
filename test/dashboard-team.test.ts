import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { openRecordingPage, signInInBrowser, skipWithoutBrowser as skip } from "./helpers/browser.js";
import { signUpInBrowser } from "./helpers/browser-sign-up.js";
import { browserSuite } from "./helpers/browser-suite.js";
import { DIALECTS } from "./helpers/databases.js";
import { lastMail, linkIn, pathOf } from "./helpers/mail-files.js";
import { signedUpOwner } from "./helpers/members.js";
import { enrolAuthenticator } from "./helpers/two-factor.js";

// A business's team in a real browser (issue 28, item 3), on each database: the owner invites,
// the member joins from the mailed link and sees only what their role allows, and the server
// refuses what the page does not offer.

const PASSWORD = "correct horse battery staple 42";
const MEMBER_PASSWORD = "kano market before the rains 8";
const OPERATOR_PASSWORD = "lagos harbour ferry at dawn 7";

for (const dialect of DIALECTS) {
  describe(`the team in a browser on ${dialect}`, { skip }, () => {
    const suite = browserSuite({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });

    test("an invited viewer joins from the mailed link, sees no button they cannot use, and the server refuses their POST", async () => {
      const { h, browser, origin } = suite;
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

    test("an operator resets a user's lost two-factor from the console: confirmed, audited, the user mailed", async () => {
      const { h, browser, origin } = suite;
      const email = `lost.${dialect}@phone.example`;
      const user = await signedUpOwner(h.services, {
        businessName: "Lost Phone Ltd",
        email,
        password: PASSWORD,
      });
      const { secret } = await h.services.secondFactor.beginTotp(user.id);
      await h.services.secondFactor.confirmTotp(user.id, totpCode(secret, Date.now()), PASSWORD);
      const operatorEmail = `ops.reset.${dialect}@example.com`;
      const created = await h.services.users.createOperator(operatorEmail, OPERATOR_PASSWORD);
      // Operators sign in with two factors (issue 43).
      const operatorSecret = await enrolAuthenticator(h.services.secondFactor, created.id, OPERATOR_PASSWORD);

      const operator = await openRecordingPage(browser);
      await signInInBrowser(operator.page, origin, {
        email: operatorEmail,
        password: OPERATOR_PASSWORD,
        code: () => totpCode(operatorSecret, Date.now()),
        path: "/admin/login",
      });
      await operator.page.goto(`${origin}/admin/businesses/${user.businessId}`);
      await operator.page.getByRole("heading", { name: "People" }).waitFor();
      // Without the tick the server refuses, and says why.
      await operator.page.getByRole("button", { name: "Reset two-factor sign-in" }).click();
      assert.match(
        await operator.page.getByRole("alert").innerText(),
        /Tick the box to confirm you checked who is asking/,
      );
      assert.equal((await h.services.users.getUser(user.id)).totpEnabled, true);
      await operator.page.getByRole("checkbox", { name: /I checked who is asking/ }).check();
      await operator.page.getByRole("button", { name: "Reset two-factor sign-in" }).click();
      assert.match(
        await operator.page.getByRole("status").innerText(),
        /Two-factor sign-in is off for that user/,
      );
      assert.equal((await h.services.users.getUser(user.id)).totpEnabled, false);
      const mail = await lastMail(
        { dir: h.dir, mailer: h.services.mailer },
        email,
        "Two-factor sign-in was turned off for your account",
      );
      assert.match(mail.text ?? "", /An operator turned two-factor sign-in off/);
      const audit = await h.services.users.activity(await h.services.users.getUser(user.id));
      assert.ok(
        audit.some(
          (entry) => entry.action === "totp.reset_by_operator" && entry.actorEmail === operatorEmail,
        ),
      );
      assert.deepEqual(operator.problems, []);
      await operator.context.close();
    });
  });
}
