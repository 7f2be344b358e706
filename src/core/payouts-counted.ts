import type { PayoutStatus } from "./api-types.js";

/** Which payouts a sum counts, as the domain decides it: their statuses, and settlements or not. */
export interface PayoutsCounted {
  statuses: readonly PayoutStatus[];
  settlements: boolean;
}

/** Which payouts a page lists: of a status, created within [from, to]; every part optional. */
export interface PayoutFilter {
  status?: PayoutStatus;
  from?: string;
  to?: string;
  /** Its transfer's NIP session id. */
  sessionId?: string;
  /** Only pending payouts marked as needing attention (the console). */
  attention?: boolean;
}
