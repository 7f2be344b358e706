import { orderStatusOf, type StatementCredit, type StatementDebit } from "../providers/bank-protocol.js";
import type { BankDebit, StatementPage } from "../providers/bank-statement.js";
import type { TransferNotification } from "../providers/transfer-notification.js";

// The statement in the protocol's words (issue 27): what the Virtual Bank server answers to the
// statement and the credit query, from the VirtualBank's records.

/** A credit as the protocol has it: the notification's fields. */
export const creditData = (credit: TransferNotification): StatementCredit => ({
  type: "CREDIT",
  orderNo: credit.sessionId,
  virtualAccountNo: credit.accountNumber,
  orderAmount: credit.amount,
  currency: credit.currency,
  payerAccountName: credit.payer.name,
  payerAccountNo: credit.payer.accountNumber,
  payerBankName: credit.payer.bankName,
  ...(credit.payer.bankCode ? { payerBankCode: credit.payer.bankCode } : {}),
  narration: credit.narration,
  paidTime: Date.parse(credit.paidAt),
});

const debitData = (debit: BankDebit): StatementDebit => ({
  type: "DEBIT",
  orderId: debit.reference,
  orderStatus: orderStatusOf(debit.status),
  // The Virtual Bank's own statement always has one (VirtualBank.answerOf); none known is 01, status unknown.
  nipCode: debit.code ?? "01",
  sessionId: debit.sessionId,
  failReason: debit.reason,
  amount: debit.amount,
  transferTime: Date.parse(debit.at),
});

/** A page of the statement: its credits, then its transfers out, and the next page's cursor. */
export const statementData = (page: StatementPage) => ({
  entries: [...page.credits.map(creditData), ...page.debits.map(debitData)],
  nextCursor: page.next ?? null,
});
