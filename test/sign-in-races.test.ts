import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_FAILED_SIGN_INS } from "../src/businesses/sign-in-attempts.js";
import { totpCode } from "../src/businesses/totp.js";
import { type Cluster, startCluster } from "./helpers/cluster.js";
import { DATABASE_KINDS } from "./helpers/databases.js";
import { linkIn, pathOf, waitForMails } from "./helpers/mail-files.js";
import { signedUpOwner } from "./helpers/members.js";
import { type WebClient, webClient } from "./helpers/web-client.js";

// Sign-in under concurrency (issue 24, items 1 to 3), against two real server processes on one
// database: guesses are counted before they are checked, a code works once whatever runs at
// once, and a browser that signed in before still signs in while someone else is locked out.
// The per-address limit is off, so the lockout alone is measured.

const PASSWORD = "correct horse battery staple 42";

const statuses = (answers: Array<{ status: number }>) => {
  const counted: Record<number, number> = {};
  for (const { status } of answers) counted[status] = (counted[status] ?? 0) + 1;
  return counted;
};

for (const dialect of DATABASE_KINDS) {
  describe(`sign-in races across two processes on ${dialect}`, () => {
    let cluster: Cluster;
    let clients = 0;
    /** A new browser, on the processes in turn. */
    const browser = () => {
      const servers = cluster.servers;
      return webClient((servers[clients++ % servers.length] as (typeof servers)[number]).url);
    };
    const signUp = async (name: string) => {
      const email = `${name}.${dialect}@races.example`;
      const user = await signedUpOwner(cluster.services, {
        businessName: `${name} Ltd`,
        email,
        password: PASSWORD,
      });
      return { email, user };
    };
    const signIn = async (client: WebClient, email: string, password: string) => {
      await client.get("/dashboard/login");
      return client.post("/dashboard/login", { email, password });
    };

    before(async () => {
      cluster = await startCluster(dialect, 2, { SIGN_IN_RATE_LIMIT_PER_MIN: "0" });
    });
    after(() => cluster.stop());

    test("a burst of 39 wrong passwords over two processes: 5 are checked, then even the right one is paused", async () => {
      const { email } = await signUp("burst");
      const attackers = Array.from({ length: 39 }, browser);
      await Promise.all(attackers.map((client) => client.get("/dashboard/login")));
      const answers = await Promise.all(
        attackers.map((client, i) =>
          client.post("/dashboard/login", { email, password: `wrong guess ${i}` }),
        ),
      );
      assert.deepEqual(statuses(answers), { 401: MAX_FAILED_SIGN_INS, 429: 39 - MAX_FAILED_SIGN_INS });
      const right = await signIn(browser(), email, PASSWORD);
      assert.equal(right.status, 429, "the right password is not even checked while paused");
      assert.match(right.body, /Too many failed sign-ins: signing in is paused until \d\d:\d\d WAT/);
    });

    test("an unknown email is paused after as many guesses, with the same answers", async () => {
      const { email } = await signUp("known");
      const answersFor = async (address: string) => {
        const clients = Array.from({ length: 8 }, browser);
        await Promise.all(clients.map((client) => client.get("/dashboard/login")));
        return Promise.all(
          clients.map((client) => client.post("/dashboard/login", { email: address, password: "nope" })),
        );
      };
      const known = await answersFor(email);
      const unknown = await answersFor(`nobody.${dialect}@races.example`);
      assert.deepEqual(statuses(known), statuses(unknown));
      assert.deepEqual(statuses(unknown), { 401: MAX_FAILED_SIGN_INS, 429: 8 - MAX_FAILED_SIGN_INS });
      const message = (page: string) =>
        /role="alert"[^>]*>([^<]*)</.exec(page)?.[1]?.replace(/\d\d:\d\d/, "HH:MM");
      const paused = (answers: typeof known) => answers.find((a) => a.status === 429)?.body ?? "";
      assert.equal(message(paused(known)), message(paused(unknown)));
      assert.equal(
        message((known.find((a) => a.status === 401) as { body: string }).body),
        message((unknown.find((a) => a.status === 401) as { body: string }).body),
      );
    });

    test("the owner's known browser signs in during an attack; other clients stay paused", async () => {
      const { email } = await signUp("owner");
      const owner = browser();
      const first = await signIn(owner, email, PASSWORD);
      assert.equal(first.status, 303);
      assert.equal(first.location, "/dashboard/home");
      assert.ok(owner.cookies.has("vas_device"), "a browser that signed in is remembered");
      await owner.get("/dashboard/home");
      await owner.post("/dashboard/logout", {});

      const attackers = Array.from({ length: 12 }, browser);
      await Promise.all(attackers.map((client) => client.get("/dashboard/login")));
      const attack = await Promise.all(
        attackers.map((client) => client.post("/dashboard/login", { email, password: "a wrong guess" })),
      );
      assert.deepEqual(statuses(attack), { 401: MAX_FAILED_SIGN_INS, 429: 12 - MAX_FAILED_SIGN_INS });
      assert.equal((await signIn(browser(), email, PASSWORD)).status, 429, "a new browser is paused");

      const again = await signIn(owner, email, PASSWORD);
      assert.equal(again.status, 303, "the known browser is not");
      assert.equal(again.location, "/dashboard/home");

      // A forged device cookie is no device: it counts with everyone else.
      const forger = browser();
      forger.cookies.set("vas_device", `${owner.cookies.get("vas_device")?.split(".")[0]}.AAAA.BBBB`);
      assert.equal((await signIn(forger, email, PASSWORD)).status, 429);
    });

    test("30 half-signed-in sessions send one code at once: exactly one full session", async () => {
      const { email, user } = await signUp("code");
      const { secret } = await cluster.services.secondFactor.beginTotp(user.id);
      const now = Date.now();
      await cluster.services.secondFactor.confirmTotp(user.id, totpCode(secret, now), PASSWORD);
      const halves: WebClient[] = [];
      for (let i = 0; i < 30; i++) {
        const client = browser();
        const answer = await signIn(client, email, PASSWORD);
        assert.equal(answer.location, "/dashboard/login/code");
        await client.get("/dashboard/login/code");
        halves.push(client);
      }
      // The step after the one that turned it on: accepted once, within the one-step window.
      const code = totpCode(secret, now + 30_000);
      const answers = await Promise.all(
        halves.map((client) => client.post("/dashboard/login/code", { code })),
      );
      const signedIn = answers.filter((a) => a.status === 303 && a.location === "/dashboard/home");
      assert.equal(signedIn.length, 1, JSON.stringify(statuses(answers)));
      assert.ok(answers.every((a) => a === signedIn[0] || a.status === 401 || a.status === 429));
      const full = await cluster.services.storage.db
        .selectFrom("dashboard_sessions")
        .select("id")
        .where("user_id", "=", user.id)
        .where("verified", "=", 1)
        .where("revoked_at", "is", null)
        .execute();
      assert.equal(full.length, 1);
    });

    test("10 sign-ups with one email at once, then their 10 links at once: one business and its owner", async () => {
      const email = `twice.${dialect}@races.example`;
      const before = (await cluster.services.businesses.listBusinesses()).length;
      const clients = Array.from({ length: 10 }, browser);
      await Promise.all(clients.map((client) => client.get("/dashboard/signup")));
      const answers = await Promise.all(
        clients.map((client, i) =>
          client.post("/dashboard/signup", { businessName: `Racer ${i} Ltd`, email, password: PASSWORD }),
        ),
      );
      assert.deepEqual(statuses(answers), { 303: 10 }, "each gets the same answer");
      assert.deepEqual(new Set(answers.map((a) => a.location)), new Set(["/dashboard/signup?sent=1"]));
      assert.equal(
        (await cluster.services.businesses.listBusinesses()).length,
        before,
        "a sign-up makes nothing before its link is used",
      );
      const links = (await waitForMails(cluster.dir, email, 10)).map((mail) => linkIn(mail, "http"));
      const confirmed = await Promise.all(
        links.map(async (link, i) => {
          const client = clients[i] as WebClient;
          await client.get(pathOf(link));
          return client.post("/dashboard/confirm", { token: new URL(link).searchParams.get("token") ?? "" });
        }),
      );
      assert.deepEqual(statuses(confirmed), { 303: 1, 410: 9 });
      for (const refused of confirmed.filter((a) => a.status === 410)) {
        assert.match(refused.body, /This email has an account now/);
      }
      assert.equal(
        (await cluster.services.businesses.listBusinesses()).length,
        before + 1,
        "no business without a user",
      );
    });

    test("one invitation's link sent 6 times at once: one member joins, the rest are told it was used", async () => {
      const { user } = await signUp("inviter");
      const email = `invited.${dialect}@races.example`;
      await cluster.services.invitations.invite(user.businessId as string, user.id, email, "developer");
      await cluster.services.mailer.idle();
      const [invitation] = await waitForMails(cluster.dir, email, 1);
      const link = linkIn(invitation, "http");
      const clients = Array.from({ length: 6 }, browser);
      await Promise.all(clients.map((client) => client.get(pathOf(link))));
      const joined = await Promise.all(
        clients.map((client) =>
          client.post("/dashboard/join", {
            token: new URL(link).searchParams.get("token") ?? "",
            password: PASSWORD,
            confirm: PASSWORD,
          }),
        ),
      );
      assert.deepEqual(statuses(joined), { 303: 1, 410: 5 });
      const members = await cluster.services.team.members(user.businessId as string);
      assert.deepEqual(
        members.map((m) => [m.email, m.role]),
        [
          [user.email, "owner"],
          [email, "developer"],
        ],
      );
    });

    test("9 wrong codes at once: 5 are checked, the rest paused (429)", async () => {
      const { email, user } = await signUp("codes");
      const { secret } = await cluster.services.secondFactor.beginTotp(user.id);
      await cluster.services.secondFactor.confirmTotp(user.id, totpCode(secret, Date.now()), PASSWORD);
      const halves = Array.from({ length: 9 }, browser);
      for (const client of halves) {
        await signIn(client, email, PASSWORD);
        await client.get("/dashboard/login/code");
      }
      const wrong = totpCode(secret, Date.now() + 10 * 60_000);
      const answers = await Promise.all(
        halves.map((client) => client.post("/dashboard/login/code", { code: wrong })),
      );
      assert.deepEqual(statuses(answers), { 401: MAX_FAILED_SIGN_INS, 429: 9 - MAX_FAILED_SIGN_INS });
    });
  });
}
