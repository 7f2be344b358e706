import type { DayOfCollections } from "../collections/collection-reads.js";
import { formatNaira } from "../ledger/kobo.js";

// The overview's chart of collections per day (issue 28, item 10), drawn on the server as SVG:
// no script, no CDN, the same picture with JavaScript off. Its numbers are also a table (for
// screen readers, and for anyone who wants the figures); the SVG is hidden from them.

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 96;
const RIGHT = 28;
const BOTTOM = 28;
const TOP = 12;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `2026-11-27` as `27 Nov`. */
export const shortDate = (date: string): string =>
  `${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1]}`;

/** An axis label: whole naira without kobo ("NGN 100,000"), else in full. */
export function axisNaira(kobo: number): string {
  return kobo % 100 === 0 ? `NGN ${(kobo / 100).toLocaleString("en-NG")}` : formatNaira(kobo);
}

/** The smallest of 1, 2 or 5 times a power of ten (kobo) at or above `amount`: the chart's top. */
export function niceCeiling(amount: number): number {
  if (amount <= 100) return 100;
  const power = 10 ** Math.floor(Math.log10(amount));
  for (const step of [1, 2, 5, 10]) if (step * power >= amount) return step * power;
  return 10 * power;
}

export interface CollectionsChart {
  width: number;
  height: number;
  bars: { x: number; y: number; width: number; height: number; title: string }[];
  gridlines: { y: number; label: string }[];
  dateLabels: { x: number; label: string }[];
  /** The plot's left and right edges and its baseline. */
  left: number;
  right: number;
  baseline: number;
  total: { count: number; amount: number };
}

/** The geometry of the chart of `days` (oldest first): bars scaled to a round top. */
export function collectionsChart(days: readonly DayOfCollections[]): CollectionsChart {
  const top = niceCeiling(Math.max(0, ...days.map((day) => day.amount)));
  const plot = HEIGHT - TOP - BOTTOM;
  const baseline = HEIGHT - BOTTOM;
  const slot = (WIDTH - LEFT - RIGHT) / Math.max(1, days.length);
  const bars = days.map((day, i) => {
    const height = day.amount === 0 ? 0 : Math.max(1, Math.round((day.amount / top) * plot));
    return {
      x: Math.round(LEFT + i * slot + slot * 0.15),
      y: baseline - height,
      width: Math.max(1, Math.round(slot * 0.7)),
      height,
      title: `${shortDate(day.date)}: ${formatNaira(day.amount)} from ${day.count} payment${day.count === 1 ? "" : "s"}`,
    };
  });
  const gridlines = [0, 0.5, 1].map((share) => ({
    y: Math.round(baseline - share * plot),
    label: axisNaira(Math.round(top * share)),
  }));
  const dateLabels = days
    .map((day, i) => ({ i, day }))
    .filter(({ i }) => i % 7 === (days.length - 1) % 7)
    .map(({ i, day }) => ({ x: Math.round(LEFT + i * slot + slot / 2), label: shortDate(day.date) }));
  const total = days.reduce(
    (sum, day) => ({ count: sum.count + day.count, amount: sum.amount + day.amount }),
    { count: 0, amount: 0 },
  );
  return {
    width: WIDTH,
    height: HEIGHT,
    bars,
    gridlines,
    dateLabels,
    left: LEFT,
    right: WIDTH - RIGHT,
    baseline,
    total,
  };
}
