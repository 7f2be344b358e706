import { randomBytes } from "node:crypto";
import { permanentInput } from "../src/accounts/validation.js";
import type { Services } from "../src/compose/services.js";
import { openServices } from "../src/compose/services.js";
import { loadConfig } from "../src/config/load.js";
import { check } from "../src/core/validation.js";
import { payoutQuery } from "../src/payouts/validation.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import type { Key } from "./harness.js";
import type { BenchRequest } from "./load.js";

// The payout scenario's business: API payouts on, limits out of the way, and money to send,
// credited through the bank's ingestion path before the server starts; and how the bench knows
// every payout it made has reached its final state.

/** What the payout phase reports. */
export interface PayoutStats {
  created: number;
  /** Payouts final per second, from the first request to the last final one. */
  finalPerSecond: number;
  ratioToWriteFloor: number;
}

const FUNDING_KOBO = 100_000_000;
const FUNDINGS = 100;

export async function payoutBusiness(services: Services) {
  const name = "Payer Ltd";
  const created = await services.businesses.createBusiness(name, "completed");
  const business = { businessId: created.business.id, businessName: name };
  await services.payoutSettings.setApiPayouts(business.businessId, true);
  await services.payoutSettings.setLimits(business.businessId, {
    perPayoutLimit: 1_000_000_000_000,
    dailyLimit: 1_000_000_000_000,
  });
  const { account } = await services.accounts.generatePermanent(
    business,
    { type: "cli", id: null },
    check(permanentInput, { name: "Funding", email: "funding@payer.example.com", bvn: "22345678901" }),
  );
  const tag = randomBytes(3).toString("hex");
  for (let i = 0; i < FUNDINGS; i++) {
    await services.collections.receive({
      sessionId: `bench-${tag}-${i}`,
      accountNumber: account.accountNumber,
      amount: FUNDING_KOBO,
      currency: "NGN",
      payer: { name: "Bench Funder", accountNumber: "0123456789", bankName: "Bench Bank" },
      narration: "funding",
      paidAt: new Date().toISOString(),
    });
  }
  const key: Key = { apiKey: created.apiKey, secretKey: created.secretKey };
  const to = SANDBOX_PAYEES.find(
    (payee) => payee.outcome === "successful",
  ) as (typeof SANDBOX_PAYEES)[number];
  return {
    /** Request n: a payout of a little money to a destination the sandbox pays, its own Idempotency-Key. */
    request: (n: number): BenchRequest => ({
      method: "POST",
      path: "/api/v1/external/payouts",
      body: JSON.stringify({
        amount: 100 + (n % 1_000),
        bankCode: to.bankCode,
        accountNumber: to.accountNumber,
      }),
      key,
      headers: { "idempotency-key": `bench-${tag}-${n}` },
    }),
    /** Waits (up to two minutes without progress) until none of the business's payouts is pending; when. */
    async allFinal(env: Record<string, string>, created: number): Promise<number> {
      const watcher = await openServices(loadConfig(env));
      try {
        const pending = async () =>
          (await watcher.payoutListing.list(business, check(payoutQuery, { status: "pending", limit: "1" })))
            .pagination.total;
        let left = await pending();
        let progressAt = Date.now();
        while (left > 0 && Date.now() - progressAt < 120_000) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const now = await pending();
          if (now < left) progressAt = Date.now();
          left = now;
        }
        if (left > 0) {
          process.stderr.write(`payouts: ${left} of ${created} still pending\n`);
          process.exitCode = 1;
        }
        return Date.now();
      } finally {
        await watcher.close();
      }
    },
  };
}
