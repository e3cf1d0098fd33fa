// The lineage of an item drawn in SVG: nodes in layers from upstream (left) to downstream
// (right), edges as curves labelled with their relation. Answers of `/trace` are merged
// into one graph as the user expands it.
import { shortId } from "./epcis.js";
import { svg } from "./dom.js";

const WIDTH = 200;
const HEIGHT = 48;
const GAP_X = 90;
const GAP_Y = 22;
const PAD = 16;

export class LineageGraph {
  constructor(root) {
    this.root = root;
    this.nodes = new Map();
    this.edges = new Map();
    this.expanded = new Set();
    this.selected = root;
  }

  /** Add what a `/trace` answer holds; answers whether anything was new. */
  merge(data) {
    const before = this.nodes.size + this.edges.size;
    for (const node of data.nodes || []) {
      this.nodes.set(node.id, { ...this.nodes.get(node.id), ...node });
    }
    for (const edge of data.edges || []) {
      for (const end of [edge.from, edge.to]) {
        if (!this.nodes.has(end)) this.nodes.set(end, { id: end, kind: "instance" });
      }
      this.edges.set(`${edge.from}|${edge.to}|${edge.relation}|${edge.eventID || ""}`, edge);
    }
    return this.nodes.size + this.edges.size > before;
  }

  /** Each node's layer: its root is 0, what it went into +1, what went into it -1. */
  ranks() {
    const rank = new Map([[this.root, 0]]);
    const edges = [...this.edges.values()];
    for (let pass = 0; pass <= this.nodes.size; pass += 1) {
      let moved = false;
      for (const edge of edges) {
        if (rank.has(edge.from) && !rank.has(edge.to)) {
          rank.set(edge.to, rank.get(edge.from) + 1);
          moved = true;
        } else if (rank.has(edge.to) && !rank.has(edge.from)) {
          rank.set(edge.from, rank.get(edge.to) - 1);
          moved = true;
        }
      }
      if (!moved) break;
    }
    for (const id of this.nodes.keys()) if (!rank.has(id)) rank.set(id, 0);
    return rank;
  }

  /** Where each node is drawn: layers left to right, ordered by their neighbours. */
  layout() {
    const rank = this.ranks();
    const layers = new Map();
    for (const id of this.nodes.keys()) {
      const r = rank.get(id);
      if (!layers.has(r)) layers.set(r, []);
      layers.get(r).push(id);
    }
    const order = [...layers.keys()].sort((a, b) => a - b);
    const position = new Map();
    const neighbours = (id) => [...this.edges.values()]
      .filter((edge) => edge.from === id || edge.to === id)
      .map((edge) => (edge.from === id ? edge.to : edge.from));
    const tallest = Math.max(...[...layers.values()].map((layer) => layer.length));
    order.forEach((r, column) => {
      const layer = layers.get(r);
      // Barycentre of the neighbours drawn already: fewer crossings, a readable tree.
      const weight = (id) => {
        const placed = neighbours(id).filter((n) => position.has(n)).map((n) => position.get(n).index);
        return placed.length ? placed.reduce((a, b) => a + b, 0) / placed.length : Infinity;
      };
      if (column > 0) layer.sort((a, b) => weight(a) - weight(b));
      const offset = ((tallest - layer.length) * (HEIGHT + GAP_Y)) / 2;
      layer.forEach((id, index) => {
        position.set(id, {
          index,
          x: PAD + column * (WIDTH + GAP_X),
          y: PAD + offset + index * (HEIGHT + GAP_Y),
        });
      });
    });
    const width = PAD * 2 + order.length * WIDTH + (order.length - 1) * GAP_X;
    const height = PAD * 2 + tallest * HEIGHT + (tallest - 1) * GAP_Y;
    return { position, width, height };
  }

  /** The drawing; `onSelect(node)` when a node is chosen. */
  draw(onSelect) {
    const { position, width, height } = this.layout();
    const drawing = svg("svg", {
      class: "lineage", id: "lineage", viewBox: `0 0 ${width} ${height}`, width, height,
      role: "img", "aria-label": `Lineage of ${this.root}`,
    });
    drawing.append(svg("defs", {}, svg("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse",
    }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))));
    for (const edge of this.edges.values()) {
      const from = position.get(edge.from);
      const to = position.get(edge.to);
      if (!from || !to) continue;
      const x1 = from.x + WIDTH;
      const y1 = from.y + HEIGHT / 2;
      const x2 = to.x;
      const y2 = to.y + HEIGHT / 2;
      const bend = Math.max(40, Math.abs(x2 - x1) / 2);
      const ended = edge.until ? " ended" : "";
      drawing.append(svg("g", { class: `edge ${edge.relation}${ended}`, "data-from": edge.from, "data-to": edge.to },
        svg("title", {}, `${edge.relation}${edge.eventTime ? ` since ${edge.eventTime}` : ""}${edge.until ? ` until ${edge.until}` : ""}`),
        svg("path", { d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`, "marker-end": "url(#arrow)" }),
        svg("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 5, "text-anchor": "middle" }, edge.relation.replaceAll("_", " "))));
    }
    for (const node of this.nodes.values()) {
      const at = position.get(node.id);
      const classes = ["node", node.kind || "instance"];
      if (node.id === this.root) classes.push("root");
      if (node.id === this.selected) classes.push("selected");
      const group = svg("g", {
        class: classes.join(" "), "data-id": node.id, transform: `translate(${at.x},${at.y})`,
        tabindex: 0, role: "button", "aria-label": node.id,
        onclick: () => onSelect(node),
        onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onSelect(node); } },
      },
      svg("title", {}, node.id),
      svg("rect", { width: WIDTH, height: HEIGHT, rx: node.kind === "class" ? 16 : 4 }),
      svg("text", { x: 10, y: 20, class: "label" }, shortId(node.digital_link || node.id)),
      svg("text", { x: 10, y: 38, class: "detail" }, [node.kind, shortId(node.bizStep)].filter(Boolean).join(" · ")));
      drawing.append(group);
    }
    return drawing;
  }
}
