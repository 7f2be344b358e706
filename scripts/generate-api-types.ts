// npm run api-types: writes src/core/api-types.ts and src/core/money-out-types.ts, the API's
// shapes as plain TypeScript (the files the SDK's types come from: money-out-types.ts imports
// nothing, api-types.ts only re-exports it), from the zod schemas the routes answer with and the
// OpenAPI document is made from. test/client-types.test.ts generates them again and fails when a
// checked-in file differs, so the two cannot drift. Two files, each under the house's ~300 lines.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  accountDetailSchema,
  accountStatusSchema,
  accountSummarySchema,
  amountPolicyEnum,
  onMismatchEnum,
  paginationSchema,
  paymentProgressSchema,
  paymentStatusEnum,
  permanentAccountSchema,
  temporaryAccountSchema,
} from "../src/accounts/answer-schemas.js";
import { allowedPayerSchema } from "../src/accounts/validation.js";
import {
  balanceSchema,
  sandboxTransferRequestSchema,
  transactionSchema,
  transactionStatusEnum,
} from "../src/collections/api-schemas.js";
import {
  deliverySchema,
  deliveryStateSchema,
  eventSchema,
  eventTypeSchema,
} from "../src/events/api-schemas.js";
import {
  bankSchema,
  payoutRequestSchema,
  payoutSchema,
  payoutStatusSchema,
  refundRequestSchema,
  resolvedBankAccountSchema,
  sandboxOutcomeSchema,
  sandboxPayoutAccountSchema,
  settlementAccountSchema,
  settlementScheduleSchema,
  settlementSchema,
  settlementTermsSchema,
} from "../src/payouts/api-schemas.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const API_TYPES_FILE = path.join(ROOT, "src/core/api-types.ts");
export const MONEY_OUT_TYPES_FILE = path.join(ROOT, "src/core/money-out-types.ts");

/**
 * What the file declares, in its order: `union` a type of the enum's values (with `values`, also
 * the list as a constant); `answer` an interface of what the server sends; `body` an interface of
 * a request body as a client writes it, where `null` (which counts as not sent) is left out.
 */
interface Declaration {
  kind: "union" | "answer" | "body";
  name: string;
  schema: z.ZodType;
  /** The doc comment; empty: the schema's own description. */
  doc: string;
  /** For a union: the name of the constant that lists its values, if it has one. */
  values?: string;
}

/**
 * The fields whose constant (`z.literal`) the service fills from elsewhere (the currency from
 * its record, the bank's name from the bank it runs with): typed by the constant's kind, as the
 * domain builds them, while the document states the value the service sends today.
 */
const FILLED = ["currency", "bankName"];

/** A declaration of `kind`, as DECLARATIONS lists them. */
const declared =
  (kind: Declaration["kind"]) =>
  (name: string, schema: z.ZodType, doc: string, values?: string): Declaration => ({
    kind,
    name,
    schema,
    doc,
    values,
  });
const union = declared("union");
const answer = declared("answer");
const body = declared("body");

/** Accounts, collections and events: src/core/api-types.ts. */
const ACCOUNTS_AND_COLLECTIONS: Declaration[] = [
  union(
    "AccountStatus",
    accountStatusSchema,
    "An account's state at an instant, computed when read (no background job flips it).",
    "ACCOUNT_STATUSES",
  ),
  union(
    "AmountPolicy",
    amountPolicyEnum,
    "How an expected amount is applied: one exact transfer, one of at least it, or any until the total reaches it.",
    "AMOUNT_POLICIES",
  ),
  union(
    "OnMismatch",
    onMismatchEnum,
    "What a credit an account's rules do not take becomes: declined (the bank reverses it) or held until the business decides.",
    "ON_MISMATCH",
  ),
  union(
    "TransactionStatus",
    transactionStatusEnum,
    "A transaction's state: credited, held until the business accepts or returns it, or returned to its payer.",
    "TRANSACTION_STATUSES",
  ),
  union(
    "PaymentStatus",
    paymentStatusEnum,
    "How far an account that expects an amount has been paid.",
    "PAYMENT_STATUSES",
  ),
  union(
    "EventType",
    eventTypeSchema,
    "What the service tells a business about (what webhooks deliver).",
    "EVENT_TYPES",
  ),
  union("DeliveryState", deliveryStateSchema, "Where an event's delivery to one endpoint stands."),
  answer("PermanentAccount", permanentAccountSchema, "`data` of a generate-permanent answer."),
  answer("TemporaryAccount", temporaryAccountSchema, "`data` of a generate-temporary answer."),
  answer("AccountSummary", accountSummarySchema, "One item of the account list."),
  answer("PaymentProgress", paymentProgressSchema, "What an account has been paid, against what it expects."),
  answer(
    "AllowedPayer",
    allowedPayerSchema,
    "A payer an account takes credits from: an account at a bank, or a name (two shared words).",
  ),
  answer("AccountDetail", accountDetailSchema, "GET /account/:accountNumber."),
  answer("Pagination", paginationSchema, "A list's `pagination`."),
  answer("Transaction", transactionSchema, "Every amount in integer kobo."),
  answer("Balance", balanceSchema, "GET /balance: kobo."),
  answer("Delivery", deliverySchema, ""),
  answer("Event", eventSchema, ""),
  body("SandboxTransferInput", sandboxTransferRequestSchema, "POST /sandbox/transfers' body."),
];

/** Money out (banks, payouts, settlements, refunds): src/core/money-out-types.ts. */
const MONEY_OUT: Declaration[] = [
  answer("Bank", bankSchema, "GET /banks: one item."),
  answer("ResolvedBankAccount", resolvedBankAccountSchema, "GET /banks/resolve."),
  union(
    "SandboxOutcome",
    sandboxOutcomeSchema,
    "What a payout to a sandbox destination account always does.",
  ),
  answer("SandboxPayoutAccount", sandboxPayoutAccountSchema, "GET /sandbox/payout-accounts: one item."),
  union(
    "PayoutStatus",
    payoutStatusSchema,
    "Where a payout stands: pending until the bank says; a successful one may come back (reversed).",
  ),
  body("PayoutInput", payoutRequestSchema, "POST /payouts' body."),
  answer("Payout", payoutSchema, ""),
  union(
    "SettlementSchedule",
    settlementScheduleSchema,
    "How a business settles: by hand, once a day at a time in Africa/Lagos, or each credit as it arrives.",
  ),
  answer("SettlementAccount", settlementAccountSchema, ""),
  answer("SettlementTerms", settlementTermsSchema, ""),
  answer("Settlement", settlementSchema, ""),
  body("RefundInput", refundRequestSchema, "POST /transactions/{id}/refund's body."),
];

type Def = z.ZodType["_zod"]["def"];
interface Walk {
  /** The declared name of a schema, by its definition (a `.meta()` copy shares it). */
  names: Map<Def, string>;
  body: boolean;
  /** Whether a string constant is typed `string` here (a field of FILLED). */
  wide?: boolean;
}

const descriptionOf = (schema: z.ZodType): string | undefined => {
  const own = z.globalRegistry.get(schema)?.description;
  const def = schema._zod.def as { innerType?: z.ZodType };
  return own ?? (def.innerType ? descriptionOf(def.innerType) : undefined);
};

const comment = (text: string | undefined, indent: string) =>
  text ? `${indent}/** ${text.replaceAll("*/", "*\\/").replace(/\s+/g, " ")} */\n` : "";

const literal = (value: unknown) => JSON.stringify(value);

/** The TypeScript type of the values `schema` describes. */
function typeOf(schema: z.ZodType, walk: Walk, indent: string): string {
  const named = walk.names.get(schema._zod.def);
  if (named) return named;
  const def = schema._zod.def as Def & Record<string, unknown>;
  switch (def.type) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "unknown":
      return "unknown";
    case "literal": {
      const values = def.values as unknown[];
      if (walk.wide && values.every((value) => typeof value === "string")) return "string";
      return values.map(literal).join(" | ");
    }
    case "enum":
      return Object.values(def.entries as Record<string, string>)
        .map(literal)
        .join(" | ");
    case "nullable":
      return `${typeOf(def.innerType as z.ZodType, walk, indent)} | null`;
    case "optional":
      return typeOf(def.innerType as z.ZodType, walk, indent);
    case "array": {
      const element = typeOf(def.element as z.ZodType, walk, indent);
      return /[| ]/.test(element) ? `Array<${element}>` : `${element}[]`;
    }
    case "object":
      return `{\n${fields(schema as z.ZodObject, walk, `${indent}  `)}${indent}}`;
    case "union":
      return (def.options as z.ZodType[]).map((option) => typeOf(option, walk, indent)).join(" | ");
  }
  throw new Error(`no TypeScript for a zod ${def.type}`);
}

/** An object's fields, one a line, each with its description. */
function fields(schema: z.ZodObject, walk: Walk, indent: string): string {
  return Object.entries(schema.shape)
    .map(([name, field]) => {
      const optional = field._zod.def.type === "optional";
      let type = typeOf(field, { ...walk, wide: FILLED.includes(name) }, indent);
      // A body's `null` counts as not sent: a client leaves the field out instead.
      if (walk.body && optional) type = type.replace(/ \| null$/, "");
      return `${comment(descriptionOf(field), indent)}${indent}${name}${optional ? "?" : ""}: ${type};\n`;
    })
    .join("");
}

function declare(declaration: Declaration, names: Map<Def, string>): string {
  const { name, schema } = declaration;
  const doc = comment(declaration.doc || descriptionOf(schema), "");
  if (declaration.kind === "union") {
    const values = Object.values((schema._zod.def as unknown as { entries: Record<string, string> }).entries);
    if (!declaration.values) return `${doc}export type ${name} = ${values.map(literal).join(" | ")};\n`;
    return (
      `${doc}export const ${declaration.values} = ${literal(values)} as const;\n` +
      `export type ${name} = (typeof ${declaration.values})[number];\n`
    );
  }
  const walk = { names, body: declaration.kind === "body" };
  if (schema._zod.def.type === "union")
    return `${doc}export type ${name} = ${typeOf(schema, { ...walk, names: new Map() }, "")};\n`;
  return `${doc}export interface ${name} {\n${fields(schema as z.ZodObject, walk, "  ")}}\n`;
}

const header = (
  what: string,
) => `// GENERATED by scripts/generate-api-types.ts (npm run api-types) from the zod schemas the API's
// routes answer with and the OpenAPI document is made from: do not edit it, edit those schemas.
// ${what}
// The domain builds its answers as these types, and the SDK (src/client) imports them as types
// only. It imports nothing but its sibling, so the SDK's declarations need nothing but Node.
`;

/** Both files' text, formatted as the repository formats its code, by path. */
export function apiTypes(): Map<string, string> {
  const names = new Map<Def, string>();
  for (const { name, schema } of [...ACCOUNTS_AND_COLLECTIONS, ...MONEY_OUT])
    names.set(schema._zod.def, name);
  const write = (file: string, parts: string[]) =>
    execFileSync(path.join(ROOT, "node_modules/.bin/biome"), ["format", `--stdin-file-path=${file}`], {
      input: parts.join("\n"),
      encoding: "utf8",
    });
  const declarations = (list: Declaration[]) => list.map((declaration) => declare(declaration, names));
  return new Map([
    [
      API_TYPES_FILE,
      write(API_TYPES_FILE, [
        header("Accounts, collections and events; money out is money-out-types.ts, re-exported here."),
        ...declarations(ACCOUNTS_AND_COLLECTIONS),
        'export type * from "./money-out-types.js";\n',
      ]),
    ],
    [
      MONEY_OUT_TYPES_FILE,
      write(MONEY_OUT_TYPES_FILE, [
        header("Money out: banks, payouts, settlements and refunds (api-types.ts re-exports them)."),
        ...declarations(MONEY_OUT),
      ]),
    ],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of apiTypes()) writeFileSync(file, text);
}
