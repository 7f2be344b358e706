import type { Bank, ResolvedBankAccount, SandboxOutcome, SandboxPayoutAccount } from "../core/api-types.js";
import { isValidNuban, nubanFromSerial } from "./nuban.js";

/**
 * The banks and the names on their accounts, as the partner bank knows them (its bank list and
 * its name enquiry). The embedded Virtual Bank and the HTTP bank both implement it.
 *
 * Implementations throw `providerUnavailable()` when the bank cannot be reached and
 * `providerRejected(message)` when it refuses the question.
 */
export interface BankDirectory {
  /** Every bank a payout can go to, in the bank's order. */
  listBanks(): Promise<Bank[]>;
  /** The name on an account at a bank, or undefined when the bank knows no such account. */
  resolveAccount(bankCode: string, accountNumber: string): Promise<string | undefined>;
}

/**
 * Whether an account number at this bank carries the CBN NUBAN check digit: a deposit money
 * bank's 3-digit code or an institution's 6-digit code. Other codes are taken as they are.
 */
const nubanApplies = (bankCode: string) => /^\d{3}$|^\d{6}$/.test(bankCode);

/** What asking whose an account is found: at which step it stopped, or the account resolved. */
export type Enquiry =
  /** The bank is not one of `banks`. */
  | { outcome: "unknown_bank" }
  /** The number lacks the bank's NUBAN check digit: no bank was asked. */
  | { outcome: "bad_check_digit"; bank: Bank }
  /** The bank knows no such account. */
  | { outcome: "unresolved"; bank: Bank }
  | { outcome: "resolved"; account: ResolvedBankAccount };

/**
 * Whose the account `accountNumber` at `bankCode` is, the recipient's whole resolution: the bank
 * found in `banks` (the bank's list, as the caller keeps it), the NUBAN check digit where one
 * applies (a typo is caught before any bank is asked), then the name enquiry of `directory`.
 */
export async function enquire(
  directory: BankDirectory,
  banks: readonly Bank[],
  bankCode: string,
  accountNumber: string,
): Promise<Enquiry> {
  const bank = banks.find((candidate) => candidate.code === bankCode);
  if (!bank) return { outcome: "unknown_bank" };
  if (nubanApplies(bankCode) && !isValidNuban(bankCode, accountNumber))
    return { outcome: "bad_check_digit", bank };
  const accountName = await directory.resolveAccount(bankCode, accountNumber);
  if (accountName === undefined) return { outcome: "unresolved", bank };
  return { outcome: "resolved", account: { bankCode, bankName: bank.name, accountNumber, accountName } };
}

/** Nigeria's deposit money banks by CBN code: the sandbox's bank list. */
export const SANDBOX_BANKS: readonly Bank[] = [
  { code: "044", name: "Access Bank" },
  { code: "023", name: "Citibank Nigeria" },
  { code: "050", name: "Ecobank Nigeria" },
  { code: "070", name: "Fidelity Bank" },
  { code: "011", name: "First Bank of Nigeria" },
  { code: "214", name: "First City Monument Bank" },
  { code: "058", name: "Guaranty Trust Bank" },
  { code: "301", name: "Jaiz Bank" },
  { code: "082", name: "Keystone Bank" },
  { code: "076", name: "Polaris Bank" },
  { code: "101", name: "Providus Bank" },
  { code: "221", name: "Stanbic IBTC Bank" },
  { code: "068", name: "Standard Chartered Bank" },
  { code: "232", name: "Sterling Bank" },
  { code: "032", name: "Union Bank of Nigeria" },
  { code: "033", name: "United Bank for Africa" },
  { code: "215", name: "Unity Bank" },
  { code: "035", name: "Wema Bank" },
  { code: "057", name: "Zenith Bank" },
];

/** An account the sandbox can pay out to, with the outcome it always has. */
export type SandboxPayee = SandboxPayoutAccount;

const payee = (
  bankCode: string,
  serial: number,
  accountName: string | null,
  outcome: SandboxOutcome,
): SandboxPayee => ({
  bankCode,
  bankName: SANDBOX_BANKS.find((bank) => bank.code === bankCode)?.name ?? bankCode,
  accountNumber: nubanFromSerial(bankCode, serial),
  accountName,
  outcome,
});

/**
 * The sandbox's destination accounts (documented in docs/api.md): valid NUBANs at real bank
 * codes, each with a fixed outcome, so that an integrator can try every path of a payout. Any
 * other account does not resolve in the sandbox.
 */
export const SANDBOX_PAYEES: readonly SandboxPayee[] = [
  payee("058", 123_456_789, "Adaeze Okonkwo", "successful"),
  payee("044", 100_000_001, "Bello Ventures Ltd", "successful"),
  payee("057", 200_000_002, "Chukwuma Eze", "successful"),
  payee("033", 300_000_003, "Dormant Holdings", "failed"),
  payee("011", 400_000_004, "Efe Returned", "reversed"),
  payee("035", 500_000_005, null, "unresolvable"),
  payee("070", 600_000_006, "Funmi Delayed", "unknown_successful"),
  payee("232", 700_000_007, "Gbenga Timeout", "unknown_failed"),
];
