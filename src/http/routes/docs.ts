import fastifySwagger, { type StaticDocumentSpec } from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import type { OpenApiDocument } from "../openapi.js";

// Swagger UI's files are served from the package (node_modules), never from a CDN; the policy
// keeps the browser from loading anything from elsewhere too (Swagger UI injects a <style>).
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; " +
  "frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; " +
  "script-src-attr 'none'; style-src 'self' 'unsafe-inline'";

/** GET /docs (no authentication): the API reference, rendered by Swagger UI from the built document. */
export function docsRoute(app: FastifyInstance, document: OpenApiDocument): void {
  app.register(async (scope) => {
    await scope.register(fastifySwagger, {
      mode: "static",
      // Its types know OpenAPI 2 and 3.0 documents only; static mode serves any document as given.
      specification: { document: document as unknown as StaticDocumentSpec["document"] },
    });
    await scope.register(fastifySwaggerUi, {
      routePrefix: "/docs",
      staticCSP: CONTENT_SECURITY_POLICY,
      // The document declares no response links: Swagger UI's "Links" column would say "No links"
      // on every response, and at phone width it pushes the page sideways.
      theme: {
        title: "Virtual Account Service API",
        css: [{ filename: "vas.css", content: ".response-col_links { display: none; }" }],
      },
      // BaseLayout: no top bar (a logo and a box to explore other documents).
      uiConfig: {
        layout: "BaseLayout",
        docExpansion: "list",
        deepLinking: true,
        defaultModelsExpandDepth: 1,
      },
    });
  });
}
