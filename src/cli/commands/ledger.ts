import { readCheckpointKey, recordCheckpoint } from "../../ledger-audit/checkpoint.js";
import { verifyLedger } from "../../ledger-audit/verify.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";

// The operator's view of the ledger: prove it (verify, with its checkpoints), and see the
// notifications refused as conflicts. See docs/ledger.md.

const MAX_CONFLICTS = 1000;

export const LEDGER_COMMANDS: readonly Command[] = [
  {
    name: "ledger verify",
    synopsis: "[--business <businessId>] [--json]",
    description: [
      "Recompute the ledger from its entries: every ledger account's balance, entry count and hash",
      "chain, every transaction's sum (zero), each business's totals against its transactions, and",
      "each account's running totals, and every checkpoint (its MAC, and its entry still in the chain).",
      "Prints every drift, where and what; exit 1 when there is any.",
      "Read-only, in one snapshot of the database: safe on a live database, where what lands while it",
      "reads is not a drift.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        business: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      const business = values.business === undefined ? undefined : businessId(values.business);
      const { storage, box } = await services();
      const checkpointKey = await readCheckpointKey(storage.db, box);
      const report = await verifyLedger(storage.db, {
        ...(business === undefined ? {} : { businessId: business }),
        ...(checkpointKey ? { checkpointKey } : {}),
      });
      if (values.json) json(io, report);
      else {
        const scope = business === undefined ? "the ledger" : `business ${business}`;
        const checkpoints = report.checkpoints > 0 ? `, ${report.checkpoints} checkpoints` : "";
        io.stdout(
          `Verified ${scope}: ${report.ledgerAccounts} ledger accounts, ${report.entries} entries, ` +
            `${report.transactions} transactions${checkpoints}.\n`,
        );
        for (const drift of report.drifts) io.stdout(`DRIFT ${drift.where}: ${drift.problem}\n`);
        if (report.moreDrifts > 0) io.stdout(`... and ${report.moreDrifts} more drifts\n`);
        if (report.drifts.length === 0) io.stdout("No drift.\n");
      }
      const total = report.drifts.length + report.moreDrifts;
      if (total > 0) throw new Error(`${total} ${total === 1 ? "drift" : "drifts"} found`);
    },
  },
  {
    name: "ledger checkpoint",
    synopsis: "[--json]",
    description: [
      "Record a checkpoint now: the entry count and head hash of every ledger account whose head moved",
      "since its last checkpoint, under a MAC whose key the master key seals (servers record one hourly).",
      "verify then reports any checkpointed entry that is no longer in its chain. Prints what it recorded:",
      "keep that output somewhere this database's writers cannot reach (see docs/ledger.md).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      positionals(rest, 0, "no positional arguments");
      const { storage, box } = await services();
      const run = await recordCheckpoint(storage, box);
      if (values.json) return json(io, run);
      if (run.checkpoints.length === 0) {
        io.stdout("Nothing to record: no ledger account's head moved since its last checkpoint.\n");
        return;
      }
      io.stdout(
        `Recorded checkpoint ${run.runId} at ${run.recordedAt}: ${run.checkpoints.length} ledger accounts.\n`,
      );
      io.stdout(formatTable(run.checkpoints, ["ledgerAccountId", "entryCount", "headHash"]));
    },
  },
  {
    name: "ledger conflicts",
    synopsis: "[--business <businessId>] [--limit <n>] [--json]",
    description: [
      "Bank notifications refused because their session id was first recorded with another account",
      "number, amount or currency: most recently seen first, each with what was first recorded (which",
      "stands) and how many times it came. Take each up with the bank. --limit defaults to 100.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        business: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      const business = values.business === undefined ? undefined : businessId(values.business);
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONFLICTS)
        throw new UsageError(`--limit must be a whole number from 1 to ${MAX_CONFLICTS}`);
      const { collectionReads } = await services();
      const conflicts = await collectionReads.conflicts({
        limit,
        ...(business === undefined ? {} : { businessId: business }),
      });
      if (values.json) return json(io, conflicts);
      io.stdout(
        formatTable(
          conflicts.map((c) => ({
            lastSeenAt: c.lastSeenAt,
            sessionId: c.sessionId,
            refused: `${c.refused.accountNumber} ${c.refused.amount} ${c.refused.currency}`,
            recorded: `${c.recorded.accountNumber} ${c.recorded.amount} ${c.recorded.currency}`,
            transaction: c.recorded.transactionId,
            attempts: c.attempts,
          })),
          ["lastSeenAt", "sessionId", "refused", "recorded", "transaction", "attempts"],
        ),
      );
    },
  },
];
