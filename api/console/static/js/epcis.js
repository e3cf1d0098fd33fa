// Reading EPCIS 2.0 JSON events for display: the events of a query document, what an
// event is about, where it happened, and short labels for long identifiers.
import { h } from "./dom.js";

/** The events of an EPCISQueryDocument. */
export function eventsOf(document) {
  return document?.epcisBody?.queryResults?.resultsBody?.eventList || [];
}

/** Every EPC and class an event names, with its role. */
export function objectsOf(event) {
  const found = [];
  const add = (role, values) => {
    for (const value of values || []) found.push({ role, id: typeof value === "string" ? value : value.epcClass });
  };
  if (event.parentID) add("parent", [event.parentID]);
  add("epc", event.epcList);
  add("child", event.childEPCs);
  add("input", event.inputEPCList);
  add("output", event.outputEPCList);
  add("class", event.quantityList);
  add("child class", event.childQuantityList);
  add("input class", event.inputQuantityList);
  add("output class", event.outputQuantityList);
  return found.filter((object) => object.id);
}

/** The last part of a URI or URN that tells it apart: `…/21/0001`, `…:0614141.107346.2017`. */
export function shortId(id) {
  if (!id) return "";
  const text = String(id);
  const link = text.match(/^https?:\/\/[^/]+(\/.*)$/);
  if (link) return link[1].length > 34 ? `…${link[1].slice(-33)}` : link[1];
  const urn = text.match(/^urn:epc:(?:id|class|idpat):([^:]+):(.*)$/);
  if (urn) return `${urn[1]}:${urn[2]}`;
  const cbv = text.match(/^https:\/\/ref\.gs1\.org\/cbv\/[^-]+-(.*)$/) || text.match(/^urn:epcglobal:cbv:[^:]+:(.*)$/);
  if (cbv) return cbv[1];
  return text.length > 36 ? `…${text.slice(-35)}` : text;
}

/** A place of an event (bizLocation or readPoint): its id, whichever form. */
export function placeOf(place) {
  if (!place) return "";
  return typeof place === "string" ? place : place.id || "";
}

/** A link to an item's page. */
export function itemLink(context, id, label) {
  return h("a", { href: context.href(`items/${encodeURIComponent(id)}`), title: id, class: "epc" }, label || shortId(id));
}

/** A link to an event's page. */
export function eventLink(context, event, label) {
  return h("a", { href: context.href(`events/${encodeURIComponent(event.eventID)}`), title: event.eventID }, label);
}

/** `2024-05-01 10:00:00 +02:00`, as the event says it. */
export function when(event) {
  const time = String(event.eventTime || "").replace("T", " ").replace(/\.\d+/, "");
  return time;
}
