// What the domain asks of storage's reads of transactions (collections' listing and the
// dashboard's search): here, in the core, because storage's functions take them.

/**
 * Whose transactions a page is of: the business's (ordinals per business) or one account's
 * (ordinals per account). Within either, ordinals are dense from 1 and recording times never
 * decrease with the ordinal, so a time range is an ordinal range.
 */
export type TransactionScope =
  | { kind: "business"; businessId: string }
  | { kind: "account"; businessId: string; accountId: string };

/** What a search selects; every part optional but the time field. */
export interface TransactionMatch {
  /** Which time `from` and `to` bound: the bank's value time or our recording time. */
  timeField: "paidAt" | "createdAt";
  from?: string;
  to?: string;
  sessionId?: string;
  /** Part of the payer's name, in any case. */
  payerName?: string;
  /** The amount paid, in kobo. */
  amount?: number;
  /** Only the credits held now (issue 46): came in held, neither accepted nor returned. */
  held?: boolean;
}

/** Where a search's walk is: the last row given, in the order of the search. */
export interface MatchCursor {
  valueAt: string;
  ordinal: number;
}
