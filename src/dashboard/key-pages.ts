import type { FastifyInstance } from "fastify";
import type { ApiKeyStatus } from "../storage/schema.js";
import { ownBusiness } from "./business-scope.js";
import { type DashboardDependencies, page } from "./kit.js";
import { signedIn } from "./sign-in.js";

/** What each button on a key does: the status it sets and the word for the audit log. */
const KEY_ACTIONS = {
  deactivate: "inactive",
  activate: "active",
  revoke: "revoked",
} as const satisfies Record<string, ApiKeyStatus>;

/**
 * A business's API keys: list, create (the secret shown once), deactivate, activate, revoke.
 * The same domain calls and rules as `vas key ...`; another business's key is 404.
 */
export function keyPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/keys", async (request, reply) => {
    const businessId = ownBusiness(signedIn(request).businessId);
    return page(reply, "keys", await keysData(businessId));
  });

  pages.post("/keys", async (request, reply) => {
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    const created = await deps.businesses.createKey(businessId);
    await deps.users.record(session.actor, businessId, "key.created", { keyId: created.keyId });
    return page(
      reply,
      "key-created",
      { ...(await keysData(businessId)), created, title: "Your new API key" },
      201,
    );
  });

  pages.post("/keys/:id/:action", async (request, reply) => {
    const { id, action } = request.params as { id: string; action: string };
    const status = KEY_ACTIONS[action as keyof typeof KEY_ACTIONS];
    if (!status) return reply.callNotFound();
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    await deps.businesses.setOwnKeyStatus(businessId, id, status);
    await deps.users.record(session.actor, businessId, `key.${action}d`, { keyId: id });
    return reply.redirect("/dashboard/keys", 303);
  });

  async function keysData(businessId: string) {
    const [business, keys] = await Promise.all([
      deps.businesses.getBusiness(businessId),
      deps.businesses.listKeys(businessId),
    ]);
    return { title: "API keys", business, keys: [...keys].reverse() };
  }
}
