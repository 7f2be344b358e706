// The floor the service is measured against: the least a signed generate or list can cost on
// this stack. It does the same work per request as the targets' own floor
// (../shared/bench/floor-server.mjs), so that the ratios npm run bench gives are the targets':
// Fastify; the body read as text and parsed; one HMAC-SHA256 of the body and the timestamp,
// compared in constant time; then one raw insert of an account-like row, a sequential number
// (POST .../account/generate, answered with the account), or one indexed 10-row page (GET
// .../account/list). No seeded rows: the page is read from what the write floor inserted, as
// there. On a database of its own (FLOOR_DATABASE_URL), never the service's:
// - SQLite: better-sqlite3, WAL and synchronous=NORMAL, statements prepared once;
// - PostgreSQL: the raw pg driver, a pool of 10, named statements (parsed and planned once per
//   connection).
// Started by bench/run.ts, pinned to the same CPUs as the service and the load generator.
import { createHmac, timingSafeEqual } from "node:crypto";
import SqliteDatabase from "better-sqlite3";
import Fastify, { type FastifyRequest } from "fastify";
import pg from "pg";
import { parseDatabaseUrl } from "../src/config/load.js";

const SECRET = process.env.FLOOR_SECRET ?? "";
const BUSINESS = "b1";

const CREATE_SQLITE = [
  "create table if not exists a (id integer primary key, biz text, email text, num text unique, created_at text)",
  "create index if not exists a_biz on a (biz, created_at desc)",
];
const CREATE_POSTGRES = [
  "create table if not exists a (id bigserial primary key, biz text, email text, num text unique, created_at text)",
  "create index if not exists a_biz on a (biz, created_at desc)",
];
const INSERT = "insert into a (biz, email, num, created_at) values ($1, $2, $3, $4)";
const PAGE = "select num, email, created_at from a where biz = $1 order by created_at desc limit 10";

/** The floor's two statements, on one driver. */
interface Floor {
  insert(values: [string, string, string, string]): Promise<void>;
  page(): Promise<unknown[]>;
  close(): Promise<void>;
}

function sqliteFloor(file: string): Floor {
  const db = new SqliteDatabase(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  for (const statement of CREATE_SQLITE) db.exec(statement);
  const toSqlite = (text: string) => text.replace(/\$\d+/g, "?");
  const insert = db.prepare(toSqlite(INSERT));
  const page = db.prepare(toSqlite(PAGE));
  return {
    insert: async (values) => void insert.run(...values),
    page: async () => page.all(BUSINESS),
    close: async () => void db.close(),
  };
}

async function postgresFloor(url: string): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => {
    // An idle client lost at shutdown.
  });
  for (const statement of CREATE_POSTGRES) await pool.query(statement);
  return {
    insert: async (values) => void (await pool.query({ name: "floor_insert", text: INSERT, values })),
    page: async () => (await pool.query({ name: "floor_page", text: PAGE, values: [BUSINESS] })).rows,
    close: () => pool.end(),
  };
}

const location = parseDatabaseUrl(process.env.FLOOR_DATABASE_URL ?? "");
if (!location) throw new Error("FLOOR_DATABASE_URL is required");
const floor = location.dialect === "sqlite" ? sqliteFloor(location.file) : await postgresFloor(location.url);

/** A generate's body: its text, which is signed, and what it says. */
interface Body {
  text: string;
  json: { name?: unknown; email?: unknown };
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, text, done) => {
  try {
    done(null, { text, json: JSON.parse(text as string) });
  } catch (error) {
    done(error as Error, undefined);
  }
});

function authentic(request: FastifyRequest, input: string): boolean {
  const want = createHmac("sha256", SECRET)
    .update(input + String(request.headers["x-timestamp"]))
    .digest();
  const got = Buffer.from(String(request.headers["x-signature"]), "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}

let serial = 1_000_000_000;
app.post("/api/v1/external/account/generate", async (request, reply) => {
  const body = request.body as Body;
  if (!authentic(request, body.text))
    return reply.code(401).send({ status: "fail", message: "Invalid signature" });
  const accountNumber = String(serial++);
  await floor.insert([BUSINESS, String(body.json.email), accountNumber, new Date().toISOString()]);
  const name = body.json.name;
  return {
    status: "success",
    data: { bankName: "Virtual Bank", accountNumber, accountName: name, userName: name },
  };
});

app.get("/api/v1/external/account/list", async (request, reply) => {
  if (!authentic(request, "{}"))
    return reply.code(401).send({ status: "fail", message: "Invalid signature" });
  return { status: "success", data: await floor.page(), pagination: { page: 1, limit: 10 } };
});

app.get("/ready", async () => ({ status: "success" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
const stop = () =>
  app
    .close()
    .then(() => floor.close())
    .then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
