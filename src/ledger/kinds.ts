/**
 * A business's ledger accounts: what the bank holds for it (settlement, a debit balance), what
 * it may use (available), and the service's fees (revenue). The ledger's arithmetic and the
 * tables both speak these.
 */
export type LedgerAccountKind = "settlement" | "available" | "revenue";
