import { randomInt } from "node:crypto";
import type { PayoutStatus } from "../core/api-types.js";

// NIBSS Instant Payment (NIP), as the service reads it (issue 46, items 1 and 2; the sources and
// the table are in docs/bank-integration.md, "NIP session ids and response codes").
//
// A NIP session id is 30 digits: the sending institution's 6-digit code, the time the session was
// opened (yyMMddHHmmss, Lagos time), then 12 digits the sender makes unique. Every NIP credit and
// transfer has one, and it is what any bank traces a transfer by.
//
// A NIP response code is two digits. Some are final (00: the beneficiary was credited; 51, 57,
// ...: refused, nothing moved); others say nothing about where the money is (01 status unknown,
// 09 in progress, 91 beneficiary bank unavailable, 96 system malfunction, 97 timeout), and the
// transfer must be asked about again (a transaction status query) until a final code comes: never
// failed on such a code, whose money may have reached the beneficiary.

/** A NIP session id: 30 digits. */
export const NIP_SESSION_ID = /^\d{30}$/;

/** A NIP response code: 2 digits. */
export const NIP_CODE = /^\d{2}$/;

/** Africa/Lagos is UTC+1 all year. */
const LAGOS_OFFSET_MS = 60 * 60_000;

/**
 * A new NIP session id for a transfer sent by `institutionCode` (6 digits) at `at`: the code, the
 * Lagos time to the second, and 12 random digits (a collision needs two sessions in one second
 * drawing the same one of 10^12).
 */
export function nipSessionId(institutionCode: string, at: number): string {
  if (!/^\d{6}$/.test(institutionCode)) throw new Error("a NIP institution code is 6 digits");
  const lagos = new Date(at + LAGOS_OFFSET_MS).toISOString(); // 2026-12-07T21:15:09.000Z
  const stamp =
    lagos.slice(2, 4) +
    lagos.slice(5, 7) +
    lagos.slice(8, 10) +
    lagos.slice(11, 13) +
    lagos.slice(14, 16) +
    lagos.slice(17, 19);
  const unique =
    String(randomInt(0, 1_000_000)).padStart(6, "0") + String(randomInt(0, 1_000_000)).padStart(6, "0");
  return `${institutionCode}${stamp}${unique}`;
}

/** What a NIP response code says about a transfer: it was made, it was refused, or nothing yet. */
export type NipClass = "success" | "refused" | "unknown";

/**
 * The response codes the service knows and what each means (NIBSS's NIP technical specification,
 * "Response Codes", as the processors' documentation republishes it: docs/bank-integration.md
 * cites them). A code not in this table (92 routing error, 98, 99, ...) is unknown: asked about
 * again, never failed; so is one an operator lists in NIP_UNKNOWN_CODES.
 */
export const NIP_CODES: Readonly<Record<string, { meaning: string; class: NipClass }>> = {
  "00": { meaning: "Approved or completed successfully", class: "success" },
  "01": { meaning: "Status unknown, please wait for settlement report", class: "unknown" },
  "02": { meaning: "Awaiting response from destination institution", class: "unknown" },
  "03": { meaning: "Invalid sender", class: "refused" },
  "05": { meaning: "Do not honor", class: "refused" },
  "06": { meaning: "Dormant account", class: "refused" },
  "07": { meaning: "Invalid account", class: "refused" },
  "08": { meaning: "Account name mismatch", class: "refused" },
  "09": { meaning: "Request processing in progress", class: "unknown" },
  "12": { meaning: "Invalid transaction", class: "refused" },
  "13": { meaning: "Invalid amount", class: "refused" },
  "14": { meaning: "Invalid batch number", class: "refused" },
  "15": { meaning: "Invalid session or record id", class: "refused" },
  "16": { meaning: "Unknown bank code", class: "refused" },
  "17": { meaning: "Invalid channel", class: "refused" },
  "21": { meaning: "No action taken", class: "refused" },
  "25": { meaning: "Unable to locate record", class: "refused" },
  "26": { meaning: "Duplicate record", class: "refused" },
  "30": { meaning: "Format error", class: "refused" },
  "34": { meaning: "Suspected fraud", class: "refused" },
  "35": { meaning: "Contact sending bank", class: "refused" },
  "51": { meaning: "No sufficient funds", class: "refused" },
  "57": { meaning: "Transaction not permitted to sender", class: "refused" },
  "58": { meaning: "Transaction not permitted on channel", class: "refused" },
  "61": { meaning: "Transfer limit exceeded", class: "refused" },
  "63": { meaning: "Security violation", class: "refused" },
  "65": { meaning: "Exceeds withdrawal frequency", class: "refused" },
  "68": { meaning: "Response received too late", class: "unknown" },
  "91": { meaning: "Beneficiary bank not available", class: "unknown" },
  "94": { meaning: "Duplicate transaction", class: "unknown" },
  "96": { meaning: "System malfunction", class: "unknown" },
  "97": { meaning: "Timeout waiting for response from destination", class: "unknown" },
};

/**
 * How the service reads a code: the table, with the codes an operator lists as unknown
 * (NIP_UNKNOWN_CODES) taken as unknown whatever the table says.
 */
export interface NipReading {
  unknownCodes: ReadonlySet<string>;
}

export const DEFAULT_NIP_READING: NipReading = { unknownCodes: new Set() };

/** What `code` says, by the table and the operator's unknown codes; a code it does not know is unknown. */
export function nipClassOf(code: string | null, reading: NipReading = DEFAULT_NIP_READING): NipClass {
  if (code === null || reading.unknownCodes.has(code)) return "unknown";
  return NIP_CODES[code]?.class ?? "unknown";
}

/**
 * Where a transfer out stands, from the bank's status and its NIP code together: final only when
 * both say so. A success needs 00; a failure needs a refusing code (a "failed" with 97 is a
 * timeout, and the money may have gone: pending); a reversal is final by itself (the money came
 * back); anything else is pending, and asked about again.
 */
export function statusFromBank(
  bankStatus: PayoutStatus,
  code: string | null,
  reading: NipReading = DEFAULT_NIP_READING,
): PayoutStatus {
  if (bankStatus === "reversed") return "reversed";
  const said = nipClassOf(code, reading);
  if (bankStatus === "successful" && said === "success") return "successful";
  if (bankStatus === "failed" && said === "refused") return "failed";
  return "pending";
}
