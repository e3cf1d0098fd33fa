// One event: what it says, its error declaration if one was made, and the event itself as
// the API answers it in JSON and in XML.
import { call } from "./api.js";
import { eventsOf, itemLink, objectsOf, placeOf, shortId } from "./epcis.js";
import { facts, h, notice, show } from "./dom.js";

/** XML indented for reading (what the API sends is one line). */
function prettyXml(text) {
  const parsed = new DOMParser().parseFromString(text, "application/xml");
  if (parsed.querySelector("parsererror")) return text;
  const lines = [];
  const escape = (value) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  const open = (element) => {
    const attributes = [...element.attributes].map((a) => ` ${a.name}="${escape(a.value)}"`).join("");
    return `<${element.tagName}${attributes}>`;
  };
  const walk = (element, depth) => {
    const pad = "  ".repeat(depth);
    const children = [...element.childNodes].filter((n) => n.nodeType === 1 || (n.nodeType === 3 && n.textContent.trim()));
    if (!children.length) {
      lines.push(`${pad}${open(element).replace(/>$/, "/>")}`);
    } else if (children.every((n) => n.nodeType === 3)) {
      lines.push(`${pad}${open(element)}${escape(element.textContent.trim())}</${element.tagName}>`);
    } else {
      lines.push(`${pad}${open(element)}`);
      for (const child of children) {
        if (child.nodeType === 1) walk(child, depth + 1);
        else lines.push(`${pad}  ${escape(child.textContent.trim())}`);
      }
      lines.push(`${pad}</${element.tagName}>`);
    }
  };
  walk(parsed.documentElement, 0);
  return lines.join("\n");
}

function place(context, value) {
  const id = placeOf(value);
  return id ? h("span", { title: id }, shortId(id)) : "";
}

function declaration(context, event) {
  const declared = event.errorDeclaration;
  if (!declared) return null;
  const corrective = declared.correctiveEventIDs || [];
  return h("section", { class: "card error-declaration", id: "error-declaration" },
    h("h2", {}, "Error declared"),
    h("p", {}, "This event was declared to be in error. It stays in the record, as captured."),
    facts([
      ["Declared at", declared.declarationTime],
      ["Reason", declared.reason ? shortId(declared.reason) : "none given"],
      ["Corrective events", corrective.length
        ? h("span", {}, ...corrective.flatMap((id, i) => [i ? ", " : "", h("a", { href: context.href(`events/${encodeURIComponent(id)}`) }, shortId(id))]))
        : ""],
    ]));
}

function summary(context, event) {
  const objects = objectsOf(event);
  return h("section", { class: "card" },
    facts([
      ["Type", `${event.type}${event.action ? ` (${event.action})` : ""}`],
      ["Event time", `${event.eventTime} ${event.eventTimeZoneOffset || ""}`],
      ["Record time", event.recordTime],
      ["Business step", event.bizStep ? h("span", { title: event.bizStep }, shortId(event.bizStep)) : ""],
      ["Disposition", event.disposition ? h("span", { title: event.disposition }, shortId(event.disposition)) : ""],
      ["Read point", place(context, event.readPoint)],
      ["Business location", place(context, event.bizLocation)],
      ["Objects", objects.length
        ? h("ul", { class: "plain" }, ...objects.map((object) => h("li", {}, h("span", { class: "role" }, object.role), " ", itemLink(context, object.id, object.id))))
        : ""],
    ]));
}

export async function eventPage(context, eventID) {
  show(context.view, h("h1", {}, "Event"), h("p", { class: "muted" }, "Loading…"));
  const path = `v2/epcis/events/${encodeURIComponent(eventID)}`;
  let document;
  try {
    document = await (await call(path)).json();
  } catch (error) {
    show(context.view, h("h1", {}, "Event"), notice(error.message));
    return;
  }
  const events = eventsOf(document);
  const event = events.find((e) => !e.errorDeclaration) || events[0];
  const declared = events.find((e) => e.errorDeclaration);
  const code = h("pre", { class: "code", id: "source" });
  const tabs = h("div", { class: "tabs", role: "tablist" });
  const formats = [
    ["JSON", "application/json", () => JSON.stringify(events.length === 1 ? event : events, null, 2)],
    ["XML", "application/xml", null],
  ];
  const choose = async (index) => {
    for (const [i, button] of [...tabs.children].entries()) button.setAttribute("aria-selected", String(i === index));
    const [, accept, local] = formats[index];
    if (local) {
      code.textContent = local();
      return;
    }
    code.textContent = "Loading…";
    try {
      code.textContent = prettyXml(await (await call(path, { accept })).text());
    } catch (error) {
      code.textContent = error.message;
    }
  };
  formats.forEach(([label], index) =>
    tabs.append(h("button", { type: "button", role: "tab", class: "tab", id: `tab-${label.toLowerCase()}`, onclick: () => choose(index) }, label)));
  show(context.view,
    h("h1", {}, `${event.type} `, h("small", { class: "muted mono" }, shortId(event.eventID))),
    h("p", { class: "mono small" }, event.eventID),
    declaration(context, declared || event),
    summary(context, event),
    h("section", {}, h("h2", {}, "As the API answers it"), tabs, code));
  await choose(0);
}
