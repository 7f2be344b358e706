import { createClient, serviceRoot } from "../../client/index.js";
import { type Command, parse, positionals, UsageError } from "../command.js";

// `vas request`: one signed API call, for debugging an integration.

/** `vas request` got an error answer: already printed, exit 1. */
class RequestFailed extends Error {
  constructor(readonly status: number) {
    super(`the API answered ${status}`);
  }
}

export const REQUEST_COMMANDS: readonly Command[] = [
  {
    name: "request",
    synopsis:
      "<METHOD> <path> [--data <json>] [--idempotency-key <key>]\n[--api-key <key>] [--secret-key <secret>] [--base-url <url>]",
    description: [
      "Sign and send one API request and print the status and body (for debugging a first",
      "integration). Keys and URL default to VAS_API_KEY, VAS_SECRET_KEY and VAS_BASE_URL",
      '(http://127.0.0.1:3000). Example: vas request POST /account/generate --data \'{"name":"Ada",...}\'',
      "Exit code 1 when the API answers 4xx/5xx or cannot be reached.",
    ],
    run: async (args, { io, client: clientEnvironment }) => {
      const { values, positionals: rest } = parse(args, {
        data: { type: "string" },
        "api-key": { type: "string" },
        "secret-key": { type: "string" },
        "base-url": { type: "string" },
        "idempotency-key": { type: "string" },
      });
      const [method, path] = positionals(rest, 2, "<METHOD> <path>") as [string, string];
      if (!/^(GET|POST|PUT|PATCH|DELETE)$/i.test(method)) throw new UsageError(`unknown method "${method}"`);
      if (!path.startsWith("/")) throw new UsageError('the path starts with "/", e.g. /account/list?page=1');
      const fromEnv = clientEnvironment();
      const apiKey = values["api-key"] ?? fromEnv.apiKey;
      const secretKey = values["secret-key"] ?? fromEnv.secretKey;
      const baseUrl = values["base-url"] ?? fromEnv.baseUrl;
      if (!apiKey || !secretKey)
        throw new UsageError("give --api-key and --secret-key, or set VAS_API_KEY and VAS_SECRET_KEY");
      // Either form is fine (with or without /api/v1/external); anything but http(s) is a usage error.
      try {
        serviceRoot(baseUrl);
      } catch {
        throw new UsageError(
          `--base-url (or VAS_BASE_URL) must be an http:// or https:// URL, not "${baseUrl}"`,
        );
      }
      let body: unknown;
      if (values.data !== undefined) {
        try {
          body = JSON.parse(values.data);
        } catch {
          throw new UsageError("--data must be JSON");
        }
      }
      const client = createClient({ baseUrl, apiKey, secretKey, maxRetries: 0 });
      const response = await client.request(method, path.replace(/^\/api\/v1\/external(?=\/)/, ""), body, {
        ...(values["idempotency-key"] ? { idempotencyKey: values["idempotency-key"] } : {}),
      });
      io.stdout(
        `HTTP ${response.status}\n${typeof response.body === "string" ? response.body : JSON.stringify(response.body, null, 2)}\n`,
      );
      if (response.status >= 400) throw new RequestFailed(response.status);
    },
  },
];
