import type { FastifyInstance, FastifyReply } from "fastify";
import { serviceDegraded } from "../../errors.js";
import { failBody } from "../error-handler.js";
import type { HealthMonitor } from "../health.js";

/**
 * Health endpoints (no authentication, no rate limit), for load balancers and supervisors:
 * - GET /health/live: the process runs and its event loop turns; never touches the database.
 * - GET /health/ready (and GET /health): the database answers and takes writes, and the last
 *   writes did not fail; else 503 `SERVICE_DEGRADED` with what is wrong.
 */
export function healthRoutes(app: FastifyInstance, monitor: HealthMonitor): void {
  app.get("/health/live", async () => ({ status: "success", data: { status: "live" } }));
  const ready = async (_request: unknown, reply: FastifyReply) => {
    const health = await monitor.check();
    if (health.ok) return { status: "success", data: { status: "ok", database: "ok" } };
    return reply
      .code(503)
      .header("retry-after", "5")
      .send({
        ...failBody(serviceDegraded(health.reason)),
        data: { status: "degraded", database: health.database },
      });
  };
  app.get("/health", ready);
  app.get("/health/ready", ready);
}
