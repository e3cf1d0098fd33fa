// Calls to the service: the platform API and the EPCIS API, with the session cookie the
// console's sign-in set (httpOnly: scripts never see the token).

/** The console's own address and the service's (the console is served at `/console/`). */
export const CONSOLE = new URL("../", import.meta.url);
export const SERVICE = new URL("../../", import.meta.url);

/** A failed call: its HTTP status, the error code when the API gave one, a message. */
export class ApiError extends Error {
  constructor(status, message, code = "", details = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const listeners = new Set();
/** Called when the session is gone and cannot be refreshed. */
export function onSignedOut(listener) {
  listeners.add(listener);
}

let refreshing = null;
let refreshTimer = null;

/** Ask for a fresh session cookie; whether there is one. One refresh at a time. */
export function refresh() {
  refreshing ??= fetch(new URL("auth/refresh", SERVICE), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ mode: "session" }),
    credentials: "same-origin",
  })
    .then(async (response) => {
      if (!response.ok) return false;
      const body = await response.json();
      scheduleRefresh(body.data?.expires);
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** Refresh the session a little before it expires, while the console is open. */
export function scheduleRefresh(expires) {
  clearTimeout(refreshTimer);
  if (typeof expires !== "number" || expires <= 0) return;
  // A little before the end, at a moment of its own: two tabs refreshing the same session
  // at once would look like a stolen token, which ends the sign-in.
  const lead = Math.min(60_000, expires / 4) + Math.random() * Math.min(10_000, expires / 8);
  refreshTimer = setTimeout(refresh, Math.max(1_000, expires - lead));
}

export function stopRefreshing() {
  clearTimeout(refreshTimer);
}

/**
 * A call; answers the Response when it succeeded, else throws ApiError. A 401 refreshes
 * the session once and tries again; a second 401 signs the console out.
 */
export async function call(path, { method = "GET", json, body, headers = {}, accept } = {}) {
  const init = { method, headers: { ...headers }, credentials: "same-origin" };
  if (json !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (body !== undefined) {
    init.body = body;
  }
  init.headers.Accept = accept || "application/json";
  const url = new URL(path, SERVICE);
  let response = await fetch(url, init);
  const signingIn = path.startsWith("auth/");
  if (response.status === 401 && !signingIn) {
    if (await refresh()) response = await fetch(url, init);
    if (response.status === 401) listeners.forEach((listener) => listener());
  }
  if (!response.ok) throw await failure(response);
  return response;
}

/** The JSON body of a successful call. */
export async function getJson(path, options) {
  const response = await call(path, options);
  return response.status === 204 ? null : response.json();
}

/** The error a failed answer carries, in either API family's format. */
async function failure(response) {
  const type = response.headers.get("Content-Type") || "";
  const text = await response.text();
  if (type.includes("json")) {
    try {
      const body = JSON.parse(text);
      const error = body.errors?.[0];
      if (error) return new ApiError(response.status, error.message, error.extensions?.code);
      if (body.detail || body.title) {
        const code = String(body.type || "").replace("epcisException:", "");
        return new ApiError(response.status, body.detail || body.title, code);
      }
    } catch {
      // Not the JSON it said: the text is the message.
    }
  }
  // EPCIS capture answers an invalid document with a plain list of violations.
  const lines = text.split("\n").map((line) => line.trim()).filter(Boolean);
  const message = lines[0] || `${response.status} ${response.statusText}`;
  return new ApiError(response.status, message, "", lines.slice(1));
}

/** The query string of an object of parameters, leaving out empty ones. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.append(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** The next-page token of an EPCIS answer's `Link` header, if any. */
export function nextPageToken(response) {
  const link = response.headers.get("Link") || "";
  const match = link.match(/<([^>]+)>\s*;\s*rel="?next"?/);
  if (!match) return null;
  return new URL(match[1], SERVICE).searchParams.get("nextPageToken");
}
