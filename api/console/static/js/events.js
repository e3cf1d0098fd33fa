// Event search: every EPCIS query parameter as a form, the answer as a table, page by page.
import { call, nextPageToken } from "./api.js";
import { eventLink, eventsOf, itemLink, objectsOf, placeOf, shortId, when } from "./epcis.js";
import { h, notice, show } from "./dom.js";
import { FAMILIES, GROUPS, NAMED } from "./query_parameters.js";

const PER_PAGE = "30";

function field(spec, value) {
  const id = `q-${spec.name}`;
  let input;
  if (spec.flag) {
    input = h("input", { id, name: spec.name, type: "checkbox", value: "true", checked: value !== null });
  } else if (spec.choices && spec.name !== "eventType") {
    input = h("select", { id, name: spec.name },
      h("option", { value: "" }, "any"),
      ...spec.choices.map((choice) => h("option", { value: choice, selected: choice === value }, choice)));
  } else {
    input = h("input", { id, name: spec.name, value: value || "", placeholder: spec.hint || "", list: spec.choices ? `${id}-list` : null, autocomplete: "off" });
  }
  const list = spec.choices && spec.name === "eventType"
    ? h("datalist", { id: `${id}-list` }, ...spec.choices.map((c) => h("option", { value: c })))
    : null;
  return h("div", { class: spec.flag ? "field flag" : "field" }, h("label", { for: id }, spec.name), input, list);
}

function extraRow(name = "", value = "") {
  return h("div", { class: "extra" },
    h("input", { name: "extra-name", value: name, placeholder: "EQ_bizTransaction_po", "aria-label": "parameter name" }),
    h("input", { name: "extra-value", value, placeholder: "value", "aria-label": "parameter value" }),
    h("button", { type: "button", class: "link", onclick: (e) => e.target.closest(".extra").remove() }, "remove"));
}

function searchForm(params) {
  const extras = h("div", { class: "extras" });
  for (const [name, value] of params) if (!NAMED.has(name)) extras.append(extraRow(name, value));
  const form = h("form", { id: "search", class: "search" },
    ...GROUPS.map((group) => {
      const used = group.fields.some((spec) => params.has(spec.name));
      return h("details", { open: group.open || used },
        h("summary", {}, group.title),
        h("div", { class: "grid" }, ...group.fields.map((spec) => field(spec, params.get(spec.name)))));
    }),
    h("details", { open: extras.childElementCount > 0 },
      h("summary", {}, "More parameters"),
      h("p", { class: "muted" }, "Parameters whose name carries a type or field: ", FAMILIES.join(", ")),
      extras,
      h("button", { type: "button", class: "secondary", onclick: () => extras.append(extraRow()) }, "Add a parameter")),
    h("div", { class: "actions" },
      h("button", { type: "submit" }, "Search"),
      h("button", { type: "reset", class: "secondary" }, "Clear")));
  return form;
}

function paramsOf(form) {
  const params = new URLSearchParams();
  const data = new FormData(form);
  for (const [name, value] of data) {
    if (name.startsWith("extra-") || value === "") continue;
    params.append(name, value);
  }
  const names = data.getAll("extra-name");
  const values = data.getAll("extra-value");
  names.forEach((name, index) => {
    if (name.trim()) params.append(name.trim(), values[index] || "");
  });
  return params;
}

function table(context, events) {
  const row = (event) => {
    const objects = objectsOf(event);
    const place = placeOf(event.bizLocation) || placeOf(event.readPoint);
    return h("tr", {},
      h("td", {}, eventLink(context, event, when(event))),
      h("td", {}, event.type, event.action ? ` ${event.action}` : ""),
      h("td", {}, shortId(event.bizStep)),
      h("td", {}, shortId(event.disposition)),
      h("td", { class: "objects" }, ...objects.slice(0, 3).flatMap((object, i) => [i ? ", " : "", itemLink(context, object.id)]),
        objects.length > 3 ? ` and ${objects.length - 3} more` : ""),
      h("td", {}, place ? h("span", { title: place }, shortId(place)) : ""),
      h("td", {}, event.errorDeclaration ? h("span", { class: "badge error" }, "error declared") : ""));
  };
  return h("table", { class: "results" },
    h("thead", {}, h("tr", {}, ...["Event time", "Type", "Business step", "Disposition", "What", "Where", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, ...events.map(row)));
}

export async function eventsPage(context) {
  const params = new URLSearchParams(location.search);
  const form = searchForm(params);
  const results = h("section", { id: "results" });
  show(context.view, h("h1", {}, "Events"), form, results);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = paramsOf(form);
    context.go(`events${chosen.toString() ? `?${chosen}` : ""}`);
  });
  form.addEventListener("reset", () => setTimeout(() => context.go("events"), 0));
  const tokens = [null];
  const load = async () => {
    const search = new URLSearchParams(params);
    if (!search.has("perPage")) search.set("perPage", PER_PAGE);
    if (!search.has("orderBy") && !search.has("orderDirection")) {
      // Newest first, unless the search says otherwise.
      search.set("orderBy", "eventTime");
      search.set("orderDirection", "DESC");
    }
    const token = tokens[tokens.length - 1];
    if (token) search.set("nextPageToken", token);
    show(results, h("p", { class: "muted" }, "Searching…"));
    let response;
    try {
      response = await call(`v2/epcis/events?${search}`);
    } catch (error) {
      show(results, notice(error.message));
      return;
    }
    const events = eventsOf(await response.json());
    const next = nextPageToken(response);
    const page = tokens.length;
    const pager = h("nav", { class: "pager", "aria-label": "pages" },
      h("button", { type: "button", class: "secondary", id: "previous", disabled: page === 1,
        onclick: () => { tokens.pop(); load(); } }, "Previous page"),
      h("span", { id: "page-number" }, `Page ${page}`),
      h("button", { type: "button", class: "secondary", id: "next", disabled: !next,
        onclick: () => { tokens.push(next); load(); } }, "Next page"));
    show(results,
      events.length ? table(context, events) : notice("No event matches.", "note"),
      pager);
  };
  await load();
}
