import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { CLI } from "../src/core/actor.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// The console says what an action did (issue 43, item 8): approving, rejecting and suspending a
// business, and resetting a member's two-factor sign-in, each land on the business's page with a
// notice at its top, as other done notices are (`?done=`, the page's own words).

const PASSWORD = "correct horse battery staple 42";

for (const dialect of DIALECTS) {
  describe(`the console's done notices on ${dialect}`, () => {
    let h: Harness;
    let operator: ReturnType<typeof pageClient>;
    // Each two-factor code a test needs is a new step of the service's clock.
    let offset = 0;
    const now = () => Date.now() + offset;

    before(async () => {
      h = await createHarness({ dialect, now, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      const email = `ops.${dialect}@notices.example`;
      const ops = await h.services.users.createOperator(email, PASSWORD);
      // An operator with their own second factor, as admin actions ask (issue 43).
      const { secret } = await h.services.secondFactor.beginTotp(ops.id);
      const code = () => {
        offset += 30_000;
        return totpCode(secret, now());
      };
      await h.services.secondFactor.confirmTotp(ops.id, code(), PASSWORD);
      operator = pageClient(h.app);
      assert.equal((await operator.signIn("/admin", email, PASSWORD)).statusCode, 303);
      const codePage = await operator.get("/admin/login/code");
      const verified = await operator.post("/admin/login/code", {
        _csrf: codePage.token ?? "",
        code: code(),
      });
      assert.equal(verified.statusCode, 303, verified.body);
    });
    after(() => h.close());

    /** Sends a console form from the business's page; the page it lands on. */
    async function act(businessId: string, action: string, form: Record<string, string> = {}) {
      const path = `/admin/businesses/${businessId}`;
      const { token } = await operator.get(path);
      const sent = await operator.post(`${path}/${action}`, { _csrf: token ?? "", ...form });
      assert.equal(sent.statusCode, 303, sent.body);
      const location = sent.headers.location as string;
      assert.ok(location.startsWith(`${path}?done=`), location);
      return (await operator.get(location)).response.body;
    }
    const notice = (body: string) => /<div class="notice" role="status">([^<]*)<\/div>/.exec(body)?.[1];

    test("approve, suspend and reject each say that they were done", async () => {
      const user = await signedUpOwner(h.services, {
        businessName: "Notice Foods",
        email: `owner.${dialect}@noticefoods.example`,
        password: PASSWORD,
      });
      const businessId = user.businessId as string;
      const details = {
        registeredName: "Notice Foods Limited",
        rcNumber: "RC7654321",
        address: "3 Broad Street, Lagos Island, Lagos",
        contactName: "Amaka Obi",
        contactEmail: "amaka@noticefoods.example",
        contactPhone: "+2348031234567",
      };
      await h.services.profiles.submit(businessId, CLI, details);
      assert.match(
        notice(await act(businessId, "approve")) ?? "",
        /^The business is verified: its API keys work\./,
      );
      assert.match(
        notice(await act(businessId, "suspend", { reason: "Documents expired" })) ?? "",
        /^The business is suspended/,
      );
      await h.services.profiles.submit(businessId, CLI, details);
      assert.match(
        notice(await act(businessId, "reject", { reason: "The RC number is not the company's" })) ?? "",
        /^The submitted details are rejected/,
      );
      // A page opened afresh says nothing.
      assert.equal(notice((await operator.get(`/admin/businesses/${businessId}`)).response.body), undefined);
    });

    test("a member's two-factor reset says that it was done", async () => {
      const user = await signedUpOwner(h.services, {
        businessName: "Reset Notice Ltd",
        email: `owner.${dialect}@resetnotice.example`,
        password: PASSWORD,
      });
      const { secret } = await h.services.secondFactor.beginTotp(user.id);
      offset += 30_000;
      await h.services.secondFactor.confirmTotp(user.id, totpCode(secret, now()), PASSWORD);
      const body = await act(user.businessId as string, `users/${user.id}/reset-two-factor`, {
        confirm: "yes",
      });
      assert.equal(
        notice(body),
        "Two-factor sign-in is off for that user, their sessions have ended, and they were mailed.",
      );
      assert.equal((await h.services.users.getUser(user.id)).totpEnabled, false);
    });
  });
}
