// Small behaviours htmx does not cover. Keep this file tiny.
document.addEventListener("htmx:responseError", (event) => {
  const box = document.getElementById("flash");
  if (box) box.textContent = "The server answered " + event.detail.xhr.status + ". Nothing was changed.";
});
