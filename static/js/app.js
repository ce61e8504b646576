// Small behaviours htmx does not cover. Keep this file tiny.
document.addEventListener("htmx:responseError", (event) => {
  const box = document.getElementById("flash");
  if (box) box.textContent = "The server answered " + event.detail.xhr.status + ". Nothing was changed.";
});

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
