// The service's business day is Africa/Lagos's (WAT): payout limits per day, and later daily
// settlement and reconciliation, count days there.

/** Africa/Lagos is UTC+1 all year (no daylight saving): a day there starts at 23:00 UTC. */
const LAGOS_OFFSET_MS = 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

/** When the day (in Africa/Lagos) that `now` falls in began, as an ISO instant. */
export function lagosDayStart(now: number): string {
  return new Date(Math.floor((now + LAGOS_OFFSET_MS) / DAY_MS) * DAY_MS - LAGOS_OFFSET_MS).toISOString();
}

/** The day in Africa/Lagos that `now` falls in, `YYYY-MM-DD`. */
export function lagosDate(now: number): string {
  return new Date(now + LAGOS_OFFSET_MS).toISOString().slice(0, 10);
}

/** The time of day in Africa/Lagos that `now` falls at, `HH:MM`. */
export function lagosTimeOfDay(now: number): string {
  return new Date(now + LAGOS_OFFSET_MS).toISOString().slice(11, 16);
}

/** The instants a day in Africa/Lagos (`YYYY-MM-DD`) spans: [from, to), ISO. */
export function lagosDayWindow(date: string): { from: string; to: string } {
  const start = Date.parse(`${date}T00:00:00.000Z`) - LAGOS_OFFSET_MS;
  return { from: new Date(start).toISOString(), to: new Date(start + DAY_MS).toISOString() };
}

/** The day before `date` (`YYYY-MM-DD`), or `days` before it. */
export function daysBefore(date: string, days = 1): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) - days * DAY_MS).toISOString().slice(0, 10);
}

/** The day after `date` (`YYYY-MM-DD`). */
export const dayAfter = (date: string): string => daysBefore(date, -1);
