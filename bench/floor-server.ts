// The floor the real endpoints are measured against: a bare Fastify app on the same kind of
// database (same driver, same pragmas) that verifies one HMAC and then inserts one row (the
// write floor) or reads one indexed 10-row page (the read floor). Started by bench/run.ts.
import { randomUUID } from "node:crypto";
import Fastify from "fastify";
import { sql } from "kysely";
import { verifySignature } from "../src/auth/signature.js";
import { parseDatabaseUrl } from "../src/config.js";
import { openStorage } from "../src/storage/database.js";

const FLOOR_SECRET = process.env.FLOOR_SECRET ?? "";
const FLOOR_PARTITION = "floor";

const location = parseDatabaseUrl(process.env.DATABASE_URL ?? "");
if (!location) throw new Error("DATABASE_URL is required");
const storage = openStorage(location);
const db = storage.db;
await sql`create table if not exists floor_rows (id text primary key, partition_key text not null, seq integer not null, payload text not null, created_at text not null)`.execute(
  db,
);
await sql`create index if not exists floor_rows_partition_seq on floor_rows (partition_key, seq)`.execute(db);

// The read floor pages through 10,000 rows of one partition.
const existing = await sql<{
  n: number;
}>`select count(*) as n from floor_rows where partition_key = ${FLOOR_PARTITION}`.execute(db);
if (Number(existing.rows[0]?.n ?? 0) === 0) {
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < 10_000; start += 500) {
      const values = Array.from(
        { length: 500 },
        (_, i) =>
          sql`(${randomUUID()}, ${FLOOR_PARTITION}, ${start + i + 1}, ${"{}"}, ${new Date().toISOString()})`,
      );
      await sql`insert into floor_rows (id, partition_key, seq, payload, created_at) values ${sql.join(values)}`.execute(
        trx,
      );
    }
  });
}

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
  await sql`insert into floor_rows (id, partition_key, seq, payload, created_at) values (${randomUUID()}, ${"writes"}, ${++seq}, ${body.toString()}, ${new Date().toISOString()})`.execute(
    db,
  );
  return reply.code(201).send({ status: "success" });
});

app.get("/read", async (request, reply) => {
  if (!authentic(request.headers, "{}")) return reply.code(401).send({ status: "fail" });
  const rows =
    await sql`select id, payload, created_at from floor_rows where partition_key = ${FLOOR_PARTITION} and seq > ${0} order by seq desc limit 10`.execute(
      db,
    );
  return { status: "success", data: rows.rows };
});

app.get("/ready", async () => ({ status: "success" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
const stop = () =>
  app
    .close()
    .then(() => storage.close())
    .then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
