import type { DeliveryState } from "./api-types.js";

/**
 * How one account's deliveries to one endpoint keep their order, as the domain decides it
 * (events/delivery-chain.ts), as data: storage takes it as an argument and decides nothing of it.
 */
export interface ChainRules {
  /** The `next_attempt_at` of a delivery waiting behind an earlier one of its chain. */
  unscheduled: string;
  /** Whether a claim leaves out a delivery while an earlier one of its chain is due or in flight. */
  inOrder: boolean;
  /** The states a redelivery makes pending again (a pending delivery keeps its place). */
  reopened: readonly DeliveryState[];
}
