// The console's shell: which page a path names, who is signed in, the header's links.
import { CONSOLE, call, getJson, onSignedOut, stopRefreshing } from "./api.js";
import { h, notice, show } from "./dom.js";
import { signInPage } from "./sign_in.js";
import { eventsPage } from "./events.js";
import { eventPage } from "./event.js";
import { itemPage } from "./item.js";
import { capturePage, captureJobPage } from "./capture.js";
import { forgotPasswordPage, passwordPage, verifyEmailPage, INVITE, RESET } from "./mail_pages.js";

const view = document.getElementById("view");

/** Pages anyone may open (a mail's link is opened signed out). */
const PUBLIC = {
  "sign-in": signInPage,
  "forgot-password": forgotPasswordPage,
  "reset-password": (context) => passwordPage(context, RESET),
  "accept-invite": (context) => passwordPage(context, INVITE),
  "verify-email": verifyEmailPage,
};

/** Pages for signed-in users: [first segment, page(context, rest of the path)]. */
const PRIVATE = {
  "": eventsPage,
  events: (context, rest) => (rest ? eventPage(context, rest) : eventsPage(context)),
  items: (context, rest) => itemPage(context, rest),
  capture: (context, rest) => (rest ? captureJobPage(context, rest) : capturePage(context)),
};

let user = null;

/** The console-relative path of the page: `events/…`, `items/…`. */
function route() {
  const path = location.pathname.startsWith(CONSOLE.pathname)
    ? location.pathname.slice(CONSOLE.pathname.length)
    : "";
  const [first, ...rest] = path.split("/");
  return { first, rest: rest.map(decodeURIComponent).join("/") };
}

/** Open a console page without reloading (`path` relative to the console). */
export function go(path, { replace = false } = {}) {
  const url = new URL(path, CONSOLE);
  history[replace ? "replaceState" : "pushState"](null, "", url);
  render();
}

/** The console address of a page. */
export function href(path) {
  return new URL(path, CONSOLE).pathname + new URL(path, CONSOLE).search;
}

async function whoIsSignedIn() {
  try {
    const body = await getJson("users/me?fields=id,email,first_name,last_name");
    return body.data;
  } catch {
    return null;
  }
}

function header() {
  const signedIn = Boolean(user);
  document.getElementById("nav").hidden = !signedIn;
  document.getElementById("sign-out").hidden = !signedIn;
  document.getElementById("who").textContent = signedIn ? user.email || "signed in" : "";
  const { first } = route();
  for (const link of document.querySelectorAll("[data-nav]")) {
    const here = link.dataset.nav === first || (first === "" && link.dataset.nav === "events");
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

export async function render() {
  const { first, rest } = route();
  const context = { view, go, href, user: () => user, signedIn };
  try {
    if (first in PUBLIC) {
      header();
      await PUBLIC[first](context, rest);
      return;
    }
    user ??= await whoIsSignedIn();
    header();
    if (!user) {
      const here = location.pathname + location.search;
      go(`sign-in?next=${encodeURIComponent(here)}`, { replace: true });
      return;
    }
    const page = PRIVATE[first];
    if (!page) {
      show(view, h("h1", {}, "Not found"), notice("The console has no such page."));
      return;
    }
    await page(context, rest);
  } catch (error) {
    show(view, h("h1", {}, "Something went wrong"), notice(error.message || String(error)));
  }
}

/** After a sign-in: who it is, then the page the user came for. */
async function signedIn(next) {
  user = await whoIsSignedIn();
  const target = next && next.startsWith(CONSOLE.pathname) ? next : CONSOLE.pathname;
  history.replaceState(null, "", target);
  render();
}

async function signOut() {
  try {
    await call("auth/logout", { method: "POST", json: { mode: "session" } });
  } catch {
    // Gone already: the console forgets it all the same.
  }
  stopRefreshing();
  user = null;
  go("sign-in");
}

onSignedOut(() => {
  if (!user) return;
  user = null;
  stopRefreshing();
  const here = location.pathname + location.search;
  go(`sign-in?expired=1&next=${encodeURIComponent(here)}`, { replace: true });
});

// Links inside the console open without a reload; others (the API, SSO) as usual.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  if (!link || link.target || link.hasAttribute("download") || event.defaultPrevented) return;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const url = new URL(link.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(CONSOLE.pathname)) return;
  if (link.dataset.reload !== undefined) return;
  event.preventDefault();
  history.pushState(null, "", url);
  render();
});
window.addEventListener("popstate", render);
document.getElementById("sign-out").addEventListener("click", signOut);
render();
