import { rotateMasterKey } from "../../businesses/master-key-rotation.js";
import { type Command, json, parse, positionals, UsageError } from "../command.js";

// The stored secrets, re-sealed when the master key changes.

export const SECRET_COMMANDS: readonly Command[] = [
  {
    name: "secrets rotate-master-key",
    synopsis: "[--json]",
    description: [
      "Re-seal every stored secret under VAS_MASTER_KEY (the new key), opening the old ones with",
      "VAS_MASTER_KEY_PREVIOUS (the old key, comma-separated if several). Procedure: generate a new",
      "key; restart every server with VAS_MASTER_KEY=<new> VAS_MASTER_KEY_PREVIOUS=<old>; run this",
      "command with the same two variables; then drop VAS_MASTER_KEY_PREVIOUS everywhere.",
      "Without VAS_MASTER_KEY it refuses (exit 2): <DATA_DIR>/master.key is never used here.",
    ],
    run: async (args, { io, config, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      positionals(rest, 0, "no positional arguments");
      // Rotating to the key file (or to a key generated on the spot) would leave the servers,
      // which run with VAS_MASTER_KEY, unable to open anything: the new key must be explicit.
      if (!config().masterKey) {
        throw new UsageError(
          "VAS_MASTER_KEY is not set: set it to the new master key (and VAS_MASTER_KEY_PREVIOUS to the old); nothing was changed",
        );
      }
      const opened = await services();
      const report = await rotateMasterKey(opened.storage, opened.box);
      if (values.json) return json(io, report);
      io.stdout(
        `Re-sealed ${report.resealed} secret(s) under the current master key (${report.alreadyCurrent} already were).\n` +
          "Once every server runs with this VAS_MASTER_KEY, remove VAS_MASTER_KEY_PREVIOUS.\n",
      );
    },
  },
];
