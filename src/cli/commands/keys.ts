import { parseKeyReference } from "../../businesses/api-keys.js";
import type { ApiKeyStatus } from "../../core/business-states.js";
import { argument, businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";

// A business's API keys, from the CLI.

/** A key argument, checked for its form (id, prefix or whole key) before anything is opened. */
function keyArgument(args: string[]): string {
  const [key] = positionals(args, 1, "<key>") as [string];
  argument(() => parseKeyReference(key));
  return key;
}

/** How every key command's help explains its <key>. */
const KEY_REFERENCE = [
  "<key>: the key's id, its prefix as key list shows it (vak_ and 8 characters), or the whole",
  "API key. A prefix that two keys share is refused (exit 1), listing their ids: give the id.",
];

/** `vas key activate|deactivate|revoke <key>`. */
function setKeyStatus(keyStatus: ApiKeyStatus): Command["run"] {
  return async (args, { io, services }) => {
    const reference = keyArgument(parse(args, {}).positionals);
    const { businesses } = await services();
    const key = await businesses.resolveKey(reference);
    await businesses.setKeyStatus(key.keyId, keyStatus);
    io.stdout(`Key ${key.prefix}... (${key.keyId}) is now ${keyStatus}\n`);
  };
}

export const KEY_COMMANDS: readonly Command[] = [
  {
    name: "key create",
    synopsis: "<businessId> [--json]",
    description: [
      "Create another key pair for the business (for example to rotate a secret with no downtime).",
      '--json prints {"keyId","apiKey","secretKey"}.',
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const pair = await (await services()).businesses.createKey(business);
      if (values.json) return json(io, pair);
      io.stdout(
        `Key id:     ${pair.keyId}\nAPI key:    ${pair.apiKey}\nSecret key: ${pair.secretKey}\nStore the secret key now: it is not shown again.\n`,
      );
    },
  },
  {
    name: "key list",
    synopsis: "<businessId> [--json]",
    description: [
      "List a business's keys (id, prefix, status, oldest signature version accepted; secrets are",
      "never shown again).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const keys = await (await services()).businesses.listKeys(business);
      if (values.json) return json(io, keys);
      io.stdout(
        formatTable(keys, ["keyId", "prefix", "status", "minSignatureVersion", "createdAt", "updatedAt"]),
      );
    },
  },
  {
    name: "key deactivate",
    synopsis: "<key>",
    description: ["Stop a key from authenticating; it can be activated again.", ...KEY_REFERENCE],
    run: setKeyStatus("inactive"),
  },
  {
    name: "key activate",
    synopsis: "<key>",
    description: ["Let a deactivated key authenticate again.", ...KEY_REFERENCE],
    run: setKeyStatus("active"),
  },
  {
    name: "key revoke",
    synopsis: "<key>",
    description: ["Revoke a key for good: it never authenticates or changes again.", ...KEY_REFERENCE],
    run: setKeyStatus("revoked"),
  },
  {
    name: "key require-signature-v2",
    synopsis: "<key> [--off]",
    description: [
      "Make the key refuse requests signed the specification's way (version 1): only",
      "x-signature-version: 2 requests authenticate. --off accepts both again.",
      ...KEY_REFERENCE,
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { off: { type: "boolean" } });
      const reference = keyArgument(rest);
      const { businesses } = await services();
      const key = await businesses.resolveKey(reference);
      await businesses.requireSignatureVersion(key.keyId, values.off ? 1 : 2);
      const name = `${key.prefix}... (${key.keyId})`;
      io.stdout(
        values.off
          ? `Key ${name} accepts signature versions 1 and 2\n`
          : `Key ${name} now requires signature version 2 (x-signature-version: 2)\n`,
      );
    },
  },
  {
    name: "key set-payout-ips",
    synopsis: '<key> [--ips "<address or CIDR>,..." | --any] [--json]',
    description: [
      "Limit the key's payouts and refunds to these client addresses (IPv4 or IPv6 addresses and",
      "CIDR ranges, up to 50): POST /payouts from any other is 403 PAYOUT_IP_NOT_ALLOWED. --any",
      "lifts the limit. Without either, prints the key's list. Behind a proxy, the client address",
      "is the proxy's unless TRUST_PROXY is on.",
      ...KEY_REFERENCE,
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        ips: { type: "string" },
        any: { type: "boolean" },
        json: { type: "boolean" },
      });
      if (values.ips !== undefined && values.any) throw new UsageError("give --ips or --any, not both");
      const reference = keyArgument(rest);
      const { businesses, payoutSettings } = await services();
      const key = await businesses.resolveKey(reference);
      const ips =
        values.ips !== undefined || values.any
          ? await payoutSettings.setKeyPayoutIps(key.keyId, values.any ? null : (values.ips ?? null))
          : await payoutSettings.keyPayoutIps(key.keyId);
      if (values.json) return json(io, { keyId: key.keyId, payoutIps: ips });
      io.stdout(
        `Key ${key.prefix}... (${key.keyId}) sends payouts from ${ips === null ? "any address" : ips.join(", ")}\n`,
      );
    },
  },
];
