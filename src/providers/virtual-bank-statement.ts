import { providerRejected } from "../errors.js";
import { STATEMENT_PAGE_MAX } from "./bank-protocol.js";
import {
  type BankStatement,
  BEFORE_DEBITS,
  decodeCursor,
  encodeCursor,
  type StatementPage,
  type StatementPosition,
} from "./bank-statement.js";
import type { BankPayoutState } from "./payout-rail.js";
import type { BankPayoutRecord, IsoWindow, VirtualBankStore } from "./virtual-bank-store.js";

// The embedded Virtual Bank's statement (issue 27). The embedded bank is not another party: it
// shares the service's database and credits through the ingestion path in the transaction that
// posts the ledger, so no notification of its can be lost, and its credits are the service's
// transactions. Its transfers out are its own records (virtual_bank_payouts), which the payouts'
// ledger is reconciled with for real. Reconciling credits against a bank that is another party
// is the HTTP bank's (docs/bank-integration.md).

/** The most entries a page holds (the protocol's most). */
const PAGE = STATEMENT_PAGE_MAX;

/** The embedded bank's statement over its store; a page holds at most `size` entries. */
export function embeddedStatement(
  store: VirtualBankStore,
  stateOf: (record: BankPayoutRecord) => BankPayoutState,
): BankStatement {
  const debitOf = (record: BankPayoutRecord) => {
    const state = stateOf(record);
    const { reference, amount, acceptedAt: at } = record;
    return {
      reference,
      amount,
      status: state.status,
      reason: state.reason,
      code: state.code,
      sessionId: state.sessionId,
      at,
    };
  };
  /** The credits after `position`, and the cursor after them when more follow. */
  const credits = async (
    window: IsoWindow,
    position: StatementPosition & { kind: "credit" },
    size: number,
  ): Promise<StatementPage> => {
    const after =
      position.time < 0 ? undefined : { time: new Date(position.time).toISOString(), id: position.id };
    const rows = await store.creditsBetween(window, after, size + 1);
    const shown = rows.slice(0, size);
    const last = shown.at(-1);
    const more = rows.length > size && last;
    return {
      credits: shown,
      debits: [],
      next: more
        ? encodeCursor({ kind: "credit", time: Date.parse(last.paidAt), id: last.sessionId })
        : undefined,
    };
  };
  /** Up to `room` transfers out after `position`, and the cursor after them when more follow. */
  const debits = async (window: IsoWindow, position: StatementPosition & { kind: "debit" }, room: number) => {
    const after = position.time === "" ? undefined : { time: position.time, id: position.id };
    const rows = await store.payoutsBetween(window, after, room + 1);
    const shown = rows.slice(0, room);
    const last = shown.at(-1);
    const next =
      rows.length <= room
        ? undefined
        : encodeCursor(last ? { kind: "debit", time: last.acceptedAt, id: last.reference } : BEFORE_DEBITS);
    return { debits: shown.map(debitOf), next };
  };
  return {
    async statementPage(window, cursor, size: number = PAGE) {
      const position = cursor === undefined ? START : decodeCursor(cursor);
      if (!position) throw providerRejected("not a statement cursor of this bank");
      const iso = { from: new Date(window.from).toISOString(), to: new Date(window.to).toISOString() };
      if (position.kind === "debit") return { credits: [], ...(await debits(iso, position, size)) };
      const page = await credits(iso, position, size);
      if (page.next !== undefined) return page;
      // The credits ended within this page: transfers out fill the rest of it.
      return { credits: page.credits, ...(await debits(iso, BEFORE_DEBITS, size - page.credits.length)) };
    },
    findCredit: (sessionId) => store.findCredit(sessionId),
  };
}

/** Before the first credit. */
const START: StatementPosition = { kind: "credit", time: -1, id: "" };
