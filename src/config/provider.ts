import type { KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { rsaPrivateKey, rsaPublicKey } from "../providers/bank-signing.js";
import type { ParsedEnvironment } from "./environment.js";

// The account provider's part of the configuration (issue 14, docs/bank-integration.md): with
// PROVIDER=http the bank's address, the service's identity and key files, read and checked at
// start, and the resilience settings. load.ts calls this with what environment.ts parsed.

/** PROVIDER=http: the bank's address, the service's identity and keys, and the resilience settings. */
export type ProviderConfig =
  | { kind: "embedded" }
  | {
      kind: "http";
      url: string;
      appId: string;
      /** The service's RSA private key: signs every call to the bank. */
      privateKey: KeyObject;
      /** The bank's RSA public key: verifies its notifications. */
      bankPublicKey: KeyObject;
      timeoutMs: number;
      createAttempts: number;
      /** The longest one account's opening may take, retries included. */
      createBudgetMs: number;
      breakerThreshold: number;
      breakerHalfOpenMs: number;
    };

/** The variables the provider's settings come from, as environment.ts parsed them. */
export type ProviderVariables = Pick<
  ParsedEnvironment,
  | "NODE_ENV"
  | "PROVIDER"
  | "BANK_URL"
  | "BANK_APP_ID"
  | "BANK_PRIVATE_KEY_FILE"
  | "BANK_PUBLIC_KEY_FILE"
  | "BANK_TIMEOUT_MS"
  | "BANK_CREATE_ATTEMPTS"
  | "BANK_CREATE_BUDGET_MS"
  | "BANK_BREAKER_THRESHOLD"
  | "BANK_BREAKER_HALF_OPEN_MS"
>;

/**
 * The provider settings; every problem is added to `problems` (a missing variable, an
 * unreadable, non-PEM or non-RSA key file), for load.ts to report with the rest.
 */
export function providerConfig(e: ProviderVariables, problems: string[]): ProviderConfig {
  if (e.PROVIDER === "embedded") return { kind: "embedded" };
  const required = ["BANK_URL", "BANK_APP_ID", "BANK_PRIVATE_KEY_FILE", "BANK_PUBLIC_KEY_FILE"] as const;
  for (const name of required) {
    if (e[name] === undefined) problems.push(`${name} is required when PROVIDER=http`);
  }
  if (e.NODE_ENV === "production" && e.BANK_URL?.startsWith("http://")) {
    problems.push("BANK_URL must be https:// when NODE_ENV=production");
  }
  const key = (name: "BANK_PRIVATE_KEY_FILE" | "BANK_PUBLIC_KEY_FILE", parse: typeof rsaPublicKey) => {
    const file = e[name];
    if (file === undefined) return undefined;
    try {
      return parse(readFileSync(path.resolve(file), "utf8"), `${name} (${file})`);
    } catch (error) {
      const message = (error as NodeJS.ErrnoException).code
        ? `${name} (${file}) cannot be read: ${(error as Error).message}`
        : (error as Error).message;
      problems.push(message);
      return undefined;
    }
  };
  const privateKey = key("BANK_PRIVATE_KEY_FILE", rsaPrivateKey);
  const bankPublicKey = key("BANK_PUBLIC_KEY_FILE", rsaPublicKey);
  if (!e.BANK_URL || !e.BANK_APP_ID || !privateKey || !bankPublicKey) return { kind: "embedded" };
  return {
    kind: "http",
    url: e.BANK_URL,
    appId: e.BANK_APP_ID,
    privateKey,
    bankPublicKey,
    timeoutMs: e.BANK_TIMEOUT_MS,
    createAttempts: e.BANK_CREATE_ATTEMPTS,
    createBudgetMs: Math.max(e.BANK_CREATE_BUDGET_MS, e.BANK_TIMEOUT_MS),
    breakerThreshold: e.BANK_BREAKER_THRESHOLD,
    breakerHalfOpenMs: e.BANK_BREAKER_HALF_OPEN_MS,
  };
}
