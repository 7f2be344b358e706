import type { BusinessService } from "../../businesses/business-service.js";
import type { ForBusiness } from "../../core/actor.js";
import { check } from "../../core/validation.js";
import { isAppError } from "../../errors.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";

// Webhook endpoints from the CLI, for an operator acting for a business (the API is the
// business's own way): add, list, enable and remove. See docs/webhooks.md.

/** The business as the domain takes it; an unknown id is an error (exit 1). */
async function forBusiness(businesses: BusinessService, id: string): Promise<ForBusiness> {
  try {
    const business = await businesses.getBusiness(id);
    return { businessId: business.businessId, businessName: business.name };
  } catch (error) {
    if (isAppError(error) && error.statusCode === 404) throw new Error(`no business has id ${id}`);
    throw error;
  }
}

/** A domain refusal of an argument (a bad URL, an unknown type) is a usage error: exit 2. */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.statusCode === 400) throw new UsageError(error.message);
    throw error;
  }
}

/** `<businessId> <endpointId>`, the business id checked before anything is opened. */
function endpointArgs(args: string[]): [string, string] {
  const [id, endpoint] = positionals(parse(args, {}).positionals, 2, "<businessId> <endpointId>") as [
    string,
    string,
  ];
  return [businessId(id), endpoint];
}

export const WEBHOOK_COMMANDS: readonly Command[] = [
  {
    name: "webhook add",
    synopsis: "<businessId> <url> [--events <type,type>] [--json]",
    description: [
      "Add a webhook endpoint for the business: its events are POSTed to <url>, signed as Standard",
      "Webhooks says. --events limits the types (default: every type). Prints the endpoint and its",
      "secret, which is shown this once.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        events: { type: "string" },
        json: { type: "boolean" },
      });
      const [id, url] = positionals(rest, 2, "<businessId> <url>") as [string, string];
      const business = businessId(id);
      const events = values.events?.split(",").map((type) => type.trim());
      const { businesses, webhooks } = await services();
      const created = await asUsage(async () =>
        webhooks.create(
          await forBusiness(businesses, business),
          check(webhooks.inputs.create, { url, ...(events ? { events } : {}) }),
        ),
      );
      if (values.json) return json(io, created);
      io.stdout(
        `Endpoint ${created.id} for ${created.url} (${created.events?.join(", ") ?? "every event type"})\n` +
          `Secret (shown once): ${created.secret}\n`,
      );
    },
  },
  {
    name: "webhook list",
    synopsis: "<businessId> [--json]",
    description: ["The business's webhook endpoints, without their secrets."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const { businesses, webhooks } = await services();
      const endpoints = await webhooks.list(await forBusiness(businesses, business));
      if (values.json) return json(io, endpoints);
      io.stdout(
        formatTable(
          endpoints.map((e) => ({
            id: e.id,
            url: e.url,
            events: e.events?.join(",") ?? "*",
            enabled: e.enabled ? "yes" : `no (${e.disabledReason ?? ""})`,
          })),
          ["id", "url", "events", "enabled"],
        ),
      );
    },
  },
  {
    name: "webhook enable",
    synopsis: "<businessId> <endpointId>",
    description: [
      "Enable a disabled endpoint again (after a 410 or 5 days of failures): new events go to it.",
    ],
    run: async (args, { io, services }) => {
      const [business, endpoint] = endpointArgs(args);
      const { businesses, webhooks } = await services();
      await webhooks.update(await forBusiness(businesses, business), endpoint, { enabled: true });
      io.stdout(`Endpoint ${endpoint} enabled\n`);
    },
  },
  {
    name: "webhook remove",
    synopsis: "<businessId> <endpointId>",
    description: ["Delete an endpoint: it gets nothing more, its pending deliveries are cancelled."],
    run: async (args, { io, services }) => {
      const [business, endpoint] = endpointArgs(args);
      const { businesses, webhooks } = await services();
      await webhooks.remove(await forBusiness(businesses, business), endpoint);
      io.stdout(`Endpoint ${endpoint} removed\n`);
    },
  },
];
