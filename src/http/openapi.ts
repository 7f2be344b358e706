import { createRequire } from "node:module";
import type { RouteContract } from "./openapi-components.js";
import { components } from "./openapi-document-components.js";
import { documented } from "./openapi-references.js";
import { API_ROUTES } from "./routes/index.js";

/** An OpenAPI 3.1 document, as the JSON it is served as. */
export type OpenApiDocument = { openapi: string } & Record<string, unknown>;

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

/** Each route's own contract, in the order the document lists them (the one route list's). */
export const ROUTE_CONTRACTS: readonly RouteContract[] = API_ROUTES.map((route) => route.contract);

/** A Fastify path (`/account/:accountNumber(^\\d{10}$)`) as an OpenAPI path (`/account/{accountNumber}`). */
export const documentPath = (path: string) => path.replace(/:(\w+)(\([^)]*\))?/g, "{$1}");

/** Every response of a GET without its body, for the HEAD that Fastify answers beside each GET. */
function headOf(responses: Record<string, unknown>) {
  const withoutBodies = Object.entries(responses).map(([status, response]) => {
    const { content: _, ...withoutBody } = response as { description: string; content?: unknown };
    return [
      status,
      { ...withoutBody, description: `As for GET, without a body: ${withoutBody.description}` },
    ];
  });
  return Object.fromEntries(withoutBodies);
}

/** A route's operation as the document lists it. */
export const operationOf = ({ method, path, operation }: RouteContract) =>
  documented(operation, `${method} ${path}`) as RouteContract["operation"];

/** The paths, from the routes' contracts; each GET also gets the HEAD that Fastify answers. */
function paths() {
  const items: Record<string, Record<string, unknown>> = {};
  for (const contract of ROUTE_CONTRACTS) {
    const { method, path, operation, head } = contract;
    const item = items[documentPath(path)] ?? {};
    items[documentPath(path)] = item;
    item[method] = operationOf(contract);
    // Fastify answers HEAD beside every GET: documented as the GET, with the bodies taken out.
    if (method === "get") {
      if (!head) throw new Error(`GET ${path} must describe its HEAD`);
      const described = {
        ...operation,
        ...head,
        operationId: `${operation.operationId}Head`,
        responses: headOf(operation.responses),
      };
      item.head = documented(described, `head ${path}`);
    }
  }
  return items;
}

const DESCRIPTION = `Issues 10-digit Nigerian virtual bank account numbers (NUBANs) to the customers of a verified
business: permanent accounts (one per customer email) and temporary accounts (one per call, with an
expiry time), lists the business's accounts a page at a time, and records the payments made into
them: transactions, a double-entry ledger and the business's balance. Every amount is integer kobo
(NGN 1 = 100 kobo).

Every request is signed with the business's API key and secret key: see the security schemes.
Request bodies are JSON objects sent with \`Content-Type: application/json\`.

Success: \`{"status": "success", "data": ...}\`. Deliberate failures use the \`Fail\` envelope: branch
on \`error.code\`. An unexpected failure (500) is \`InternalError\`. Every response carries
\`x-request-id\`.`;

/** The OpenAPI 3.1 document of the public API, whose operations live under `basePath`. Build it once. */
export function buildOpenApiDocument(basePath: string): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: {
      title: "Virtual Account Service API",
      version,
      description: DESCRIPTION,
      // Self-hosted: whoever runs this server answers for it; package.json says UNLICENSED.
      contact: { name: "The operator of this server" },
      license: { name: "Proprietary: no licence is granted", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: basePath, description: "This server" }],
    tags: [
      { name: "Accounts", description: "Permanent and temporary virtual accounts." },
      {
        name: "Collections",
        description: "Payments into the accounts: transactions and the balance, in kobo.",
      },
      { name: "Sandbox", description: "Simulated transfers, when the server runs with SANDBOX=true." },
      { name: "Events", description: "What happened to the accounts and the money, as webhooks deliver it." },
      { name: "Webhooks", description: "Where events are delivered: endpoints, their secrets, recovery." },
      {
        name: "Banks",
        description: "The banks money can be sent to, and whose an account is (name enquiry).",
      },
      {
        name: "Payouts",
        description:
          "Money sent from the available balance to an account at a bank: held at once, then posted or voided once the bank says.",
      },
      {
        name: "Settlements",
        description:
          "The available balance, less a reserve, paid to the business's own account: by hand or on its schedule (daily or instant), each a payout.",
      },
    ],
    paths: paths(),
    components: components(),
  };
}
