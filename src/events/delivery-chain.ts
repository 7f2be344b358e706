import type { ChainRules } from "../core/delivery-chain.js";

/**
 * A delivery behind a pending delivery of the same account to the same endpoint waits with this
 * `next_attempt_at`, out of every claim's sight, until the one before it settles: then the next is
 * scheduled (delivered, failed, or moved to a later retry: one failing event never holds up the
 * account's later ones for its days of retries). The API shows it as `nextAttemptAt: null`.
 */
export const UNSCHEDULED = "9999-12-31T23:59:59.999Z";

/**
 * How one account's deliveries to one endpoint keep their order (a chain): the domain's rules,
 * which storage reads as plain data (storage/delivery-repository.ts). Its claim therefore reads the
 * chains' heads and the due retries, not the whole backlog.
 */
export const DELIVERY_CHAIN: ChainRules = {
  unscheduled: UNSCHEDULED,
  // A claim takes a delivery only while no earlier one of its chain is due or in flight.
  inOrder: true,
  // Redelivering makes a finished delivery pending and due now; a pending one keeps its place.
  reopened: ["delivered", "failed", "cancelled"],
};
