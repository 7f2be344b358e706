import { z } from "zod";
import type { Bank, ResolvedBankAccount, SandboxPayoutAccount } from "../core/api-types.js";
import type { Assert, Describes } from "../core/contracts.js";

// The banks' answers as zod schemas, for the OpenAPI document (checked against core/api-types.ts).

const bankCode = z
  .string()
  .regex(/^\d{3,6}$/)
  .meta({ description: "The bank's CBN code.", examples: ["058"] });

/** One item of GET /banks. */
export const bankSchema = z
  .strictObject({
    code: bankCode,
    name: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
  })
  .meta({ description: "A bank a payout can go to." });

/** `data` of GET /banks/resolve. */
export const resolvedBankAccountSchema = z
  .strictObject({
    bankCode,
    bankName: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
    accountNumber: z
      .string()
      .regex(/^\d{10}$/)
      .meta({ examples: ["1234567896"] }),
    accountName: z.string().meta({
      description: "The name the bank holds for the account: show it before money is sent.",
      examples: ["Adaeze Okonkwo"],
    }),
  })
  .meta({ description: "An account at a bank, with the name its bank gives it (name enquiry)." });

/** One item of GET /sandbox/payout-accounts. */
export const sandboxPayoutAccountSchema = z
  .strictObject({
    bankCode,
    bankName: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
    accountNumber: z.string().regex(/^\d{10}$/),
    accountName: z.string().nullable().meta({
      description: "The name its name enquiry answers; null for the account that does not resolve.",
    }),
    outcome: z.enum(["successful", "failed", "reversed", "unresolvable"]).meta({
      description:
        'What a payout to it does: `successful`; `failed` ("account dormant"); `reversed` (successful, ' +
        "then sent back); `unresolvable` (name enquiry answers 422 `ACCOUNT_NOT_RESOLVED`).",
    }),
  })
  .meta({ description: "A sandbox destination account, with the outcome a payout to it always has." });

export type BankSchemasMatchService = [
  Assert<Describes<typeof sandboxPayoutAccountSchema, SandboxPayoutAccount>>,
  Assert<Describes<typeof bankSchema, Bank>>,
  Assert<Describes<typeof resolvedBankAccountSchema, ResolvedBankAccount>>,
];
