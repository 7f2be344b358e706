import type { Storage } from "../storage/database.js";
import { keepSessionReveal, takeSessionReveal } from "../storage/team-repository.js";
import type { SecretBox } from "./secret-box.js";

// A form that makes a secret (an API key pair, a webhook's signing secret, recovery codes) ends
// in a redirect like every form, so a refresh never makes another. The secret waits for the
// page it lands on in the session's row, sealed by the master key and bound to the session and
// its kind, and the first page that asks takes it: shown once, then gone.

/** What a page may be handed once, by kind. */
export type RevealKind = "api_key" | "webhook_secret" | "recovery_codes";

export class OneTimeReveals {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
  ) {}

  /** Keeps `value` for the session's next page that takes `kind` (anything kept before is replaced). */
  async keep(sessionId: string, kind: RevealKind, value: unknown): Promise<void> {
    const sealed = this.box.seal(JSON.stringify(value), context(sessionId, kind));
    await keepSessionReveal(this.storage.db, sessionId, `${kind}:${sealed}`);
  }

  /** What the session kept of `kind`, once; undefined when nothing (or something else) was kept. */
  async take<T>(sessionId: string, kind: RevealKind): Promise<T | undefined> {
    const kept = await takeSessionReveal(this.storage.db, sessionId, `${kind}:`);
    if (kept === undefined) return undefined;
    return JSON.parse(this.box.open(kept.slice(kind.length + 1), context(sessionId, kind))) as T;
  }
}

const context = (sessionId: string, kind: RevealKind) => `reveal:${kind}:${sessionId}`;
