import type { FastifyReply } from "fastify";
import type { BankAccount } from "./bank-database.js";

// The Virtual Bank server's answers in the protocol's envelope.

/** The protocol's answer: always HTTP 200, the outcome in respCode. */
export const answerOf = (respCode: string, respMsg: string, data?: unknown) => ({
  respCode,
  respMsg,
  ...(data === undefined ? {} : { data }),
});
export const answer = (reply: FastifyReply, respCode: string, respMsg: string, data?: unknown) =>
  reply.code(200).send(answerOf(respCode, respMsg, data));

export const accountData = (account: BankAccount) => ({
  virtualAccountNo: account.accountNumber,
  virtualAccountName: account.accountName,
  accountReference: account.reference,
  status: account.state === "enabled" ? "Enabled" : account.state === "disabled" ? "Disabled" : "Deleted",
});
