import type { FastifyInstance } from "fastify";
import type { OpenApiDocument } from "../openapi.js";

/**
 * GET /api/v1/external/openapi.json (no authentication): the OpenAPI 3.1 document of the API.
 * Registered outside the authenticated scope, with the full path; serialised once.
 */
export function openApiRoute(app: FastifyInstance, url: string, document: OpenApiDocument): void {
  const body = JSON.stringify(document);
  app.get(url, async (_request, reply) => reply.type("application/json; charset=utf-8").send(body));
}
