import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import Fastify from "fastify";
import { MEMBER_ROLES, type MemberRole, may, PERMISSIONS } from "../src/businesses/roles.js";
import { CLI } from "../src/core/actor.js";
import { enforceAccess, ROUTE_ACCESS } from "../src/dashboard/access.js";
import { CONSOLE_ACCESS, type ConsoleAccess, enforceConsoleAccess } from "../src/dashboard/console-access.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { invitedMember } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 43, item 4: one permission table per surface, the server enforcing it. Every POST route
// of the dashboard and of the console is sent by every business role and operator role, signed
// out, and by another business's owner, and each answer is held to the table: a role the table
// refuses gets the role's 403; a role it allows is never refused by role; signed out is sent to
// sign in; another business's owner never reaches this business's things. A route registered
// without an entry stops the service at start-up, and a table entry with no route fails here.
// The tables in docs/dashboard.md are read and held to the same tables.

const PASSWORD = "correct horse battery staple 42";
const MEMBER_PASSWORD = "kano market before the rains 8";
const OPERATOR_PASSWORD = "lagos harbour ferry at dawn 7";
const ROLE_REFUSAL = /Your role( as [a-z]+)? does not allow this/;
const DOCS = readFileSync(new URL("../docs/dashboard.md", import.meta.url), "utf8");

type Client = ReturnType<typeof pageClient>;

/** The rows of the Markdown table whose header line starts with `header`: each row's cells. */
function docsTable(header: string): string[][] {
  const lines = DOCS.split("\n");
  const start = lines.findIndex((line) => line.startsWith(header));
  assert.ok(start >= 0, `docs/dashboard.md has the table "${header}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe("the permission tables", () => {
  test("docs/dashboard.md's team table is roles.ts's, row for row", () => {
    const rows = docsTable("| Can | Owner | Admin | Developer | Finance | Viewer |");
    assert.equal(rows.length, PERMISSIONS.length, "a row for each permission");
    for (const [i, permission] of PERMISSIONS.entries()) {
      const marks = rows[i]?.slice(1).map((cell) => cell === "yes");
      assert.deepEqual(
        marks,
        MEMBER_ROLES.map((role) => may(role, permission)),
        `${permission}: ${rows[i]?.[0]}`,
      );
    }
  });

  test("docs/dashboard.md's console table says what CONSOLE_ACCESS enforces", () => {
    const rows = docsTable("| What | Reviewer | Admin |");
    // Which console forms each row of the docs speaks of.
    const covered: Record<string, string[]> = {
      "Read every page": ["POST /businesses/:id/:action", "POST /reconciliation"],
      "Suspend a verified business": [],
      "Set a business's collection fee": [
        "POST /businesses/:id/collection-fee",
        "POST /businesses/:id/payout-terms",
        "POST /charges",
      ],
      "Block an amount of a disputed credit": ["POST /blocks", "POST /blocks/:id/:action"],
      "Reset a user's two-factor": ["POST /businesses/:id/users/:userId/reset-two-factor"],
      "Invite operators": [
        "POST /operators",
        "POST /operators/:id/role",
        "POST /operators/:id/disable",
        "POST /operators/:id/enable",
      ],
    };
    assert.equal(rows.length, Object.keys(covered).length);
    for (const [start, routes] of Object.entries(covered)) {
      const row = rows.find((cells) => cells[0]?.startsWith(start));
      assert.ok(row, start);
      const reviewer = row[1] === "✓";
      for (const route of routes) assert.equal(CONSOLE_ACCESS[route] === "operator", reviewer, route);
    }
    const own = Object.keys(CONSOLE_ACCESS).filter((route) => route.startsWith("POST /security/"));
    const everyForm = new Set([...Object.values(covered).flat(), ...own]);
    for (const [route, rule] of Object.entries(CONSOLE_ACCESS)) {
      if (route.startsWith("POST ") && rule !== "public")
        assert.ok(everyForm.has(route), `${route} in the docs`);
    }
  });

  test("a route left out of a table stops its surface at start-up", async () => {
    const start = async (prefix: string, enforce: (pages: never) => void, routes: string[]) => {
      const app = Fastify();
      try {
        await app.register(
          async (pages) => {
            enforce(pages as never);
            for (const path of routes) pages.post(path, async () => "a page");
          },
          { prefix },
        );
        await app.ready();
      } finally {
        await app.close();
      }
    };
    await start("/dashboard", enforceAccess, ["/keys"]);
    await assert.rejects(
      start("/dashboard", enforceAccess, ["/keys", "/forgotten"]),
      /POST \/forgotten is not in ROUTE_ACCESS/,
    );
    await start("/admin", enforceConsoleAccess, ["/operators"]);
    await assert.rejects(
      start("/admin", enforceConsoleAccess, ["/operators", "/forgotten"]),
      /POST \/forgotten is not in CONSOLE_ACCESS/,
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`every form, for every role, on ${dialect}`, () => {
    let h: Harness;
    let serial = 0;
    const mail = () => ({ dir: h.dir, mailer: h.services.mailer });
    const members = new Map<MemberRole, { client: Client; id: string; email: string }>();
    let other: Client;
    let reviewer: Client;
    let admin: Client;
    /** This business's things, by the route parameter that names one. */
    const params: Record<string, string> = {};

    /** Invites `role` from the owner's Team page; the invitee joins from the mailed link. */
    async function member(inviter: Client, role: MemberRole) {
      const email = `${role}${++serial}.${dialect}@walk.example`;
      const client = await invitedMember(h.app, mail(), inviter, { email, role, password: MEMBER_PASSWORD });
      return { client, id: (await h.services.users.businessUserByEmail(email)).id, email };
    }

    async function signedUp(name: string) {
      const email = `owner${++serial}.${dialect}@walk.example`;
      const client = pageClient(h.app);
      const created = await client.signUp(mail(), { businessName: name, email, password: PASSWORD });
      assert.equal(created.statusCode, 303, created.body);
      const user = await h.services.users.businessUserByEmail(email);
      return { client, id: user.id, email, businessId: user.businessId as string };
    }

    const operator = (role: "reviewer" | "admin") =>
      signedInOperator(h.services, h.app, `${role}${++serial}.${dialect}@walk.example`, OPERATOR_PASSWORD, {
        role,
      });

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      const owner = await signedUp("Walked Foods");
      await verifyBusiness(h.services, owner.businessId);
      members.set("owner", owner);
      for (const role of ["admin", "developer", "finance", "viewer"] as const) {
        members.set(role, await member(owner.client, role));
      }
      other = (await signedUp("Other Foods")).client;
      // An admin first: the console always keeps one, so the first operator stays one.
      const adminOperator = await operator("admin");
      admin = adminOperator.client;
      reviewer = (await operator("reviewer")).client;

      const business = { businessId: owner.businessId, businessName: "Walked Foods" };
      const key = await h.services.businesses.createKey(owner.businessId);
      const generated = await h.services.accounts.generatePermanent(business, CLI, permanentInputOf());
      const accountNumber = generated.account.accountNumber;
      const [payee] = SANDBOX_PAYEES;
      assert.ok(payee);
      const paid = await h.services.collections.sandboxTransfer(business, {
        accountNumber,
        amount: 500_000,
        payerAccountNumber: payee.accountNumber,
      });
      await h.services.payoutSettings.setApiPayouts(owner.businessId, true);
      const payout = await h.services.payouts.create(business, {
        amount: 10_000,
        bankCode: payee.bankCode,
        accountNumber: payee.accountNumber,
      });
      const endpoint = await h.services.webhooks.create(business, {
        url: "https://receiver.example/hooks",
        events: [],
      });
      const sent = await h.services.webhooks.sendTest(business, endpoint.id);
      const team = await owner.client.get("/dashboard/team");
      await owner.client.post("/dashboard/team/invitations", {
        _csrf: team.token ?? "",
        email: `waiting${++serial}.${dialect}@walk.example`,
        role: "viewer",
      });
      const [invitation] = await h.services.invitations.open(owner.businessId);
      Object.assign(params, {
        ":id/:action": `${key.keyId}/activate`,
        ":number": accountNumber,
        ":transaction": paid.transaction.id,
        ":payout": payout.id,
        ":webhook": endpoint.id,
        ":event": sent.eventId,
        ":invitation": invitation?.id ?? "",
        ":member": members.get("developer")?.id ?? "",
        ":business": owner.businessId,
        ":user": members.get("developer")?.id ?? "",
        ":operator": adminOperator.id,
      });
    });
    after(() => h?.close());

    /** A dashboard route's path with this business's things in its parameters. */
    function dashboardPath(route: string): string {
      const path = route.slice("POST ".length);
      const [, group] = path.split("/");
      const id =
        {
          keys: params[":id/:action"]?.split("/")[0],
          transactions: params[":transaction"],
          payouts: params[":payout"],
          webhooks: params[":webhook"],
          events: params[":event"],
          settlements: "st_00000000000000000000000000000000",
        }[group ?? ""] ?? "";
      return `/dashboard${path
        .replace(":id/:action", group === "keys" ? (params[":id/:action"] ?? "") : `${id}/enable`)
        .replace("invitations/:id", `invitations/${params[":invitation"]}`)
        .replace("members/:id", `members/${params[":member"]}`)
        .replace(":number", params[":number"] ?? "")
        .replace(":id", id)}`;
    }

    /** A console route's path with this business, a member and an operator in its parameters. */
    function consolePath(route: string): string {
      const path = route.slice("POST ".length);
      return `/admin${path
        .replace(":action", "approve")
        .replace(":userId", params[":user"] ?? "")
        .replace("operators/:id", `operators/${params[":operator"]}`)
        .replace(":id", params[":business"] ?? "")}`;
    }

    const posts = <T>(table: Readonly<Record<string, T>>) =>
      Object.entries(table).filter(([route, rule]) => route.startsWith("POST ") && rule !== "public");

    /** The form sent: its CSRF token and a field, so it is not empty; nothing a form would need. */
    const sendAs = async (client: Client, page: string, path: string) => {
      const { token } = await client.get(page);
      return client.post(path, { _csrf: token ?? "", walked: "yes" });
    };

    test("every table entry is a route of the app", () => {
      for (const [table, prefix] of [
        [ROUTE_ACCESS, "/dashboard"],
        [CONSOLE_ACCESS, "/admin"],
      ] as const) {
        for (const route of Object.keys(table)) {
          const [method, path] = route.split(" ") as [string, string];
          const url = `${prefix}${path === "/" ? "" : path}`;
          assert.ok(
            h.app.hasRoute({ method: method as "GET", url }) ||
              h.app.hasRoute({ method: method as "GET", url: `${url}/` }),
            route,
          );
        }
      }
    });

    test("the dashboard's forms answer each role as ROUTE_ACCESS says", async () => {
      const forms = posts(ROUTE_ACCESS);
      assert.ok(forms.length >= 30, `${forms.length} forms`);
      for (const role of ["viewer", "developer", "finance", "admin", "owner"] as const) {
        const { client } = members.get(role) as { client: Client };
        for (const [route, rule] of forms) {
          const answer = await sendAs(client, "/dashboard/security", dashboardPath(route));
          const what = `${role}: ${route} -> ${answer.statusCode} ${answer.body.slice(0, 200)}`;
          assert.notEqual(answer.headers.location, "/dashboard/login", what);
          if (may(role, rule as Exclude<typeof rule, "public">)) {
            assert.ok(!(answer.statusCode === 403 && ROLE_REFUSAL.test(answer.body)), what);
            assert.ok(answer.statusCode < 500, what);
          } else {
            assert.equal(answer.statusCode, 403, what);
            assert.match(answer.body, ROLE_REFUSAL, what);
          }
        }
      }
      for (const [route] of forms) {
        const answer = await sendAs(pageClient(h.app), "/dashboard/login", dashboardPath(route));
        assert.equal(answer.statusCode, 303, `signed out: ${route}`);
        assert.equal(answer.headers.location, "/dashboard/login", `signed out: ${route}`);
      }
      // Another business's owner may do all of it, at their own business: never at this one's
      // (a form refused for its fields first is a 400: it changes nothing either).
      const developer = params[":member"] ?? "";
      const before = await h.services.team.members(params[":business"] ?? "");
      for (const [route] of forms.filter(([route]) => route.includes(":"))) {
        const path = dashboardPath(route);
        const answer = await sendAs(other, "/dashboard/security", path);
        assert.ok(
          [400, 404].includes(answer.statusCode),
          `another business: ${route} -> ${answer.statusCode}`,
        );
        if (route.endsWith("/role")) {
          const { token } = await other.get("/dashboard/team");
          const valid = await other.post(path, { _csrf: token ?? "", role: "viewer" });
          assert.equal(valid.statusCode, 404, "another business's member is not found");
        }
      }
      assert.deepEqual(
        await h.services.team.members(params[":business"] ?? ""),
        before,
        "the team as it was",
      );
      assert.ok(before.some((m) => m.id === developer && m.role === "developer"));
    });

    test("the console's forms answer each operator role as CONSOLE_ACCESS says", async () => {
      const forms = posts(CONSOLE_ACCESS);
      for (const [name, client] of [
        ["reviewer", reviewer],
        ["admin", admin],
      ] as const) {
        for (const [route, rule] of forms) {
          const answer = await sendAs(client, "/admin/security", consolePath(route));
          const what = `${name}: ${route} -> ${answer.statusCode} ${answer.body.slice(0, 200)}`;
          assert.notEqual(answer.headers.location, "/admin/login", what);
          if (name === "admin" || (rule as ConsoleAccess) === "operator") {
            assert.ok(!(answer.statusCode === 403 && ROLE_REFUSAL.test(answer.body)), what);
            assert.ok(answer.statusCode < 500, what);
          } else {
            assert.equal(answer.statusCode, 403, what);
            assert.match(answer.body, ROLE_REFUSAL, what);
          }
        }
      }
      const owner = members.get("owner")?.client as Client;
      for (const [route] of forms) {
        for (const client of [pageClient(h.app), owner]) {
          const answer = await sendAs(client, "/admin/login", consolePath(route));
          assert.equal(answer.statusCode, 303, `not an operator: ${route}`);
          assert.equal(answer.headers.location, "/admin/login", `not an operator: ${route}`);
        }
      }
    });

    test("the finance role: no accounts issued, and given or taken by the owner alone", async () => {
      const finance = members.get("finance") as { client: Client; id: string };
      const issued = await sendAs(finance.client, "/dashboard/accounts", "/dashboard/accounts/new");
      assert.equal(issued.statusCode, 403);
      const page = await finance.client.get("/dashboard/accounts");
      assert.doesNotMatch(page.response.body, /Issue an account/, "no button it cannot use");

      const teamAdmin = (members.get("admin") as { client: Client }).client;
      const owner = (members.get("owner") as { client: Client }).client;
      const team = await teamAdmin.get("/dashboard/team");
      assert.doesNotMatch(team.response.body, /<option value="finance"/, "the admin is not offered finance");
      const refusals = [
        ["/dashboard/team/invitations", { email: `second.${dialect}@walk.example`, role: "finance" }],
        [`/dashboard/team/members/${params[":member"]}/role`, { role: "finance" }],
        [`/dashboard/team/members/${finance.id}/role`, { role: "viewer" }],
        [`/dashboard/team/members/${finance.id}/remove`, { confirm: "yes" }],
      ] as const;
      for (const [path, form] of refusals) {
        const answer = await teamAdmin.post(path, { _csrf: team.token ?? "", ...form });
        assert.equal(answer.statusCode, 403, path);
        assert.match(answer.body, /only the owner gives or takes the finance role/, path);
      }
      const roles = async () =>
        Object.fromEntries(
          (await h.services.team.members(params[":business"] ?? "")).map((m) => [m.id, m.role]),
        );
      assert.equal((await roles())[finance.id], "finance", "unchanged");
      assert.equal((await roles())[params[":member"] ?? ""], "developer", "unchanged");
      assert.deepEqual(
        (await h.services.invitations.open(params[":business"] ?? "")).filter((i) => i.role === "finance"),
        [],
        "no finance invitation",
      );
      // The owner may.
      const ownerTeam = await owner.get("/dashboard/team");
      assert.match(ownerTeam.response.body, /<option value="finance"/);
      const made = await owner.post(`/dashboard/team/members/${params[":member"]}/role`, {
        _csrf: ownerTeam.token ?? "",
        role: "finance",
      });
      assert.equal(made.statusCode, 303, made.body);
      assert.equal((await roles())[params[":member"] ?? ""], "finance");
      const back = await owner.post(`/dashboard/team/members/${params[":member"]}/role`, {
        _csrf: ownerTeam.token ?? "",
        role: "developer",
      });
      assert.equal(back.statusCode, 303, back.body);
    });
  });
}
