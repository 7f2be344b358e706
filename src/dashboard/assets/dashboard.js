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
  const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent?.trim() ?? "");
  table.setAttribute("role", "table");
  for (const group of table.querySelectorAll(":scope > thead, :scope > tbody"))
    group.setAttribute("role", "rowgroup");
  for (const row of table.querySelectorAll(":scope > thead > tr, :scope > tbody > tr")) {
    row.setAttribute("role", "row");
    [...row.children].forEach((cell, index) => {
      if (cell.tagName === "TH") {
        cell.setAttribute("role", cell.getAttribute("scope") === "row" ? "rowheader" : "columnheader");
        return;
      }
      cell.setAttribute("role", "cell");
      if (names[index]) cell.setAttribute("data-label", names[index]);
    });
  }
  table.classList.add("stack");
}
