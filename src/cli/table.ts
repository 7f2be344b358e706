/** Plain-text columns for terminal output. */
export function formatTable<T extends object>(rows: T[], columns: Array<keyof T & string>): string {
  if (rows.length === 0) return "(none)\n";
  const cells = [
    columns as string[],
    ...rows.map((row) => columns.map((column) => String(row[column] ?? ""))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? "").length)));
  return `${cells
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}
