import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { bankNotificationSchema, RESP_CODE } from "../providers/bank-protocol.js";
import { SANDBOX_PAYER } from "../providers/virtual-bank.js";
import { accountData, answer } from "./answers.js";
import type { BankDatabase } from "./bank-database.js";
import { type FaultPlan, faultsSchema } from "./faults.js";
import type { Notifier } from "./notifier.js";

// The Virtual Bank server's sandbox routes: pay into an account, follow a transfer, list
// accounts and transfers out, count the API calls, and set faults. Not part of the bank
// protocol: what tests, demos and integrators drive the bank with.

/** A sandbox payment: what a payer's bank tells this bank, in the notification's own limits. */
const payRequestSchema = z
  .object({
    virtualAccountNo: bankNotificationSchema.shape.virtualAccountNo,
    amount: bankNotificationSchema.shape.orderAmount,
    currency: bankNotificationSchema.shape.currency.default("NGN"),
    payerName: bankNotificationSchema.shape.payerAccountName.default(SANDBOX_PAYER.name),
    payerAccountNo: bankNotificationSchema.shape.payerAccountNo.default(SANDBOX_PAYER.accountNumber),
    payerBankName: bankNotificationSchema.shape.payerBankName.default(SANDBOX_PAYER.bankName),
    payerBankCode: bankNotificationSchema.shape.payerBankCode,
    narration: bankNotificationSchema.shape.narration.unwrap().default("Sandbox transfer"),
    orderNo: bankNotificationSchema.shape.orderNo.optional(),
  })
  .strict();

/** Registers the sandbox's routes on the bank's app. */
export function registerSandboxRoutes(
  app: FastifyInstance,
  {
    db,
    notifier,
    faults,
    calls,
  }: { db: BankDatabase; notifier: Notifier; faults: FaultPlan; calls: Record<string, number> },
): void {
  // The sandbox: pay into an account, follow a transfer, list accounts, set faults.
  app.post("/sandbox/pay", async (request, reply) => {
    const parsed = payRequestSchema.safeParse(request.body);
    if (!parsed.success)
      return reply.code(400).send({ respCode: RESP_CODE.invalidParameter, respMsg: parsed.error.message });
    const pay = parsed.data;
    const account = db.accountByNumber(pay.virtualAccountNo);
    if (account?.state !== "enabled") {
      return reply.code(400).send({
        respCode: RESP_CODE.accountNotFound,
        respMsg: `account ${pay.virtualAccountNo} ${account ? `is ${account.state}` : "does not exist"}`,
      });
    }
    const transfer = db.addTransfer({
      orderNo: pay.orderNo ?? `VB${randomUUID().replaceAll("-", "").toUpperCase()}`,
      accountNumber: pay.virtualAccountNo,
      amount: pay.amount,
      currency: pay.currency,
      payerName: pay.payerName,
      payerAccountNo: pay.payerAccountNo,
      payerBankName: pay.payerBankName,
      payerBankCode: pay.payerBankCode ?? null,
      narration: pay.narration,
      paidTime: Date.now(),
    });
    notifier.kick();
    return answer(reply, RESP_CODE.success, "success", transfer);
  });
  app.get("/sandbox/transfers/:orderNo", async (request, reply) => {
    const transfer = db.transfer((request.params as { orderNo: string }).orderNo);
    if (!transfer)
      return reply.code(404).send({ respCode: RESP_CODE.accountNotFound, respMsg: "no such transfer" });
    return answer(reply, RESP_CODE.success, "success", transfer);
  });
  app.get("/sandbox/transfers-out", async (_request, reply) =>
    answer(reply, RESP_CODE.success, "success", db.payouts()),
  );
  app.get("/sandbox/accounts", async (_request, reply) =>
    answer(reply, RESP_CODE.success, "success", db.accounts().map(accountData)),
  );
  app.get("/sandbox/calls", async (_request, reply) =>
    answer(reply, RESP_CODE.success, "success", { ...calls }),
  );
  app.get("/sandbox/faults", async (_request, reply) =>
    answer(reply, RESP_CODE.success, "success", faults.get()),
  );
  app.put("/sandbox/faults", async (request, reply) => {
    const parsed = faultsSchema.partial().safeParse(request.body);
    if (!parsed.success)
      return reply.code(400).send({ respCode: RESP_CODE.invalidParameter, respMsg: parsed.error.message });
    return answer(reply, RESP_CODE.success, "success", faults.set(parsed.data));
  });
}
