// Small DOM helpers: elements are built with properties and text, never from HTML strings,
// so nothing a stored event or an error says can become markup.

/** An element: `h("a", {href: "…", class: "x", onclick: fn}, "text", child, …)`. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** An SVG element with attributes. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace what `element` holds. */
export function show(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A message in the page, for errors (role=alert) or notes. */
export function notice(text, kind = "error") {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/** A definition list from [label, value] pairs, leaving out empty values. */
export function facts(pairs) {
  const list = h("dl", { class: "facts" });
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === "") continue;
    list.append(h("dt", {}, label), h("dd", {}, value));
  }
  return list;
}
