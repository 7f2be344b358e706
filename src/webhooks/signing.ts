import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

// Standard Webhooks signatures (standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of
// `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the secret's decoded bytes. The
// specification's own package computes it, so a receiver using it always agrees.

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The headers of one delivery attempt, signed by every secret given (two while rotating). */
export function deliveryHeaders(
  id: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, at, body));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
