// Spans and positions in time that the domain hands to storage's reads (reconciliation's day,
// paging in time order): here, in the core, because storage's functions take them.

/** A window of ISO 8601 instants, [from, to). */
export interface TimeWindow {
  from: string;
  to: string;
}

/** A position in (time, id) order: what keyset paging continues after. */
export interface After {
  time: string;
  id: string;
}
