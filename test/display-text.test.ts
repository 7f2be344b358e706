import assert from "node:assert/strict";
import type { KeyObject } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import { BANK_NOTIFICATIONS_PATH } from "../src/http/routes/bank-notifications.js";
import { NOTIFICATION_LIMITS } from "../src/providers/bank-protocol.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { type BankAndService, startBankAndService } from "./helpers/bank-service.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { signedBankNotification } from "./helpers/notifications.js";

// Issue 24, items 5 and 7: narrations (sandbox and bank), verification profile fields and
// rejection reasons follow the display-text rule the names follow (no control characters, no
// bidi controls). Sent to the service by a person, a bad value is a 400; sent by the bank, it
// is cleaned, because refusing it would reverse a payment. A narration too long after NFC is
// cut, never refused, on both routes.

/** U+0958 DEVANAGARI LETTER QA: a composition exclusion, so NFC makes each one two code units. */
const QA = "\u0958";
const QA_NFC = "\u0915\u093c";
const APP_ID = "display-text";

for (const dialect of DIALECTS) {
  describe(`display text through the API and the dashboard's services on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let number: string;
    before(async () => {
      h = await createHarness({ dialect, env: { SANDBOX: "true" } });
      business = await h.createBusiness({ name: "Narrated" });
      number = (await h.request({ url: `${API}/account/generate`, body: customer(), as: business })).json()
        .data.accountNumber;
    });
    after(() => h.close());

    const pay = (narration: string) =>
      h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber: number, amount: 100, narration },
        as: business,
      });

    test("a sandbox narration too long after NFC is cut at a character boundary, not refused", async () => {
      const paid = await pay(QA.repeat(NOTIFICATION_LIMITS.narration));
      assert.equal(paid.statusCode, 201, paid.body);
      assert.equal(paid.json().data.narration, QA_NFC.repeat(NOTIFICATION_LIMITS.narration / 2));
      const long = await pay(`  ${"n".repeat(500)}  `);
      assert.equal(long.statusCode, 201, long.body);
      assert.equal(long.json().data.narration, "n".repeat(NOTIFICATION_LIMITS.narration));
    });

    test("a sandbox narration with a control, bidi or broken character is a 400, never a 500", async () => {
      for (const [narration, message] of [
        ["Invoice\n7", "narration must not contain control characters"],
        ["nul\u0000byte", "narration must not contain control characters"],
        ["\u001b[2JInvoice", "narration must not contain control characters"],
        ["Invoice \u202e7", "narration must not contain bidirectional control characters"],
        ["\u2066Invoice\u2069", "narration must not contain bidirectional control characters"],
        ["lone \ud800", "narration must not contain unpaired surrogates (it must be valid Unicode text)"],
      ] as const) {
        assertValidation(await pay(narration), message);
      }
    });

    test("verification profile fields: control and bidi characters refused, line breaks folded", async () => {
      const applicant = await h.createBusiness({ name: "Applicant", status: "not_submitted" });
      const profile = {
        registeredName: "Applicant Ltd",
        rcNumber: "RC1234567",
        address: "1 Marina\r\nLagos",
        contactName: "Ada Obi",
        contactEmail: "ada@example.com",
        contactPhone: "+2348012345678",
      };
      for (const [field, value, message] of [
        ["registeredName", "Applicant\u0000 Ltd", "Registered name must not contain control characters"],
        [
          "address",
          "1 Marina \u202eLagos",
          "Registered address must not contain bidirectional control characters",
        ],
        ["contactName", "Ada\u001b[31m Obi", "Contact person must not contain control characters"],
        ["contactName", "Ada \udc00", "Contact person must not contain unpaired surrogates"],
      ] as const) {
        await assert.rejects(
          h.services.profiles.submit(applicant.businessId, CLI, { ...profile, [field]: value }),
          {
            statusCode: 400,
            message: new RegExp(message.replace(/[()]/g, "\\$&")),
          },
        );
      }
      await h.services.profiles.submit(applicant.businessId, CLI, profile);
      const stored = await h.services.profiles.find(applicant.businessId);
      assert.equal(stored?.address, "1 Marina Lagos");
    });

    test("a rejection reason: control and bidi characters are a 400 and nothing changes", async () => {
      const suspect = await h.createBusiness({ name: "Suspect" });
      for (const reason of ["fraud\u0000", "\u202edetcepsus", "see \u009b2J"]) {
        await assert.rejects(
          h.services.businesses.setVerificationStatus(suspect.businessId, "rejected", CLI, reason),
          {
            statusCode: 400,
          },
        );
      }
      assert.equal((await h.services.businesses.verificationHistory(suspect.businessId)).length, 0);
      await h.services.businesses.setVerificationStatus(
        suspect.businessId,
        "rejected",
        CLI,
        "documents\r\nexpired",
      );
      const [change] = await h.services.businesses.verificationHistory(suspect.businessId);
      assert.equal(change?.reason, "documents expired");
    });
  });

  describe(`a bank's narrations on ${dialect}`, () => {
    let both: BankAndService;
    let bankKey: KeyObject;
    let h: Harness;
    let business: TestBusiness;
    let number: string;

    before(async () => {
      both = await startBankAndService(dialect, { appId: APP_ID, notify: false });
      ({ bankKey, h, business, accountNumber: number } = both);
    });
    after(() => both?.close());

    let orders = 0;
    /** A notification signed with the bank's key, posted to the service as the bank would. */
    const notify = async (overrides: Record<string, unknown>) => {
      const sent = signedBankNotification(APP_ID, number, bankKey, {
        orderNo: `DT${++orders}${Date.now()}`,
        orderAmount: 100,
        narration: undefined,
        ...overrides,
      });
      const response = await h.app.inject({
        method: "POST",
        url: BANK_NOTIFICATIONS_PATH,
        headers: { "content-type": "application/json" },
        payload: JSON.stringify(sent),
      });
      return { response, orderNo: sent.orderNo };
    };
    const recorded = async (orderNo: string) => {
      const page = await h.request({ url: `${API}/transactions?sessionId=${orderNo}`, as: business });
      return page.json().data[0] as { narration: string; paidAt: string } | undefined;
    };

    test("the review's case: 200 characters that NFC makes 400 are acknowledged, cut to 200", async () => {
      const { response, orderNo } = await notify({ narration: QA.repeat(200) });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { respCode: "00000000", respMsg: "success" });
      assert.equal((await recorded(orderNo))?.narration, QA_NFC.repeat(100));
    });

    test("control and bidi characters from the bank are cleaned, and the payment kept", async () => {
      const { response, orderNo } = await notify({ narration: "rent\u0000for\r\nMay\u202e 2026\u2069" });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await recorded(orderNo))?.narration, "rent for May 2026");
    });

    test("paidTime: the protocol's range is the service's, both ends", async () => {
      const latest = await notify({ paidTime: NOTIFICATION_LIMITS.paidTime.max });
      assert.equal(latest.response.statusCode, 200, latest.response.body);
      assert.equal((await recorded(latest.orderNo))?.paidAt, "9999-12-31T23:59:59.999Z");
      // Beyond it is outside the protocol (docs/bank-integration.md): refused as out of shape.
      assertFailCode((await notify({ paidTime: 8.64e15 })).response, 400, "VALIDATION_FAILED");
    });
  });
}
