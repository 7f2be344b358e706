import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Sessions } from "../src/businesses/sessions.js";
import { LOCKOUT_MS, MAX_FAILED_SIGN_INS } from "../src/businesses/sign-in-attempts.js";
import { totpCode } from "../src/businesses/totp.js";
import { runCli } from "../src/cli/run.js";
import { isAppError } from "../src/errors.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { signedUpOwner } from "./helpers/members.js";

// Dashboard users, operators and their sessions, through the domain services (issue 13). The
// pages are tested in a browser (dashboard.test.ts); the rules are here, at exact instants.

const PASSWORD = "correct horse battery staple 42";

/** The AppError a promise rejects with: its status and code. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isAppError(error), `expected a refusal, got ${String(error)}`);
  return { status: error.statusCode, code: error.code, message: error.message };
}

for (const dialect of DIALECTS) {
  describe(`users and sessions on ${dialect}`, () => {
    let h: Harness;
    let clock = Date.parse("2026-11-25T09:00:00.000Z");
    let emails = 0;
    const email = () => `owner${++emails}@example.com`;

    before(async () => {
      h = await createHarness({ dialect, now: () => clock });
    });
    after(() => h.close());

    test("a confirmed sign-up creates a not_submitted business with no keys, and its owner with an argon2id hash", async () => {
      const address = email();
      const user = await signedUpOwner(h.services, {
        businessName: "Kola Foods",
        email: ` ${address.toUpperCase()} `,
        password: PASSWORD,
      });
      assert.equal(user.email, address, "emails are trimmed and lower-cased");
      const business = await h.services.businesses.getBusiness(user.businessId as string);
      assert.equal(business.verificationStatus, "not_submitted");
      assert.deepEqual(await h.services.businesses.listKeys(business.businessId), []);
      const row = await h.storage.db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", user.id)
        .executeTakeFirstOrThrow();
      assert.match(row.password_hash, /^\$argon2id\$/);
      assert.ok(!row.password_hash.includes(PASSWORD));
      const again = await h.services.signUps.begin({
        businessName: "Other",
        email: address,
        password: PASSWORD,
      });
      assert.equal(again.token, undefined, "a taken email gets no link (its owner is mailed instead)");
    });

    test("sign-up refuses a weak password or a bad email before creating anything", async () => {
      const before = (await h.services.businesses.listBusinesses()).length;
      assert.equal(
        (
          await refusal(
            signedUpOwner(h.services, { businessName: "Weak", email: email(), password: "password1234" }),
          )
        ).status,
        400,
      );
      assert.equal(
        (
          await refusal(
            signedUpOwner(h.services, { businessName: "Weak", email: "not-an-email", password: PASSWORD }),
          )
        ).status,
        400,
      );
      assert.equal((await h.services.businesses.listBusinesses()).length, before);
    });

    test("a wrong password and an unknown email get the same answer", async () => {
      const address = email();
      await signedUpOwner(h.services, { businessName: "Same Answer", email: address, password: PASSWORD });
      const wrong = await refusal(h.services.users.signIn("business", address, "not the password at all"));
      const unknown = await refusal(h.services.users.signIn("business", "nobody@example.com", PASSWORD));
      assert.deepEqual(wrong, unknown);
      assert.equal(wrong.status, 401);
      const asOperator = await refusal(h.services.users.signIn("operator", address, PASSWORD));
      assert.equal(asOperator.status, 401, "a business user is no operator");
    });

    test(`${MAX_FAILED_SIGN_INS} failures pause sign-in for ${LOCKOUT_MS / 60_000} minutes, to the millisecond`, async () => {
      const address = email();
      await signedUpOwner(h.services, { businessName: "Paused", email: address, password: PASSWORD });
      for (let i = 0; i < MAX_FAILED_SIGN_INS - 1; i++) {
        await refusal(h.services.users.signIn("business", address, "wrong password here"));
      }
      // A success before the limit starts the count again.
      await h.services.users.signIn("business", address, PASSWORD);
      for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) {
        await refusal(h.services.users.signIn("business", address, "wrong password here"));
      }
      const pausedAt = clock;
      const paused = await refusal(h.services.users.signIn("business", address, PASSWORD));
      assert.equal(paused.status, 429);
      assert.equal(paused.code, "SIGN_IN_LOCKED");
      clock = pausedAt + LOCKOUT_MS - 1;
      assert.equal((await refusal(h.services.users.signIn("business", address, PASSWORD))).status, 429);
      clock = pausedAt + LOCKOUT_MS;
      const user = await h.services.users.signIn("business", address, PASSWORD);
      assert.equal(user.email, address);
      const failures = await h.storage.db
        .selectFrom("audit_log")
        .select("action")
        .where("actor_id", "=", user.id)
        .where("action", "=", "sign_in.failed")
        .execute();
      assert.equal(failures.length, MAX_FAILED_SIGN_INS * 2 - 1, "every failure is audited");
    });

    test("two-factor: enrol with a code, then each sign-in needs a fresh code; a code works once", async () => {
      const address = email();
      const user = await signedUpOwner(h.services, {
        businessName: "Two Factor",
        email: address,
        password: PASSWORD,
      });
      const { secret, uri } = await h.services.secondFactor.beginTotp(user.id);
      assert.match(uri, /^otpauth:\/\/totp\//);
      assert.equal(
        (await refusal(h.services.secondFactor.confirmTotp(user.id, "000000", PASSWORD))).status,
        401,
      );
      const withoutPassword = await refusal(
        h.services.secondFactor.confirmTotp(user.id, totpCode(secret, clock), "guess"),
      );
      assert.equal(withoutPassword.status, 401, "turning it on asks for the current password");
      await h.services.secondFactor.confirmTotp(user.id, totpCode(secret, clock), PASSWORD);
      const signedIn = await h.services.users.signIn("business", address, PASSWORD);
      assert.equal(signedIn.totpEnabled, true);
      clock += 30_000;
      const code = totpCode(secret, clock);
      await h.services.secondFactor.verifySignInCode(user.id, code);
      assert.equal(
        (await refusal(h.services.secondFactor.verifySignInCode(user.id, code))).status,
        401,
        "replayed",
      );
      const row = await h.storage.db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", user.id)
        .executeTakeFirstOrThrow();
      assert.ok(
        row.totp_secret_ciphertext && !row.totp_secret_ciphertext.includes(secret),
        "the secret is sealed",
      );
      clock += 30_000;
      await h.services.secondFactor.disableTotp(user.id, PASSWORD, totpCode(secret, clock));
      assert.equal((await h.services.users.signIn("business", address, PASSWORD)).totpEnabled, false);
    });

    test("turning two-factor on or off asks for the password, is audited, and ends the other sessions", async () => {
      const user = await signedUpOwner(h.services, {
        businessName: "Sensitive",
        email: email(),
        password: PASSWORD,
      });
      const sessions = h.services.sessions;
      const mine = await sessions.start(user, true);
      const stolen = await sessions.start(user, true);
      const { secret } = await h.services.secondFactor.beginTotp(user.id);
      clock += 30_000;
      const wrong = await refusal(
        h.services.secondFactor.confirmTotp(user.id, totpCode(secret, clock), "not it", mine.session.id),
      );
      assert.equal(wrong.status, 401);
      assert.ok(await sessions.resolve(stolen.token), "a refused change ends nothing");
      await h.services.secondFactor.confirmTotp(user.id, totpCode(secret, clock), PASSWORD, mine.session.id);
      assert.ok(await sessions.resolve(mine.token), "the session that turned it on stays");
      assert.equal(await sessions.resolve(stolen.token), undefined, "every other one ends");

      const other = await sessions.start(user, true);
      clock += 30_000;
      const code = totpCode(secret, clock);
      assert.equal(
        (await refusal(h.services.secondFactor.disableTotp(user.id, "not it", code, mine.session.id))).status,
        401,
      );
      await h.services.secondFactor.disableTotp(user.id, PASSWORD, code, mine.session.id);
      assert.ok(await sessions.resolve(mine.token));
      assert.equal(await sessions.resolve(other.token), undefined);
      const actions = await h.storage.db
        .selectFrom("audit_log")
        .select("action")
        .where("actor_id", "=", user.id)
        .orderBy("created_at")
        .execute();
      const names = actions.map((row) => row.action);
      for (const action of ["totp.enable_failed", "totp.enabled", "totp.disable_failed", "totp.disabled"]) {
        assert.ok(names.includes(action), action);
      }
    });

    test("sessions end when idle, at their absolute end, on sign-out, and on a password change", async () => {
      const { idleMs, absoluteMs } = h.services.sessions.settings;
      const user = await signedUpOwner(h.services, {
        businessName: "Sessions",
        email: email(),
        password: PASSWORD,
      });
      const sessions = h.services.sessions;

      const idle = await sessions.start(user, true);
      clock += idleMs - 1;
      assert.ok(await sessions.resolve(idle.token), "still live a millisecond before the idle limit");
      clock += idleMs;
      assert.equal(await sessions.resolve(idle.token), undefined, "idle too long");

      // With a one-minute idle timeout, a session used every 15 s never ends for being idle.
      const minute = new Sessions(h.storage, { idleMs: 60_000, absoluteMs }, () => clock);
      const steady = await minute.start(user, true);
      for (let used = 0; used < 12; used++) {
        clock += 15_000;
        assert.ok(await minute.resolve(steady.token), `used every 15 s: still live after ${used + 1}`);
      }
      clock += 60_000;
      assert.equal(await minute.resolve(steady.token), undefined, "a minute unused: over");

      const busy = await sessions.start(user, true);
      const started = clock;
      while (clock + idleMs / 2 < started + absoluteMs) {
        clock += idleMs / 2;
        assert.ok(await sessions.resolve(busy.token));
      }
      clock = started + absoluteMs;
      assert.equal(await sessions.resolve(busy.token), undefined, "over, however active");

      const mine = await sessions.start(user, true);
      const other = await sessions.start(user, true);
      await h.services.users.changePassword(
        user.id,
        PASSWORD,
        "a different long passphrase 99",
        mine.session.id,
      );
      assert.ok(await sessions.resolve(mine.token), "the session that changed it stays");
      assert.equal(await sessions.resolve(other.token), undefined, "every other one ends");
      await sessions.end(mine.session);
      assert.equal(await sessions.resolve(mine.token), undefined);

      const stored = await h.storage.db.selectFrom("dashboard_sessions").select("id").execute();
      // A day after they ended, sessions are removed (the prune-sessions job).
      clock += 86_400_001;
      const cutoff = new Date(clock - 86_400_000).toISOString();
      const rows = () =>
        h.storage.db.selectFrom("dashboard_sessions").select(["id", "expires_at", "revoked_at"]).execute();
      const endedBefore = (all: Awaited<ReturnType<typeof rows>>) =>
        all.filter((row) => row.expires_at < cutoff || (row.revoked_at !== null && row.revoked_at < cutoff));
      const all = await rows();
      const due = endedBefore(all).length;
      assert.ok(due >= 4, "this test's four sessions have ended");
      assert.equal(await sessions.prune(), due);
      const left = await rows();
      assert.equal(endedBefore(left).length, 0);
      assert.equal(left.length, all.length - due);
      assert.ok(
        stored.every((row) => row.id !== mine.token && /^[0-9a-f]{64}$/.test(row.id)),
        "only hashes are kept",
      );
    });

    test("verification: submitted with the details, decided by an operator, refused out of turn", async () => {
      const user = await signedUpOwner(h.services, {
        businessName: "Verify Me",
        email: email(),
        password: PASSWORD,
      });
      const businessId = user.businessId as string;
      const actor = { type: "user", id: user.id } as const;
      const details = {
        registeredName: "Verify Me Limited",
        rcNumber: "rc 123456",
        address: "1 Broad Street, Lagos",
        contactName: "Ade Bello",
        contactEmail: "ade@verifyme.example",
        contactPhone: "0803 123 4567",
      };
      assert.equal(
        (await refusal(h.services.profiles.submit(businessId, actor, { ...details, rcNumber: "12" }))).status,
        400,
      );
      await h.services.profiles.submit(businessId, actor, details);
      const profile = await h.services.profiles.find(businessId);
      assert.equal(profile?.rcNumber, "RC123456");
      assert.equal(profile?.contactPhone, "08031234567");
      assert.equal(
        (await refusal(h.services.profiles.submit(businessId, actor, details))).status,
        409,
        "already in review",
      );
      const approve = await refusal(
        h.services.businesses.setVerificationStatus(businessId, "completed", actor),
      );
      assert.equal(approve.status, 409, "a business cannot approve itself");
      const operator = await h.services.users.createOperator(`ops${emails}@example.com`, PASSWORD);
      clock += 60_000;
      await h.services.businesses.setVerificationStatus(businessId, "completed", {
        type: "operator",
        id: operator.id,
      });
      const history = await h.services.businesses.verificationHistory(businessId);
      assert.deepEqual(
        history.map((change) => [change.from, change.to, change.actor.type]),
        [
          ["not_submitted", "in_progress", "user"],
          ["in_progress", "completed", "operator"],
        ],
      );
    });

    test("vas operator create reads the password from stdin, and refuses a weak one", async () => {
      const out: string[] = [];
      const io = (password: string) => ({
        env: {
          DATABASE_URL:
            h.dialect === "sqlite"
              ? `sqlite:${(h.database as { file: string }).file}`
              : (h.database as { url: string }).url,
          VAS_MASTER_KEY: h.services.config.masterKey?.toString("hex") ?? "",
          LOG_LEVEL: "silent",
        },
        stdout: (text: string) => out.push(text),
        stderr: (text: string) => out.push(text),
        readStdin: async () => `${password}\n`,
      });
      assert.equal(
        await runCli(
          ["operator", "create", "--email", "cli.ops@example.com", "--password-stdin", "--json"],
          io(PASSWORD),
        ),
        0,
        out.join(""),
      );
      const created = JSON.parse(out.at(-1) as string) as { email: string };
      assert.equal(created.email, "cli.ops@example.com");
      assert.equal(
        (await h.services.users.signIn("operator", "cli.ops@example.com", PASSWORD)).role,
        "operator",
      );
      out.length = 0;
      assert.equal(
        await runCli(
          ["operator", "create", "--email", "weak.ops@example.com", "--password-stdin"],
          io("password1234"),
        ),
        1,
      );
      assert.match(out.join(""), /too easy to guess/);
      assert.equal(
        await runCli(["operator", "create", "--email", "x@example.com"], io(PASSWORD)),
        2,
        "no terminal to ask",
      );
    });
  });
}
