import type { PayoutStatus } from "./api-types.js";

/** Which payouts a sum counts, as the domain decides it: their statuses, and settlements or not. */
export interface PayoutsCounted {
  statuses: readonly PayoutStatus[];
  settlements: boolean;
}
