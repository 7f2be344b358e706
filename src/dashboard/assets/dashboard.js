// The dashboard's only script (served from this origin; the Content-Security-Policy allows no
// other). Copy buttons: <button data-copy="id-of-element"> copies that element's text.
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute("data-copy") ?? "");
  if (!source) return;
  const status = document.getElementById(`${source.id}-copied`);
  try {
    await navigator.clipboard.writeText(source.textContent?.trim() ?? "");
    if (status) status.textContent = "Copied.";
  } catch {
    if (status) status.textContent = "Copying is blocked here: select the text and copy it yourself.";
  }
});

// Wide tables at phone width: each row becomes a card whose cells carry their column's name
// (CSS, under 40rem). The names come from the headers; the table's roles are set explicitly,
// because a browser may drop a table's semantics once its rows are displayed as blocks. Without
// this script the tables scroll sideways instead.
for (const table of document.querySelectorAll(".table-wrap > table:not(.fit)")) {
  // The column names: the last header row, each name repeated over the columns it spans. A
  // table without a header row stays a table (it would be cards without names).
  const headerRow = table.querySelector(":scope > thead > tr:last-child");
  if (!headerRow) continue;
  const names = [...headerRow.children].flatMap((th) =>
    Array(th.colSpan || 1).fill(th.textContent?.trim() ?? ""),
  );
  table.setAttribute("role", "table");
  for (const group of table.querySelectorAll(":scope > thead, :scope > tbody, :scope > tfoot")) {
    group.setAttribute("role", "rowgroup");
  }
  for (const row of table.querySelectorAll(":scope > * > tr")) {
    row.setAttribute("role", "row");
    let column = 0;
    for (const cell of row.children) {
      const name = names[column];
      column += cell.colSpan || 1;
      if (cell.tagName === "TH") {
        cell.setAttribute("role", cell.getAttribute("scope") === "row" ? "rowheader" : "columnheader");
        continue;
      }
      cell.setAttribute("role", "cell");
      // A cell with nothing in it (a revoked key's actions) gets no name to show above nothing.
      const blank = cell.children.length === 0 && (cell.textContent ?? "").trim() === "";
      if (name && !blank) cell.setAttribute("data-label", name);
    }
  }
  table.classList.add("stack");
}
