// When a failed delivery is tried again. Pure: the worker asks, the tests check.

/**
 * After the first attempt fails: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: the
 * Standard Webhooks specification's example schedule, about 75 hours in all (Paystack retries
 * for 72).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

/** Each delay is spread by up to this fraction either way, so retries of many events do not align. */
export const JITTER = 0.1;

/** The longest Retry-After honoured: a receiver cannot park a delivery for longer than a day. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * The delay before the next attempt after `attempts` failed ones (1 after the first failure), or
 * undefined when the schedule is exhausted. `random` is in [0, 1).
 */
export function nextDelayMs(
  schedule: readonly number[],
  attempts: number,
  random: number,
): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}

/**
 * A Retry-After header (delta seconds or an HTTP date) as milliseconds from `now`, capped at
 * MAX_RETRY_AFTER_MS; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d{1,10}$/.test(text)) ms = Number(text) * 1_000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** WEBHOOK_RETRY_SCHEDULE: comma-separated delays with a unit (`5s,5m,30m,2h`), for tests and tuning. */
export function parseRetrySchedule(text: string): number[] | undefined {
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  const delays = text.split(",").map((part) => {
    const match = /^\s*(\d{1,9})(ms|s|m|h)\s*$/.exec(part);
    return match ? Number(match[1]) * (units[match[2] as string] as number) : Number.NaN;
  });
  if (delays.length === 0 || delays.length > 20 || delays.some((d) => !Number.isSafeInteger(d)))
    return undefined;
  return delays;
}
