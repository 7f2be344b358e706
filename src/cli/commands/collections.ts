import { formatPercent, parsePercent } from "../../ledger/fees.js";
import { businessId, type Command, json, parse, positionals, UsageError } from "../command.js";

// The collections side from the CLI: a business's fee, and sandbox transfers.

const WHOLE = /^\d{1,16}$/;

export const COLLECTION_COMMANDS: readonly Command[] = [
  {
    name: "business set-fee",
    synopsis: "<businessId> --percent <p> [--cap-kobo <n>]",
    description: [
      "Set the fee taken from each future transfer into the business's accounts: a percentage",
      "from 0 to 100 with at most two decimals (1.5 = 1.5 %), rounded half up to whole kobo,",
      "then capped at --cap-kobo when given. --percent 0 removes the fee. See docs/ledger.md.",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, {
        percent: { type: "string" },
        "cap-kobo": { type: "string" },
      });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      if (values.percent === undefined) throw new UsageError("--percent is required");
      const basisPoints = parsePercent(values.percent);
      if (basisPoints === undefined) {
        throw new UsageError("--percent must be a number from 0 to 100 with at most two decimals, like 1.5");
      }
      const cap = values["cap-kobo"];
      if (cap !== undefined && !WHOLE.test(cap))
        throw new UsageError("--cap-kobo must be a whole number of kobo");
      const capKobo = cap === undefined ? null : Number(cap);
      await (await services()).collections.setFee(business, { basisPoints, capKobo });
      io.stdout(
        `Fee for ${business}: ${formatPercent(basisPoints)} %${capKobo === null ? "" : `, capped at ${capKobo} kobo`}\n`,
      );
    },
  },
  {
    name: "business set-kyc-tier",
    synopsis: "<businessId> <1|2|3|none>",
    description: [
      "Set the business's KYC level (issue 46): every account of the business is at least this",
      "tier, now and when opened or re-issued later, and may receive what that tier may",
      "(TIER1_LIMITS ...). none: each account's tier is its identities' (a BVN or a NIN: 1; both: 2).",
      "See docs/api.md, Identity tiers.",
    ],
    run: async (args, { io, services }) => {
      const { positionals: rest } = parse(args, {});
      const [id, level] = positionals(rest, 2, "<businessId> <1|2|3|none>") as [string, string];
      const business = businessId(id);
      if (!/^(1|2|3|none)$/.test(level)) throw new UsageError("the KYC tier must be 1, 2, 3 or none");
      const tier = level === "none" ? null : (Number(level) as 1 | 2 | 3);
      await (await services()).lifecycle.setKycLevel(business, tier);
      io.stdout(`KYC tier for ${business}: ${tier === null ? "none (each account's identities)" : tier}\n`);
    },
  },
  {
    name: "sandbox transfer",
    synopsis: "<accountNumber> <amountKobo> [--payer-name <name>] [--narration <text>] [--json]",
    description: [
      "Make the embedded Virtual Bank pay <amountKobo> (integer kobo: 150000 is NGN 1,500) into an",
      "account, through the same path as a bank's notification. Only with SANDBOX on. Prints the",
      "transaction, or the refusal (exit 1).",
    ],
    run: async (args, { io, config, services }) => {
      const { values, positionals: rest } = parse(args, {
        "payer-name": { type: "string" },
        narration: { type: "string" },
        json: { type: "boolean" },
      });
      const [accountNumber, amount] = positionals(rest, 2, "<accountNumber> <amountKobo>") as [
        string,
        string,
      ];
      if (!/^\d{10}$/.test(accountNumber)) throw new UsageError("<accountNumber> must be 10 digits");
      if (!WHOLE.test(amount) || Number(amount) < 1)
        throw new UsageError("<amountKobo> must be a whole number of kobo, 1 or more");
      if (!config().sandbox) throw new UsageError("sandbox transfers need SANDBOX=true");
      const { collectionReads, collections } = await services();
      // The CLI (an operator) acts for whichever business holds the number.
      const owner = await collectionReads.numberOwner(accountNumber);
      if (!owner) throw new Error(`no account has number ${accountNumber}`);
      const { transaction } = await collections.sandboxTransfer(
        { businessId: owner, businessName: "" },
        {
          accountNumber,
          amount: Number(amount),
          ...(values["payer-name"] === undefined ? {} : { payerName: values["payer-name"] }),
          ...(values.narration === undefined ? {} : { narration: values.narration }),
        },
      );
      if (values.json) return json(io, transaction);
      io.stdout(
        `Credited ${transaction.amount} kobo to ${transaction.accountNumber} (fee ${transaction.fee}, net ${transaction.netAmount})\n` +
          `Transaction ${transaction.id}, session ${transaction.sessionId}\n`,
      );
    },
  },
];
