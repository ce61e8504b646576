// The graph tab: a small force layout drawn in SVG, no library and no network beyond our own JSON.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function layout(nodes, edges, width, height, steps) {
    // Repulsion between every pair, springs along edges, a gentle pull to the centre.
    const k = Math.sqrt((width * height) / Math.max(nodes.length, 1)) * 0.6;
    for (let step = 0; step < steps; step++) {
      const cool = 1 - step / steps;
      for (const n of nodes) { n.dx = 0; n.dy = 0; }
      for (let i = 0; i < nodes.length; i++) {
        for (let j = i + 1; j < nodes.length; j++) {
          const a = nodes[i], b = nodes[j];
          let dx = a.x - b.x, dy = a.y - b.y;
          const d2 = dx * dx + dy * dy || 0.01, d = Math.sqrt(d2);
          const f = (k * k) / d2;
          dx = (dx / d) * f; dy = (dy / d) * f;
          a.dx += dx; a.dy += dy; b.dx -= dx; b.dy -= dy;
        }
      }
      for (const e of edges) {
        const dx = e.t.x - e.s.x, dy = e.t.y - e.s.y;
        const d = Math.sqrt(dx * dx + dy * dy) || 0.01;
        const f = ((d - k) / d) * 0.1 * (0.5 + Math.min(e.weight || 1, 1));
        e.s.dx += dx * f; e.s.dy += dy * f; e.t.dx -= dx * f; e.t.dy -= dy * f;
      }
      for (const n of nodes) {
        if (n.fixed) continue;
        n.dx += (width / 2 - n.x) * 0.01; n.dy += (height / 2 - n.y) * 0.01;
        const len = Math.sqrt(n.dx * n.dx + n.dy * n.dy) || 1;
        const limit = Math.min(len, 20 * cool + 1);
        n.x = Math.max(12, Math.min(width - 12, n.x + (n.dx / len) * limit));
        n.y = Math.max(12, Math.min(height - 12, n.y + (n.dy / len) * limit));
      }
    }
  }

  function draw(svg, data) {
    const width = svg.clientWidth || 800, height = svg.clientHeight || 560;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.replaceChildren();
    if (data.error) {
      el("text", { x: 16, y: 28, class: "graph-error" }, svg).textContent = data.error;
      return;
    }
    if (!data.nodes.length) {
      el("text", { x: 16, y: 28, class: "graph-empty" }, svg).textContent = svg.dataset.empty;
      return;
    }
    const byId = new Map();
    const nodes = data.nodes.map((n, i) => {
      const angle = (i / data.nodes.length) * Math.PI * 2;
      const node = { ...n, x: width / 2 + Math.cos(angle) * width / 3, y: height / 2 + Math.sin(angle) * height / 3 };
      byId.set(String(n.id), node);
      return node;
    });
    const edges = data.edges
      .map((e) => ({ ...e, s: byId.get(String(e.source)), t: byId.get(String(e.target)) }))
      .filter((e) => e.s && e.t);
    layout(nodes, edges, width, height, 250);

    const lines = edges.map((e) => {
      const line = el("line", { class: `edge edge-${e.type}` }, svg);
      el("title", {}, line).textContent = `${e.type} ${e.weight ?? ""}`;
      return line;
    });
    const dots = nodes.map((n) => {
      const g = el("g", { class: `node node-${n.category || n.type || "other"}`, tabindex: 0, role: "button" }, svg);
      el("circle", { r: n.type === "entity" ? 5 : 7 }, g);
      el("title", {}, g).textContent = n.label;
      g.addEventListener("click", () => select(svg, n));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(svg, n); } });
      drag(svg, g, n, () => place(nodes, dots, edges, lines));
      return g;
    });
    place(nodes, dots, edges, lines);
  }

  function place(nodes, dots, edges, lines) {
    nodes.forEach((n, i) => dots[i].setAttribute("transform", `translate(${n.x},${n.y})`));
    edges.forEach((e, i) => {
      lines[i].setAttribute("x1", e.s.x); lines[i].setAttribute("y1", e.s.y);
      lines[i].setAttribute("x2", e.t.x); lines[i].setAttribute("y2", e.t.y);
    });
  }

  function drag(svg, g, n, redraw) {
    let moving = false;
    g.addEventListener("pointerdown", (ev) => { moving = true; g.setPointerCapture(ev.pointerId); });
    g.addEventListener("pointerup", () => { moving = false; });
    g.addEventListener("pointermove", (ev) => {
      if (!moving) return;
      const point = svg.createSVGPoint();
      point.x = ev.clientX; point.y = ev.clientY;
      const local = point.matrixTransform(svg.getScreenCTM().inverse());
      n.x = local.x; n.y = local.y; n.fixed = true;
      redraw();
    });
  }

  function select(svg, n) {
    const detail = document.getElementById("graph-detail");
    const entryUrl = svg.dataset.entryUrl;
    if (entryUrl && /^\d+$/.test(String(n.id))) {
      htmx.ajax("GET", entryUrl.replace(/\/0\/$/, `/${n.id}/`), { target: "#graph-detail", swap: "innerHTML" });
      return;
    }
    detail.replaceChildren();
    const title = document.createElement("h3");
    title.textContent = n.label;
    const meta = document.createElement("p");
    meta.className = "muted";
    meta.textContent = [n.type, n.category, n.id].filter(Boolean).join(" · ");
    detail.append(title, meta);
  }

  function start() {
    const svg = document.getElementById("graph");
    if (!svg) return;
    fetch(svg.dataset.url, { headers: { Accept: "application/json" } })
      .then((r) => r.json())
      .then((data) => draw(svg, data))
      .catch((err) => draw(svg, { error: String(err), nodes: [], edges: [] }));
  }

  document.addEventListener("DOMContentLoaded", start);
})();
