import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import type { Executor } from "../../storage/transactions.js";

/** GET /health (no authentication): 200 when the database answers, 503 otherwise. For load balancers. */
export function healthRoute(app: FastifyInstance, db: Executor): void {
  app.get("/health", async () => {
    await sql`select 1`.execute(db);
    return { status: "success", data: { database: "ok" } };
  });
}
