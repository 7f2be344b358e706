import { sql } from "kysely";
import type { Executor } from "./executor.js";

// The overview's chart (issue 28, item 10): what a business collected, summed in the database
// by hour of value time, so that a month of a busy business is at most 1,440 rows here, not
// one per payment. The caller folds the hours into days of the business's time zone.

/** The payments of one hour (or of its part before or after `splitMinute`) of value time. */
export interface HourOfCollections {
  /** `YYYY-MM-DDTHH`, in UTC. */
  hour: string;
  /** Whether these are the hour's payments at or after `splitMinute` (always, when it is 0). */
  late: boolean;
  count: number;
  /** Kobo. */
  amount: number;
}

/**
 * The business's payments with a value time in [`from`, `to`), counted and summed by UTC hour,
 * each hour split at `splitMinute` (a zone 30 or 45 minutes off the hour, such as India's,
 * starts its days there): one index range on (business_id, value_at).
 */
export async function collectionsByHour(
  db: Executor,
  businessId: string,
  from: string,
  to: string,
  splitMinute: number,
): Promise<HourOfCollections[]> {
  const split = String(splitMinute).padStart(2, "0");
  const hour = sql<string>`substr(value_at, 1, 13)`;
  const late = sql<boolean | number>`(substr(value_at, 15, 2) >= ${split})`;
  const rows = await db
    .selectFrom("transactions")
    .select([
      hour.as("hour"),
      late.as("late"),
      (eb) => eb.fn.countAll<number | string>().as("count"),
      (eb) => eb.fn.sum<number | string>("amount").as("amount"),
    ])
    .where("business_id", "=", businessId)
    .where("value_at", ">=", from)
    .where("value_at", "<", to)
    // By position: the split is a parameter, and PostgreSQL would not match `late` to itself.
    .groupBy([sql`1`, sql`2`])
    .execute();
  return rows.map((row) => ({
    hour: row.hour,
    late: row.late === true || row.late === 1,
    count: Number(row.count),
    amount: Number(row.amount),
  }));
}
