// The graph tab, drawn by Cytoscape.js (static/vendor/cytoscape.min.js) from our own graph.json:
// nodes coloured by category with their labels, a legend, one checkbox per edge type (the server says which
// start hidden: time proximity), and a click that opens the memory beside the graph.
(function () {
  "use strict";

  function css(name, fallback) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
  }

  function message(box, text, isError) {
    const p = document.createElement("p");
    p.className = isError ? "error graph-message" : "empty graph-message";
    p.textContent = text;
    box.replaceChildren(p);
    box.dataset.ready = "true";
  }

  function style() {
    const text = css("--text", "#1d2025"), panel = css("--panel", "#fff"), focus = css("--focus", "#ffbf47");
    return [
      { selector: "node", style: {
        "background-color": "data(color)", width: 16, height: 16, label: "data(label)", color: text,
        "font-size": 12, "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "ellipsis",
        "text-max-width": "130px", "min-zoomed-font-size": 7, "text-outline-color": panel, "text-outline-width": 2,
        "border-color": panel, "border-width": 1.5 } },
      { selector: "edge", style: {
        "line-color": "data(color)", width: 1.5, opacity: 0.7, "curve-style": "bezier" } },
      { selector: 'edge[type = "causal"], edge[type = "supersedes"]', style: {
        "target-arrow-shape": "triangle", "target-arrow-color": "data(color)", "arrow-scale": 0.8 } },
      { selector: 'edge[type = "temporal"]', style: { "line-style": "dashed", width: 1, opacity: 0.5 } },
      { selector: ".off", style: { display: "none" } },
      { selector: ".faded", style: { opacity: 0.15 } },
      { selector: "node:selected", style: { "border-color": focus, "border-width": 4 } },
    ];
  }

  function layout(cy) {
    // Linked memories by a force layout within the box's shape (labels count as part of a node's size, so they
    // do not pile up), the unlinked ones in rows beneath them instead of scattered around.
    const shown = cy.elements().not(".off");
    const alone = shown.nodes().filter((n) => n.connectedEdges().not(".off").length === 0);
    const linked = shown.not(alone);
    const W = cy.width() || 800, H = cy.height() || 560;
    let top = 0, left = 0, width = 0;
    if (linked.nodes().length) {
      const area = { x1: 0, y1: 0, w: W, h: H };
      linked.layout({ name: "circle", animate: false, fit: false, boundingBox: area }).run();
      linked.layout({
        name: "cose", animate: false, randomize: false, fit: false, boundingBox: area,
        nodeDimensionsIncludeLabels: true, idealEdgeLength: 80, nodeRepulsion: 12000, nodeOverlap: 20,
        componentSpacing: 40, numIter: 2000,
      }).run();
      const box = linked.boundingBox();
      top = box.y2 + 50; left = box.x1; width = box.w;
    }
    if (alone.length) {
      const cols = Math.max(1, Math.min(alone.length, Math.max(Math.floor(width / 130),
        Math.ceil(Math.sqrt(alone.length * W / H)))));
      const rows = Math.ceil(alone.length / cols);
      alone.layout({ name: "grid", animate: false, fit: false, cols, avoidOverlap: true,
        boundingBox: { x1: left, y1: top, w: cols * 130, h: rows * 60 } }).run();
    }
    cy.fit(shown, 24);
    if (cy.zoom() > 1.6) { cy.zoom(1.6); cy.center(shown); }  // a handful of nodes: no giant labels
  }

  function filters(cy, types) {
    const box = document.getElementById("graph-filters");
    for (const t of types) {
      const label = document.createElement("label");
      label.className = "check";
      const input = document.createElement("input");
      input.type = "checkbox";
      input.name = "edge-type";
      input.value = t.type;
      input.checked = t.shown;
      const swatch = document.createElement("span");
      swatch.className = "swatch line" + (t.type === "temporal" ? " dashed" : "");
      swatch.style.background = t.color;
      swatch.style.color = t.color;
      label.append(input, swatch, ` ${t.label} (${t.count})`);
      input.addEventListener("change", () => {
        cy.edges().filter((e) => e.data("type") === t.type).toggleClass("off", !input.checked);
        layout(cy);
      });
      box.append(label);
    }
    box.hidden = types.length === 0;
  }

  function legend(groups) {
    const box = document.getElementById("graph-legend");
    for (const g of groups) {
      const item = document.createElement("span");
      item.className = "legend-item";
      item.dataset.group = g.name;
      const swatch = document.createElement("span");
      swatch.className = "swatch round";
      swatch.style.background = g.color;
      item.append(swatch, ` ${g.label || g.name} (${g.count})`);
      box.append(item);
    }
  }

  function list(nodes, onPick) {
    // The same nodes for keyboards, screen readers and small screens: a memory is a link to its page.
    const details = document.getElementById("graph-list");
    const ul = details.querySelector("ul");
    for (const n of nodes) {
      const li = document.createElement("li");
      const item = document.createElement(n.url ? "a" : "button");
      if (n.url) item.href = n.url;
      else { item.type = "button"; item.className = "link"; item.addEventListener("click", () => onPick(n.id)); }
      item.textContent = n.label || n.id;
      item.translate = false;  // a memory's own words
      li.append(item);
      ul.append(li);
    }
    details.hidden = nodes.length === 0;
  }

  function show(box, node) {
    const detail = document.getElementById("graph-detail");
    detail.replaceChildren();
    const title = document.createElement("h3");
    title.textContent = node.label || node.id;
    title.translate = false;
    const meta = document.createElement("p");
    meta.className = "muted";
    meta.textContent = [node.group_label, node.id].filter(Boolean).join(" · ");
    detail.append(title, meta);
    if (!node.url) return;
    const open = document.createElement("a");
    open.href = node.url;
    open.className = "button";
    open.id = "graph-open";
    open.textContent = box.dataset.open + " →";
    const body = document.createElement("div");
    body.id = "graph-entry";
    detail.append(open, body);
    htmx.ajax("GET", node.url, { target: "#graph-entry", swap: "innerHTML" });
  }

  function draw(box, data) {
    if (data.error) return message(box, data.error, true);
    if (!data.nodes.length) return message(box, box.dataset.empty, false);
    const shown = new Set(data.edge_types.filter((t) => t.shown).map((t) => t.type));
    const entryUrl = box.dataset.entryUrl;  // a native memory's page, with 0 for its id
    for (const n of data.nodes) {
      if (!n.url && entryUrl && /^\d+$/.test(n.id)) n.url = entryUrl.replace(/\/0\/$/, `/${n.id}/`);
    }
    const elements = [
      ...data.nodes.map((n) => ({ group: "nodes", data: n })),
      ...data.edges.map((e) => ({ group: "edges", data: e, classes: shown.has(e.type) ? "" : "off" })),
    ];
    const cy = cytoscape({ container: box, elements, style: style(), minZoom: 0.15, maxZoom: 4, boxSelectionEnabled: false });
    const pick = (id) => {
      const node = cy.getElementById(id);
      cy.elements().unselect();
      node.select();
      cy.elements().addClass("faded");
      node.closedNeighborhood().removeClass("faded");
      show(box, node.data());
    };
    cy.on("tap", "node", (ev) => pick(ev.target.id()));
    cy.on("tap", (ev) => { if (ev.target === cy) cy.elements().removeClass("faded"); });
    filters(cy, data.edge_types);
    legend(data.groups);
    list(data.nodes, pick);
    const fit = document.getElementById("graph-fit");
    fit.hidden = false;
    fit.addEventListener("click", () => cy.fit(undefined, 24));
    layout(cy);
    box.dataset.ready = "true";
    box.memoryGraph = cy;  // for the browser tests, which read what was drawn
  }

  function start() {
    const box = document.getElementById("graph");
    if (!box) return;
    fetch(box.dataset.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); return r.json(); })
      .then((data) => draw(box, data))
      .catch((err) => message(box, `${box.dataset.failed} ${err.message}`, true));
  }

  document.addEventListener("DOMContentLoaded", start);
})();
