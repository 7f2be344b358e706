export const USAGE = `vas: administer the Virtual Account Service (businesses and API keys)

Usage:
  vas business create --name <name> [--status <status>] [--json]
      Create a business and its first API key pair. The secret key is shown once, here only.
      The name follows the customer-name rules: trimmed and NFC-normalised, 1 to 100 characters,
      no control or bidirectional control characters, at least one visible character.
      --status defaults to not_submitted. --json prints one JSON object:
      {"businessId","name","verificationStatus","apiKey","secretKey"}
  vas business set-status <businessId> <status>
      Change a business's verification status. Only "completed" businesses may call the API.
  vas business list [--json]
      List businesses.
  vas key create <businessId> [--json]
      Create another key pair for the business (for example to rotate a secret with no downtime).
      --json prints {"apiKey","secretKey"}.
  vas key deactivate <apiKey>    Stop a key from authenticating; it can be activated again.
  vas key activate <apiKey>      Let a deactivated key authenticate again.
  vas key revoke <apiKey>        Revoke a key for good.
  vas key list <businessId> [--json]
      List a business's keys (id, prefix, status, oldest signature version accepted; secrets are
      never shown again).
  vas key require-signature-v2 <keyId> [--off]
      Make the key refuse requests signed the specification's way (version 1): only
      x-signature-version: 2 requests authenticate. --off accepts both again.
  vas secrets rotate-master-key [--json]
      Re-seal every stored secret under VAS_MASTER_KEY (the new key), opening the old ones with
      VAS_MASTER_KEY_PREVIOUS (the old key, comma-separated if several). Procedure: generate a new
      key; restart every server with VAS_MASTER_KEY=<new> VAS_MASTER_KEY_PREVIOUS=<old>; run this
      command with the same two variables; then drop VAS_MASTER_KEY_PREVIOUS everywhere.
  vas request <METHOD> <path> [--data <json>] [--idempotency-key <key>]
             [--api-key <key>] [--secret-key <secret>] [--base-url <url>]
      Sign and send one API request and print the status and body (for debugging a first
      integration). Keys and URL default to VAS_API_KEY, VAS_SECRET_KEY and VAS_BASE_URL
      (http://127.0.0.1:3000). Example: vas request POST /account/generate --data '{"name":"Ada",...}'
      Exit code 1 when the API answers 4xx/5xx or cannot be reached.
  vas --help
      Show this help.

Statuses: completed, in_progress, rejected, not_submitted.

The CLI works on the database named by DATABASE_URL (default sqlite:./data/vas.db), with the
master key from VAS_MASTER_KEY or <DATA_DIR>/master.key: run it with the same environment as the
server. Exit codes: 0 success, 1 the operation failed, 2 bad arguments.
`;
