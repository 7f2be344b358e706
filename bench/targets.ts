// The scenarios the performance targets are stated for, sent as the targets' own measurement
// (../shared/bench/measure.mjs) sends them, on a database holding only what they make: one
// business that generates, lists and is paid into its own 200 accounts; ten more with 20
// accounts each, for the same spread over ten (request n for business n mod 10, its own key).
// The floor is sent the same generate requests (write) or the same list (read), signed with its
// own secret.

import { permanentInput } from "../src/accounts/validation.js";
import type { Services } from "../src/compose/services.js";
import { check } from "../src/core/validation.js";
import type { Key } from "./harness.js";
import type { BenchRequest } from "./load.js";

/** A scenario of the targets: its name there, what it sends, the floor it is held to, its goal. */
export interface TargetScenario {
  id: TargetId;
  /** The row's name in the report. */
  name: string;
  floor: "write" | "read";
  /** The ratio to the floor the target asks for. */
  goal: number;
  expectStatus: number[];
  /** Its requests, one sequence for all its rounds. */
  requests: (b: TargetBusinesses) => () => BenchRequest;
}

export const TARGET_IDS = ["generate", "list", "transfer", "generate10", "transfer10"] as const;
export type TargetId = (typeof TARGET_IDS)[number];

const GENERATE = "/api/v1/external/account/generate";
const LIST = "/api/v1/external/account/list";
const TRANSFER = "/api/v1/external/sandbox/transfers";
const TRANSFER_ACCOUNTS = 200;
const TEN = 10;
const TEN_ACCOUNTS = 20;

/** The businesses the targets' scenarios act for, made before the service starts. */
export interface TargetBusinesses {
  one: { key: Key; accounts: string[] };
  ten: Array<{ key: Key; accounts: string[] }>;
}

/** Creates the businesses and their accounts (as the targets' bench makes them through the API). */
export async function targetBusinesses(services: Services): Promise<TargetBusinesses> {
  const business = async (name: string, accounts: number, tag: string) => {
    const created = await services.businesses.createBusiness(name, "completed");
    const numbers: string[] = [];
    for (let j = 0; j < accounts; j++) {
      const { account } = await services.accounts.generatePermanent(
        { businessId: created.business.id, businessName: name },
        { type: "cli", id: null },
        check(permanentInput, {
          name: `Payee ${tag} ${j}`,
          email: `payee_${tag}_${j}@example.com`,
          bvn: `226${String(j).padStart(8, "0")}`,
        }),
      );
      numbers.push(account.accountNumber);
    }
    return { key: { apiKey: created.apiKey, secretKey: created.secretKey }, accounts: numbers };
  };
  const one = await business("Bench Co", TRANSFER_ACCOUNTS, "a");
  const ten = [];
  for (let b = 0; b < TEN; b++) ten.push(await business(`Bench Co ${b}`, TEN_ACCOUNTS, `t${b}`));
  return { one, ten };
}

/**
 * A new customer each request, spread over `keys` (request i for keys[i mod length]): a distinct
 * email and BVN, as the targets' bench sends.
 */
export function generates(keys: Key[]): () => BenchRequest {
  let i = 0;
  return () => {
    i++;
    const body = JSON.stringify({
      name: `Bench User ${i}`,
      email: `b${process.pid}_${i}_${Date.now()}@example.com`,
      bvn: `225${String(i % 1e8).padStart(8, "0")}`,
    });
    return { method: "POST", path: GENERATE, body, key: keys[i % keys.length] as Key };
  };
}

/** The first page of the account list, ten rows. */
export function lists(key: Key): () => BenchRequest {
  return () => ({ method: "GET", path: LIST, key });
}

// One sequence for every transfer of the run, warm-ups and rounds included: every body is
// distinct, so no replay or Idempotency-Key collision, and each a session of its own at the bank.
let transferSeq = 0;

/**
 * Sandbox transfers into payees' accounts, request n to business n mod count, round-robin over
 * its accounts: the same load whether it lands on one business's ledger rows or on ten's.
 */
export function transfers(into: Array<{ key: Key; accounts: string[] }>): () => BenchRequest {
  return () => {
    const n = transferSeq++;
    const payee = into[n % into.length] as (typeof into)[number];
    const accountNumber = payee.accounts[Math.floor(n / into.length) % payee.accounts.length];
    const body = JSON.stringify({ accountNumber, amount: 100 + n, narration: `bench ${n}` });
    return { method: "POST", path: TRANSFER, body, key: payee.key };
  };
}

/** The scenarios by id; goals as ../shared/bench/measure.mjs states them. */
export const TARGET_SCENARIOS: Record<TargetId, TargetScenario> = {
  generate: {
    id: "generate",
    name: "generate, distinct emails",
    floor: "write",
    goal: 0.45,
    expectStatus: [201],
    requests: (b) => generates([b.one.key]),
  },
  list: {
    id: "list",
    name: "list page 1, 10 items (the generating business)",
    floor: "read",
    goal: 0.7,
    expectStatus: [200],
    requests: (b) => lists(b.one.key),
  },
  transfer: {
    id: "transfer",
    name: "sandbox transfer, one business",
    floor: "write",
    goal: 0.35,
    expectStatus: [201],
    requests: (b) => transfers([b.one]),
  },
  generate10: {
    id: "generate10",
    name: "generate, distinct emails, 10 businesses",
    floor: "write",
    goal: 0.35,
    expectStatus: [201],
    requests: (b) => generates(b.ten.map((t) => t.key)),
  },
  transfer10: {
    id: "transfer10",
    name: "sandbox transfer, spread over 10 businesses",
    floor: "write",
    goal: 0.3,
    expectStatus: [201],
    requests: (b) => transfers(b.ten),
  },
};

/** What the floor is sent beside a scenario: the same generates, or the same list. */
export function floorRequests(kind: "write" | "read", secret: string): () => BenchRequest {
  const key = { apiKey: "k", secretKey: secret };
  return kind === "write" ? generates([key]) : lists(key);
}
