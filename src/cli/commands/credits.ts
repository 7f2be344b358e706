import type { CreditBlock } from "../../collections/credit-block-records.js";
import { CLI } from "../../core/actor.js";
import { formatNaira } from "../../ledger/kobo.js";
import type { ListedBlock } from "../../ledger/ledger-records.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";
import { formatTable } from "../table.js";

// Erroneous credits from the CLI (issue 46, item 7), as the console's Blocks page: a credit its
// payer's bank disputes blocked (out of available into held), then released or returned to the
// payer. Each move is the domain's, under the business's ledger locks, recorded with the CLI as
// its actor and in the audit log in the same transaction. See docs/ledger.md, Blocks on disputed credits.

const blockText = (block: CreditBlock) =>
  `Block ${block.id}: ${formatNaira(block.amount)} of ${block.transactionId} (session ${block.sessionId}), ` +
  `${block.state}; reason: ${block.reason}\n`;

const listedRow = (b: ListedBlock) => ({
  id: b.id,
  business: b.business_id,
  transaction: b.transaction_id,
  sessionId: b.session_id,
  amount: formatNaira(Number(b.amount)),
  state: b.state,
  blockedAt: b.created_at,
  refund: b.refund_id ?? "",
});

export const CREDIT_COMMANDS: readonly Command[] = [
  {
    name: "credits block",
    synopsis: "<transaction id | NIP session id> --reason <text> [--amount-kobo <n>] [--json]",
    description: [
      "Block an amount of a credit its payer's bank disputes: out of the business's available",
      "balance into held, where it is neither paid out nor settled. The amount is all that is left",
      "of the credit (less its refunds) unless --amount-kobo says a part; refused when the available",
      "balance does not have it. The reason (the dispute's reference) is what the business reads.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        reason: { type: "string" },
        "amount-kobo": { type: "string" },
        json: { type: "boolean" },
      });
      const [credit] = positionals(rest, 1, "the credit's transaction id or NIP session id");
      const reason = values.reason?.trim() ?? "";
      if (reason === "") throw new UsageError("--reason is required: the dispute and its reference");
      const amount = values["amount-kobo"];
      if (amount !== undefined && !/^[1-9]\d{0,15}$/.test(amount))
        throw new UsageError("--amount-kobo must be a whole number of kobo, 1 or more");
      const { creditBlocks } = await services();
      const block = await creditBlocks.block(CLI, {
        credit: credit ?? "",
        reason,
        ...(amount === undefined ? {} : { amount: Number(amount) }),
      });
      if (values.json) json(io, block);
      else io.stdout(blockText(block));
    },
  },
  {
    name: "credits release",
    synopsis: "<block id> [--json]",
    description: ["Release a standing block: its amount back into the business's available balance."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id = ""] = positionals(rest, 1, "the block's id (blk_...)");
      const block = await (await services()).creditBlocks.release(CLI, id);
      if (values.json) json(io, block);
      else io.stdout(blockText(block));
    },
  },
  {
    name: "credits return",
    synopsis: "<block id> [--json]",
    description: [
      "Return a standing block's amount to the credit's payer: a refund from held, with no fee.",
      "If the bank does not make it, the block stands again.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id = ""] = positionals(rest, 1, "the block's id (blk_...)");
      const refund = await (await services()).blockReturns.returnBlock(CLI, id);
      if (values.json) json(io, refund);
      else
        io.stdout(
          `Returning ${formatNaira(refund.amount)} to the payer: refund ${refund.id}, ${refund.status}\n`,
        );
    },
  },
  {
    name: "credits blocks",
    synopsis: "[--all] [--business <businessId>] [--json]",
    description: ["The blocks standing (every block with --all), the newest first, of one business or all."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        all: { type: "boolean" },
        business: { type: "string" },
        json: { type: "boolean" },
      });
      positionals(rest, 0, "no positional arguments");
      const { creditBlocks } = await services();
      const listed = await creditBlocks.list({
        ...(values.all ? {} : { state: "blocked" as const }),
        ...(values.business === undefined ? {} : { businessId: businessId(values.business) }),
      });
      if (values.json) return json(io, listed.map(listedRow));
      io.stdout(
        listed.length === 0
          ? values.all
            ? "No credit was ever blocked.\n"
            : "No block stands.\n"
          : formatTable(listed.map(listedRow), [
              "id",
              "business",
              "transaction",
              "sessionId",
              "amount",
              "state",
              "blockedAt",
              "refund",
            ]),
      );
    },
  },
];
