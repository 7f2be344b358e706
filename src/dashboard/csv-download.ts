import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import type { FastifyReply } from "fastify";

// A list exported as CSV (transactions, payouts): streamed as its records are read, never built
// in memory; a cell a spreadsheet would run as a formula is escaped; named for its kind and day.

/** Sends `records` as `<kind>-<day>.csv` with `columns` as its header. */
export function sendCsv(
  reply: FastifyReply,
  kind: string,
  columns: readonly string[],
  records: AsyncIterable<Record<string, string | number>>,
): FastifyReply {
  const csv = stringify({ header: true, columns: [...columns], escape_formulas: true });
  pipeline(Readable.from(records), csv).catch((error: unknown) => {
    reply.request.log.warn({ err: error, kind }, "an export stopped before its end");
  });
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${kind}-${day}.csv"`)
    .send(csv);
}
