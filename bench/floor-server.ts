// The floor the real endpoints are measured against: a bare Fastify app on its own database
// (a file or database of its own, never the service's), through the raw driver (better-sqlite3
// or pg: no query builder), with the service's pragmas, that verifies one HMAC and then inserts
// one row (the write floor) or reads one indexed 10-row page (the read floor). Started by
// bench/run.ts with FLOOR_DATABASE_URL.
import { randomUUID } from "node:crypto";
import SqliteDatabase from "better-sqlite3";
import Fastify from "fastify";
import pg from "pg";
import { verifySignature } from "../src/auth/signature.js";
import { parseDatabaseUrl } from "../src/config/load.js";

const FLOOR_SECRET = process.env.FLOOR_SECRET ?? "";
const PARTITION = "floor";
const ROWS = 10_000;

const CREATE = [
  "create table if not exists floor_rows (id text primary key, partition_key text not null, seq integer not null, payload text not null, created_at text not null)",
  "create index if not exists floor_rows_partition_seq on floor_rows (partition_key, seq)",
];
const INSERT =
  "insert into floor_rows (id, partition_key, seq, payload, created_at) values ($1, $2, $3, $4, $5)";
const PAGE = `select id, payload, created_at from floor_rows where partition_key = $1 and seq > $2 order by seq desc limit 10`;

/** The two statements the floor runs, on one driver. */
interface Floor {
  insert(values: unknown[]): Promise<void>;
  page(): Promise<unknown[]>;
  close(): Promise<void>;
}

async function sqliteFloor(file: string): Promise<Floor> {
  const db = new SqliteDatabase(file);
  // The service's pragmas (src/storage/database.ts).
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  for (const statement of CREATE) db.exec(statement);
  const toSqlite = (text: string) => text.replace(/\$\d+/g, "?");
  const insert = db.prepare(toSqlite(INSERT));
  const page = db.prepare(toSqlite(PAGE));
  if ((db.prepare("select count(*) as n from floor_rows").get() as { n: number }).n === 0) {
    db.transaction(() => {
      for (let i = 1; i <= ROWS; i++) insert.run(randomUUID(), PARTITION, i, "{}", new Date().toISOString());
    })();
  }
  return {
    insert: async (values) => void insert.run(...values),
    page: async () => page.all(PARTITION, 0),
    close: async () => {
      db.close();
    },
  };
}

async function postgresFloor(url: string): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  for (const statement of CREATE) await pool.query(statement);
  const { rows } = await pool.query<{ n: string }>("select count(*) as n from floor_rows");
  if (Number(rows[0]?.n) === 0) {
    await pool.query(
      `insert into floor_rows (id, partition_key, seq, payload, created_at)
       select gen_random_uuid()::text, $1, n, '{}', now()::text from generate_series(1, ${ROWS}) n`,
      [PARTITION],
    );
  }
  // Named statements: parsed and planned once per connection, as the service's hot path is.
  return {
    insert: async (values) => void (await pool.query({ name: "floor_insert", text: INSERT, values })),
    page: async () => (await pool.query({ name: "floor_page", text: PAGE, values: [PARTITION, 0] })).rows,
    close: () => pool.end(),
  };
}

const location = parseDatabaseUrl(process.env.FLOOR_DATABASE_URL ?? "");
if (!location) throw new Error("FLOOR_DATABASE_URL is required");
const floor =
  location.dialect === "sqlite" ? await sqliteFloor(location.file) : await postgresFloor(location.url);

let seq = 0;
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
  done(null, body),
);

const authentic = (headers: Record<string, unknown>, body: Buffer | string) =>
  verifySignature(FLOOR_SECRET, [body], String(headers["x-timestamp"]), String(headers["x-signature"]));

app.post("/write", async (request, reply) => {
  const body = request.body as Buffer;
  if (!authentic(request.headers, body)) return reply.code(401).send({ status: "fail" });
  await floor.insert([randomUUID(), "writes", ++seq, body.toString(), new Date().toISOString()]);
  return reply.code(201).send({ status: "success" });
});

app.get("/read", async (request, reply) => {
  if (!authentic(request.headers, "{}")) return reply.code(401).send({ status: "fail" });
  return { status: "success", data: await floor.page() };
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
