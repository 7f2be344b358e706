import type { FastifyInstance, FastifyRequest } from "fastify";
import type { IssuedKeyPair } from "../businesses/api-keys.js";
import type { ApiKeyStatus } from "../core/business-states.js";
import { AppError, ErrorCode } from "../errors.js";
import { ownBusiness } from "./business-scope.js";
import { type DashboardDependencies, doneNotice, doneRedirect, type Form, page } from "./kit.js";
import { signedIn } from "./sign-in.js";

/** What each button on a key does: the status it sets and the word for the audit log. */
const KEY_ACTIONS = {
  deactivate: "inactive",
  activate: "active",
  revoke: "revoked",
} as const satisfies Record<string, ApiKeyStatus>;

const NOTICES: Record<string, string> = {
  created:
    "The key pair is made. Its secret was shown once, on the page after creating it: if it was not copied, revoke this key and create another.",
  deactivated: "The key is deactivated: the API refuses it until it is activated again.",
  activated: "The key is active again.",
  revoked: "The key is revoked: the API refuses it from now on, for good.",
};

const noSuchKey = () => new AppError(ErrorCode.NOT_FOUND, 404, "There is no such API key");

/**
 * A business's API keys: list, create (the secret shown once, on the page the form lands on),
 * deactivate, activate, and revoke, which asks for the key's prefix to be typed and warns when
 * it is the last active key; deactivating the last active key warns too, and asks to confirm. The same domain calls and rules as `vas key ...`; another
 * business's key is 404.
 */
export function keyPages(pages: FastifyInstance, deps: DashboardDependencies): void {
  pages.get("/keys", async (request, reply) => {
    const session = signedIn(request);
    const data = await keysData(ownBusiness(session.businessId));
    const created = await deps.reveals.take<IssuedKeyPair>(session.id, "api_key");
    if (created) return page(reply, "key-created", { ...data, created, title: "Your new API key" });
    return page(reply, "keys", { ...data, done: doneNotice(request.query, NOTICES) });
  });

  pages.post("/keys", async (request, reply) => {
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    const created = await deps.businesses.createKey(businessId);
    await deps.users.record(session.actor, businessId, "key.created", { keyId: created.keyId });
    await deps.reveals.keep(session.id, "api_key", created);
    return doneRedirect(reply, "/dashboard/keys", "created");
  });

  pages.get("/keys/:id/revoke", async (request, reply) =>
    page(reply, "key-revoke", await keyData(request, "Revoke")),
  );

  pages.post("/keys/:id/:action", async (request, reply) => {
    const { id, action } = request.params as { id: string; action: string };
    const status = KEY_ACTIONS[action as keyof typeof KEY_ACTIONS];
    if (!status) return reply.callNotFound();
    const session = signedIn(request);
    const businessId = ownBusiness(session.businessId);
    if (action === "deactivate" && (request.body as Form).confirm !== "yes") {
      // The only active key stops the business's API calls: asked once more, as revoking asks.
      const data = await keyData(request, "Deactivate");
      if (data.lastActive) return page(reply, "key-deactivate", data);
    }
    if (action === "revoke") {
      const data = await keyData(request, "Revoke");
      const typed = ((request.body as Form).prefix ?? "").trim().replace(/…$/, "");
      if (typed !== data.key.prefix) {
        const error =
          typed === ""
            ? "Type the key's prefix to revoke it"
            : `That is not this key's prefix: type ${data.key.prefix} to revoke it`;
        return page(reply, "key-revoke", { ...data, error, typed }, 400);
      }
    }
    await deps.businesses.setOwnKeyStatus(businessId, id, status);
    await deps.users.record(session.actor, businessId, `key.${action}d`, { keyId: id });
    return doneRedirect(reply, "/dashboard/keys", `${action}d`);
  });

  async function keysData(businessId: string) {
    const [business, keys] = await Promise.all([
      deps.businesses.getBusiness(businessId),
      deps.businesses.listKeys(businessId),
    ]);
    return { title: "API keys", business, keys: [...keys].reverse() };
  }

  /** The key to revoke or deactivate (the business's own, not yet revoked) and whether it is the last active one. */
  async function keyData(request: FastifyRequest, verb: "Revoke" | "Deactivate") {
    const { id } = request.params as { id: string };
    const keys = await deps.businesses.listKeys(ownBusiness(signedIn(request).businessId));
    const key = keys.find((k) => k.keyId === id && k.status !== "revoked");
    if (!key) throw noSuchKey();
    const lastActive = key.status === "active" && keys.filter((k) => k.status === "active").length === 1;
    return { title: `${verb} key ${key.prefix}`, key, lastActive, typed: "" };
  }
}
