"""What the page walks measure in the browser: text a 中文 reader would see in English, and tables that do not
collapse into cards at phone width.

English text: every text node and every title, placeholder, aria-label or alt that is ASCII-only and holds a
letter, outside what a page marks as not for translating: `translate="no"` (a memory's words, names people gave,
slugs, paths), code, pre, kbd, samp, time, a textarea, or an element in another language (`lang="en"` on the
language switcher's English). What is left may hold only the words of `ALLOWED` (brand, provider and protocol
names, units) and the shapes of `NEUTRAL` (numbers, ids, file names, paths, URLs, environment variables).
"""

from __future__ import annotations

import re

from providers.registry import PROVIDERS, get_provider_class

COLLECT = r"""() => {
  const skip = "script, style, template, code, pre, kbd, samp, time, textarea, [translate=no], [lang]:not([lang^=zh])";
  const ascii = (text) => /[A-Za-z]/.test(text) && !/[^\x00-\x7f]/.test(text);
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, text = node.textContent.replace(/\s+/g, " ").trim();
    if (text && ascii(text) && !node.parentElement.closest(skip)) found.push(text);
  }
  const named = "[title], [placeholder], [aria-label], [alt], input[type=submit], input[type=button]";
  for (const el of document.body.querySelectorAll(named)) {
    if (el.closest(skip)) continue;
    for (const attr of ["title", "placeholder", "aria-label", "alt", "value"]) {
      if (attr === "value" && !/^(submit|button)$/.test(el.type)) continue;
      const value = (el.getAttribute(attr) || "").replace(/\s+/g, " ").trim();
      if (value && ascii(value)) found.push(`${attr}="${value}"`);
    }
  }
  return found;
}"""

# Names that stay as they are in Chinese text: ours, the providers', protocols and tools people type, units.
ALLOWED = {
    "memoryhub", "API", "MCP", "ID", "URL", "HTTP", "HTTPS", "JSON", "JSONL", "Markdown", "LLM", "SQLite", "PostgreSQL", "Redis",
    "Python", "Node", "npx", "curl", "stdio", "zstd", "Mnemon", "Mnemosyne", "OpenAI", "Claude", "Code", "Cursor",
    "Windsurf", "VS", "Bearer", "Django", "KB", "MB", "GB", "KiB", "MiB", "ms", "s", "min", "h", "px",
    *(get_provider_class(kind).label for kind in PROVIDERS if kind != "native"),
}
NEUTRAL = re.compile(
    r"https?://\S+"                        # a URL
    r"|(?:~|\.{0,2})/[\w./<>@%+~-]*"       # a path
    r"|[\w.-]+\.(?:md|json|jsonl|db|zst|gz|py|sh|txt|ico|png)\b"  # a file name
    r"|MEMORYHUB_[A-Z0-9_]+"               # an environment variable
    r"|(?<![A-Za-z])(?:#|t(?=\d))?\d[\d.,:%]*(?![A-Za-z])"  # a number, an id (#12, t3), a time
)


def english(found: list[str]) -> list[str]:
    """The collected strings that still hold an English word once neutral shapes and allowed names are gone."""
    left = []
    for text in found:
        value = text.split("=", 1)[1].strip('"') if re.match(r'^[a-z-]+="', text) else text
        words = re.findall(r"[A-Za-z][A-Za-z0-9_'-]*", NEUTRAL.sub(" ", value))
        if any(word not in ALLOWED for word in words):
            left.append(text)
    return left


# Every table at phone width: a row is a card (each cell as wide as its row, under its column's label).
TABLES = r"""(limit) => {
  const out = [];
  for (const table of document.querySelectorAll("table.table")) {
    if (!table.offsetParent) continue;  // a table inside closed <details> is not laid out
    const rows = [...table.querySelectorAll("tbody tr")].filter((row) => row.offsetParent);
    const heights = rows.map((row) => Math.round(row.getBoundingClientRect().height));
    const squeezed = [];
    for (const row of rows) {
      const width = row.getBoundingClientRect().width;
      for (const cell of row.children) {
        const box = cell.getBoundingClientRect();
        if (box.width > 0 && box.width < width * 0.8) squeezed.push(`${cell.dataset.label || "?"} ${Math.round(box.width)}px`);
      }
    }
    const unlabelled = [...table.querySelectorAll("tbody td")].filter((td) => td.textContent.trim()
      && table.querySelector("thead th") && !("label" in td.dataset)).length;
    out.push({id: table.id || table.className, rows: rows.length, tallest: Math.max(0, ...heights),
              squeezed: squeezed.slice(0, 3), unlabelled});
  }
  return out;
}"""
