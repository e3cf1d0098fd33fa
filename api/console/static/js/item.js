// An item (an EPC or a class): where it is and what holds it now, its events in time, and
// its lineage as a graph that expands up- and downstream, from `/trace`.
import { call, getJson } from "./api.js";
import { eventLink, eventsOf, itemLink, placeOf, shortId, when } from "./epcis.js";
import { facts, h, notice, show } from "./dom.js";
import { LineageGraph } from "./graph.js";

/** Whether an identifier names a class (a lot, a product) rather than one instance. */
function isClass(id) {
  return /:(class|idpat):/.test(id) || (/\/10\//.test(id) && !/\/21\//.test(id));
}

async function timelineOf(id) {
  const name = isClass(id) ? "MATCH_anyEPCClass" : "MATCH_anyEPC";
  const search = new URLSearchParams({ [name]: id, orderBy: "eventTime", orderDirection: "ASC", perPage: "200" });
  return eventsOf(await (await call(`v2/epcis/events?${search}`)).json());
}

/** What holds the item, as its events tell: the parent of the last aggregation that names
 * it as a child (the service matches the identifier in whichever form it was captured). */
async function holderFromEvents(id) {
  const search = new URLSearchParams({
    eventType: "AggregationEvent", MATCH_epc: id, orderBy: "eventTime", orderDirection: "DESC", perPage: "1",
  });
  const [last] = eventsOf(await (await call(`v2/epcis/events?${search}`)).json());
  return last && last.action !== "DELETE" ? last.parentID || null : null;
}

/** What holds the item, as its lineage tells: a containment that has not ended. */
function holderFromTrace(graph) {
  const root = graph.nodes.get(graph.root);
  if (root?.parent) return root.parent;
  const held = [...graph.edges.values()].find(
    (edge) => edge.from === graph.root && edge.relation === "contained_in" && !edge.until);
  return held ? held.to : null;
}

function trace(id, direction, depth, at) {
  const search = new URLSearchParams({ epc: id, direction, depth: String(depth) });
  if (at) search.set("at", at);
  return getJson(`trace?${search}`);
}

function now(context, id, events, holder) {
  const placed = [...events].reverse().find((event) => event.bizLocation || event.readPoint);
  const last = events[events.length - 1];
  const where = placed ? placeOf(placed.bizLocation) || placeOf(placed.readPoint) : "";
  return h("section", { class: "card", id: "now" },
    h("h2", {}, "Now"),
    facts([
      ["Where", where ? h("span", { title: where, id: "where" }, shortId(where)) : "unknown"],
      ["Since", placed ? when(placed) : ""],
      ["Held by", holder ? h("span", { id: "holder" }, itemLink(context, holder)) : "nothing"],
      ["Last business step", last?.bizStep ? shortId(last.bizStep) : ""],
      ["Disposition", last?.disposition ? shortId(last.disposition) : ""],
    ]));
}

function timeline(context, events) {
  if (!events.length) return notice("No event names this item.", "note");
  return h("ol", { class: "timeline", id: "timeline" }, ...events.map((event) => {
    const place = placeOf(event.bizLocation) || placeOf(event.readPoint);
    return h("li", {},
      h("span", { class: "time" }, eventLink(context, event, when(event))),
      h("span", { class: "what" }, `${event.type}${event.action ? ` ${event.action}` : ""}`,
        event.bizStep ? ` · ${shortId(event.bizStep)}` : "",
        event.disposition ? ` · ${shortId(event.disposition)}` : ""),
      place ? h("span", { class: "where", title: place }, shortId(place)) : "",
      event.errorDeclaration ? h("span", { class: "badge error" }, "error declared") : "");
  }));
}

function lineage(context, id, onHolder) {
  let graph = new LineageGraph(id);
  let at = "";
  const canvas = h("div", { class: "canvas" });
  const panel = h("aside", { class: "node-panel", id: "node-panel" });
  const status = h("div");
  const moment = h("form", { class: "inline", id: "lineage-at" },
    h("label", { for: "at" }, "As it was at"),
    h("input", { id: "at", name: "at", placeholder: "now, or 2024-05-01T00:00:00Z", autocomplete: "off" }),
    h("button", { type: "submit", class: "secondary" }, "Show"));
  moment.addEventListener("submit", (event) => {
    event.preventDefault();
    at = moment.elements.at.value.trim();
    graph = new LineageGraph(id);
    show(status);
    show(canvas);
    show(panel);
    load();
  });
  const section = h("section", { class: "card", id: "lineage-section" },
    h("h2", {}, "Lineage"),
    h("p", { class: "muted" }, "Upstream on the left, downstream on the right. Choose a node to expand it."),
    moment, status, h("div", { class: "lineage-layout" }, canvas, panel));

  const redraw = () => show(canvas, graph.draw(select));
  const expand = async (node, direction) => {
    try {
      graph.expanded.add(`${node.id}|${direction}`);
      const answer = await trace(node.id, direction, 1, at);
      const grew = graph.merge(answer.data);
      const more = answer.data.truncated ? notice("More is linked than drawn here.", "note") : "";
      show(status, grew ? more : notice(`Nothing more ${direction} of ${shortId(node.id)}.`, "note"));
      redraw();
      select(graph.nodes.get(node.id));
    } catch (error) {
      show(status, notice(error.message));
    }
  };
  function select(node) {
    graph.selected = node.id;
    redraw();
    const button = (direction, label) => h("button", {
      type: "button", class: "secondary", id: `expand-${direction}`,
      disabled: graph.expanded.has(`${node.id}|${direction}`), onclick: () => expand(node, direction),
    }, label);
    show(panel,
      h("h3", {}, shortId(node.digital_link || node.id)),
      facts([
        ["Identifier", h("span", { class: "mono small" }, node.id)],
        ["Kind", node.kind],
        ["Digital Link", node.digital_link && node.digital_link !== node.id ? h("span", { class: "mono small" }, node.digital_link) : ""],
        ["Last event", node.eventTime],
        ["Business step", node.bizStep ? shortId(node.bizStep) : ""],
        ["Disposition", node.disposition ? shortId(node.disposition) : ""],
        ["Business location", node.bizLocation ? shortId(placeOf(node.bizLocation)) : ""],
        ["Read point", node.readPoint ? shortId(placeOf(node.readPoint)) : ""],
        ["Held by", node.parent ? itemLink(context, node.parent) : ""],
      ]),
      h("div", { class: "actions" }, button("upstream", "Expand upstream"), button("downstream", "Expand downstream")),
      node.id === graph.root ? null : h("p", {}, itemLink(context, node.id, "Open this item")));
  }
  const load = async () => {
    try {
      const answer = await trace(id, "both", 1, at);
      // The service names the root as it stores it (a URN for a Digital Link asked for).
      const root = answer.data.root || id;
      graph.root = graph.selected = root;
      graph.merge(answer.data);
      graph.expanded.add(`${root}|upstream`).add(`${root}|downstream`);
      if (!graph.nodes.has(root)) graph.nodes.set(root, { id: root, kind: isClass(id) ? "class" : "instance" });
      if (answer.data.truncated) show(status, notice("The lineage is larger than drawn: expand a node to see more of it.", "note"));
      select(graph.nodes.get(root));
      onHolder(holderFromTrace(graph));
    } catch (error) {
      show(status, notice(`The lineage is not available: ${error.message}`));
    }
  };
  return { section, load };
}

export async function itemPage(context, id) {
  if (!id) {
    context.go("events", { replace: true });
    return;
  }
  show(context.view, h("h1", {}, "Item"), h("p", { class: "muted" }, "Loading…"));
  let events;
  try {
    events = await timelineOf(id);
  } catch (error) {
    show(context.view, h("h1", {}, "Item"), notice(error.message));
    return;
  }
  const nowSlot = h("div");
  const fromEvents = isClass(id) ? null : await holderFromEvents(id);
  show(nowSlot, now(context, id, events, fromEvents));
  const graph = lineage(context, id, (holder) => {
    // The events' answer is in the form the console shows; the lineage's fills a gap only.
    if (holder && !fromEvents) show(nowSlot, now(context, id, events, holder));
  });
  show(context.view,
    h("h1", {}, isClass(id) ? "Class " : "Item ", h("span", { class: "mono" }, shortId(id))),
    h("p", { class: "mono small" }, id),
    nowSlot,
    graph.section,
    h("section", { class: "card" }, h("h2", {}, "Timeline"), timeline(context, events)));
  await graph.load();
}
