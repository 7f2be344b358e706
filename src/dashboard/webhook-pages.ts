import type { FastifyInstance } from "fastify";
import { asFieldRefusal, checkForm } from "../core/form-fields.js";
import { check } from "../core/validation.js";
import { SUBSCRIBABLE_TYPES } from "../events/outbox.js";
import { ownBusiness } from "./business-scope.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { refusal, signedIn } from "./sign-in.js";

const RECENT_EVENTS = 20;

/**
 * A business's webhooks: its endpoints (add, enable, disable, remove, rotate the secret, send a
 * test event), its recent events with each delivery's state (endpoint.disabled among them), and
 * an event's attempts with a button to deliver it again. Every action is the API's own domain
 * call; the worker delivers, never the page.
 */
export function webhookPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  const ownedBy = async (businessId: string | null) => {
    const summary = await deps.businesses.getBusiness(ownBusiness(businessId));
    return { businessId: summary.businessId, businessName: summary.name };
  };

  const overview = async (business: { businessId: string; businessName: string }) => {
    const [endpoints, events] = await Promise.all([
      deps.webhooks.list(business),
      deps.events.list(business, { page: 1, limit: RECENT_EVENTS }),
    ]);
    return { title: "Webhooks", endpoints, events: events.items, types: SUBSCRIBABLE_TYPES, form: {} };
  };

  pages.get("/webhooks", async (request, reply) => {
    const session = signedIn(request);
    const business = await ownedBy(session.businessId);
    const shown = await deps.reveals.take<{ endpoint: unknown; title: string }>(session.id, "webhook_secret");
    if (shown) return page(reply, "webhook-secret", { ...(await overview(business)), ...shown });
    return page(reply, "webhooks", {
      ...(await overview(business)),
      notice: doneNotice(request.query, NOTICES),
    });
  });

  pages.post("/webhooks", async (request, reply) => {
    const session = signedIn(request);
    const business = await ownedBy(session.businessId);
    const form = request.body as Form;
    try {
      const events = eventsOf(form);
      const created = await deps.webhooks.create(
        business,
        check(deps.webhooks.inputs.create, {
          url: checkForm(form, { url: { label: "URL", check: (value: string) => value.trim() } }).url,
          ...(events ? { events } : {}),
        }),
      );
      await deps.users.record(session.actor, business.businessId, "webhook.created", {
        endpointId: created.id,
      });
      await deps.reveals.keep(session.id, "webhook_secret", { endpoint: created, title: "Endpoint added" });
    } catch (error) {
      const worded = asFieldRefusal(error, { url: { field: "url", label: "URL" } });
      return refusal(reply, worded, "webhooks", { ...(await overview(business)), form });
    }
    return doneRedirect(reply, "/dashboard/webhooks", "added");
  });

  // An endpoint's URL and events, changed as PATCH /webhooks/:id changes them.
  pages.get("/webhooks/:id/edit", async (request, reply) => {
    const business = await ownedBy(signedIn(request).businessId);
    const { id } = request.params as { id: string };
    const endpoint = await deps.webhooks.get(business, id);
    const form: Record<string, string> = { url: endpoint.url };
    for (const type of endpoint.events ?? []) form[`event:${type}`] = "on";
    return page(reply, "webhook-edit", {
      title: "Change the endpoint",
      endpoint,
      types: SUBSCRIBABLE_TYPES,
      form,
    });
  });

  pages.post("/webhooks/:id/edit", async (request, reply) => {
    const session = signedIn(request);
    const business = await ownedBy(session.businessId);
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    const endpoint = await deps.webhooks.get(business, id);
    try {
      const { url } = checkForm(form, { url: { label: "URL", check: (value: string) => value.trim() } });
      const events = eventsOf(form);
      await deps.webhooks.update(business, id, check(deps.webhooks.inputs.update, { url, events }));
      // Where payment data goes is worth keeping: the URL and events before and after.
      await deps.users.record(session.actor, business.businessId, "webhook.updated", {
        endpointId: id,
        from: { url: endpoint.url, events: endpoint.events },
        to: { url, events },
      });
    } catch (error) {
      const worded = asFieldRefusal(error, { url: { field: "url", label: "URL" } });
      return refusal(reply, worded, "webhook-edit", {
        title: "Change the endpoint",
        endpoint,
        types: SUBSCRIBABLE_TYPES,
        form,
      });
    }
    return doneRedirect(reply, "/dashboard/webhooks", "updated");
  });

  pages.post("/webhooks/:id/:action", async (request, reply) => {
    const session = signedIn(request);
    const business = await ownedBy(session.businessId);
    const { id, action } = request.params as { id: string; action: string };
    switch (action) {
      case "rotate": {
        const rotated = await deps.webhooks.rotateSecret(business, id);
        await deps.users.record(session.actor, business.businessId, "webhook.secret_rotated", {
          endpointId: id,
        });
        await deps.reveals.keep(session.id, "webhook_secret", {
          endpoint: rotated,
          title: "New signing secret",
        });
        return doneRedirect(reply, "/dashboard/webhooks", "rotated");
      }
      case "test":
        await deps.webhooks.sendTest(business, id);
        return doneRedirect(reply, "/dashboard/webhooks", "test");
      case "enable":
      case "disable":
        await deps.webhooks.update(business, id, { enabled: action === "enable" });
        await deps.users.record(session.actor, business.businessId, `webhook.${action}d`, { endpointId: id });
        return doneRedirect(reply, "/dashboard/webhooks", `${action}d`);
      case "delete":
        if ((request.body as Form).confirm !== "yes") {
          return page(
            reply,
            "webhooks",
            {
              ...(await overview(business)),
              deleteError: "Tick the box beside Remove to confirm: a removed endpoint gets nothing more.",
            },
            400,
          );
        }
        await deps.webhooks.remove(business, id);
        await deps.users.record(session.actor, business.businessId, "webhook.deleted", { endpointId: id });
        return doneRedirect(reply, "/dashboard/webhooks", "deleted");
      default:
        return reply.callNotFound();
    }
  });

  pages.get("/events/:id", async (request, reply) => {
    const business = await ownedBy(signedIn(request).businessId);
    const { id } = request.params as { id: string };
    const [event, attempts, endpoints] = await Promise.all([
      deps.events.get(business, id),
      deps.redelivery.attempts(business, id),
      deps.webhooks.list(business),
    ]);
    return page(reply, "event", {
      title: `Event ${event.type}`,
      event,
      attempts,
      urls: Object.fromEntries(endpoints.map((endpoint) => [endpoint.id, endpoint.url])),
      json: JSON.stringify(event.data, null, 2),
      notice: doneNotice(request.query, NOTICES),
    });
  });

  pages.post("/events/:id/redeliver", async (request, reply) => {
    const business = await ownedBy(signedIn(request).businessId);
    const { id } = request.params as { id: string };
    await deps.redelivery.redeliver(business, id, {});
    return doneRedirect(reply, `/dashboard/events/${encodeURIComponent(id)}`, "redelivered");
  });
}

/** The event types ticked: null (every type, as the API's default) when none or all are. */
function eventsOf(form: Form): string[] | null {
  const chosen = SUBSCRIBABLE_TYPES.filter((type) => form[`event:${type}`] === "on");
  return chosen.length > 0 && chosen.length < SUBSCRIBABLE_TYPES.length ? chosen : null;
}

/** What an action that redirects says on the page it lands on. */
const NOTICES: Record<string, string> = {
  added:
    "The endpoint is added. Its signing secret was shown once, on the page after adding it: if it was not copied, rotate the secret.",
  rotated:
    "The signing secret is rotated. The new one was shown once; for 24 hours deliveries are signed with both.",
  enabled: "The endpoint is enabled: deliveries start again.",
  disabled: "The endpoint is disabled: nothing is sent to it until it is enabled.",
  test: "A webhook.test event is queued: it shows below, and its delivery within seconds.",
  deleted: "The endpoint is removed; its pending deliveries are cancelled.",
  updated: "The endpoint is changed: new events go to its URL, for the event types it takes now.",
  redelivered: "Queued again: the worker delivers it within seconds, with the same webhook-id.",
};
