// Small behaviours htmx does not cover. Keep this file tiny.
document.addEventListener("htmx:responseError", (event) => {
  const box = document.getElementById("flash");
  if (box) box.textContent = "The server answered " + event.detail.xhr.status + ". Nothing was changed.";
});

// At phone width a table's rows are cards (app.css): each cell shows its column's header as its label.
function labelCells(root) {
  const tables = new Set(root.querySelectorAll ? root.querySelectorAll("table.table") : []);
  const own = root.closest && root.closest("table.table");
  if (own) tables.add(own);
  for (const table of tables) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.replace(/\s+/g, " ").trim());
    if (!heads.length) continue;
    for (const row of table.querySelectorAll("tbody tr")) {
      let column = 0;
      for (const cell of row.children) {
        cell.dataset.label = heads[column] || "";
        column += cell.colSpan || 1;
      }
    }
  }
}
document.addEventListener("DOMContentLoaded", () => labelCells(document));
document.addEventListener("htmx:load", (event) => labelCells(event.target));

// The phone-width menu: the toggle opens and closes the sidebar; Escape closes it and returns focus.
document.addEventListener("DOMContentLoaded", () => {
  const toggle = document.getElementById("menu-toggle");
  const sidebar = document.getElementById("sidebar");
  if (!toggle || !sidebar) return;
  const setOpen = (open) => {
    toggle.setAttribute("aria-expanded", String(open));
    sidebar.classList.toggle("open", open);
  };
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && sidebar.classList.contains("open")) {
      setOpen(false);
      toggle.focus();
    }
  });
});
