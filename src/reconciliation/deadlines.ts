// The deadlines' arithmetic (issue 46, item 3): pure, on the ISO-8601 times the tables keep.

/**
 * The CBN's instant-transfer rules (2018): an inward transfer applied later than 4 minutes, and a
 * failed transfer not reversed within 24 hours, are penalised (docs/deploy.md, "Deadlines").
 * The defaults of DEADLINE_CREDIT_MINUTES and DEADLINE_RETURN_HOURS.
 */
export const CBN_CREDIT_MINUTES = 4;
export const CBN_RETURN_HOURS = 24;

/** How much later `end` is than `start`, in milliseconds (0 when it is not later). */
export function lateBy(start: string, end: string): number {
  const ms = Date.parse(end) - Date.parse(start);
  if (!Number.isFinite(ms)) throw new RangeError(`not times: ${start}, ${end}`);
  return Math.max(ms, 0);
}

/** Whether `end` came more than `limitMs` after `start`: exactly at the limit is on time. */
export function isLate(start: string, end: string, limitMs: number): boolean {
  return lateBy(start, end) > limitMs;
}

/** A lateness as an operator reads it: "3 d 2 h", "1 h 5 min", "4 min 12 s", "40 s". */
export function lateText(ms: number): string {
  const s = Math.floor(ms / 1_000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const min = Math.floor((s % 3_600) / 60);
  const sec = s % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return min > 0 ? `${h} h ${min} min` : `${h} h`;
  if (min > 0) return sec > 0 ? `${min} min ${sec} s` : `${min} min`;
  return `${sec} s`;
}
