import type { Pagination, Transaction } from "../core/api-types.js";

// What the SDK's lists share: a page's shape, every item of a list page by page, a query string.

export interface TransactionPage {
  data: Transaction[];
  pagination: Pagination;
}

/**
 * Every item of a list, newest first, page by page; an item made meanwhile shifts later pages by
 * one, so ids already seen are skipped.
 */
export async function* everyItem<T extends { id: string }>(
  list: (page: number, limit: number) => Promise<{ data: T[]; pagination: Pagination }>,
  limit = 100,
): AsyncIterableIterator<T> {
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const { data, pagination } = await list(page, limit);
    for (const item of data) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    if (page >= pagination.pages) return;
  }
}

/** A query string of the filters given (`?...`, or nothing), instants as ISO 8601. */
export function searchOf(query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(name, value instanceof Date ? value.toISOString() : String(value));
  }
  return params.size > 0 ? `?${params}` : "";
}
