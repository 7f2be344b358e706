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
