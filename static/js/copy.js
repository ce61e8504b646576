// Copy buttons: <button class="copy" data-copy="#id" data-copied="Copied">. The Clipboard API needs a
// secure context (https or localhost); over plain http on a LAN the text is selected and copied the old way.
(function () {
  "use strict";

  function textOf(target) {
    return target.value !== undefined && target.tagName === "INPUT" ? target.value : target.textContent;
  }

  function fallback(target) {
    const range = document.createRange();
    if (target.tagName === "INPUT") target.select(); else {
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    return document.execCommand("copy");
  }

  function done(button) {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = button.dataset.copied || "Copied";
    button.classList.add("copied");
    setTimeout(() => { button.textContent = label; button.classList.remove("copied"); }, 2000);
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.copy[data-copy]");
    if (!button) return;
    const target = document.querySelector(button.dataset.copy);
    if (!target) return;
    const text = textOf(target);
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(() => done(button), () => { if (fallback(target)) done(button); });
    } else if (fallback(target)) {
      done(button);
    }
  });
})();
