// Capture: upload an EPCIS document (JSON or XML), then the capture job it made, with the
// errors of what was rejected; the newest jobs below.
import { ApiError, call, getJson } from "./api.js";
import { facts, h, notice, show } from "./dom.js";

function mediaType(file) {
  const name = file.name.toLowerCase();
  if (name.endsWith(".xml") || file.type.includes("xml")) return "application/xml";
  if (name.endsWith(".jsonld")) return "application/ld+json";
  return "application/json";
}

function jobTable(context, jobs) {
  if (!jobs.length) return notice("No capture yet.", "note");
  return h("table", { class: "results", id: "jobs" },
    h("thead", {}, h("tr", {}, ...["Capture", "Created", "Captured", "Already present", "Rejected", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, ...jobs.map((job) => h("tr", {},
      h("td", {}, h("a", { href: context.href(`capture/${encodeURIComponent(job.captureID)}`), class: "mono" }, job.captureID)),
      h("td", {}, job.createdAt),
      h("td", {}, String(job.eventsCaptured)),
      h("td", {}, String(job.eventsAlreadyPresent)),
      h("td", {}, String(job.eventsRejected)),
      h("td", {}, job.success ? h("span", { class: "badge ok" }, "success") : h("span", { class: "badge error" }, "errors"))))));
}

export async function capturePage(context) {
  const result = h("section", { id: "capture-result" });
  const form = h("form", { class: "card", id: "capture" },
    h("p", {}, "Upload an EPCIS 2.0 document in JSON (JSON-LD) or XML. Its events are stored at once, or, on a problem, as the error behaviour says."),
    h("div", { class: "field" }, h("label", { for: "document" }, "Document"),
      h("input", { id: "document", name: "document", type: "file", accept: ".json,.jsonld,.xml,application/json,application/ld+json,application/xml,text/xml", required: true })),
    h("div", { class: "field" }, h("label", { for: "behaviour" }, "On an invalid event"),
      h("select", { id: "behaviour", name: "behaviour" },
        h("option", { value: "rollback" }, "store nothing (rollback)"),
        h("option", { value: "proceed" }, "store the valid events (proceed)"))),
    h("button", { type: "submit" }, "Capture"));
  const jobs = h("section", {}, h("h2", {}, "Recent captures"));
  show(context.view, h("h1", {}, "Capture"), form, result, jobs);
  const listJobs = async () => {
    try {
      show(jobs, h("h2", {}, "Recent captures"), jobTable(context, await getJson("v2/epcis/capture")));
    } catch (error) {
      show(jobs, h("h2", {}, "Recent captures"), notice(error.message));
    }
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = form.elements.document.files[0];
    if (!file) return;
    show(result, h("p", { class: "muted" }, `Capturing ${file.name}…`));
    try {
      const response = await call("v2/epcis/capture", {
        method: "POST",
        body: await file.arrayBuffer(),
        headers: { "Content-Type": mediaType(file), "GS1-Capture-Error-Behaviour": form.elements.behaviour.value },
      });
      const answer = await response.json();
      const job = await getJson(`v2/epcis/capture/${encodeURIComponent(answer.captureID)}`);
      show(result, notice(answer.message, job.success ? "success" : "error"), jobCard(context, job));
    } catch (error) {
      show(result, h("div", { class: "card error-list", id: "capture-errors" },
        h("h2", {}, error instanceof ApiError && error.status === 400 ? "The document was refused" : "Capture failed"),
        notice(error.message),
        error.details?.length ? h("ul", {}, ...error.details.map((line) => h("li", { class: "mono small" }, line))) : null,
        h("p", { class: "muted" }, "Nothing of it was stored.")));
    }
    await listJobs();
  });
  await listJobs();
}

function jobCard(context, job) {
  const errors = job.errors || [];
  return h("div", { class: "card", id: "job" },
    h("h2", {}, "Capture job ", h("span", { class: "mono" }, job.captureID)),
    facts([
      ["Status", job.running ? "running" : job.success ? h("span", { class: "badge ok" }, "success") : h("span", { class: "badge error" }, "finished with errors")],
      ["Created", job.createdAt],
      ["Finished", job.finishedAt],
      ["Error behaviour", job.captureErrorBehaviour],
      ["Events received", String(job.eventsReceived)],
      ["Events captured", String(job.eventsCaptured)],
      ["Error declarations captured", String(job.errorDeclarationsCaptured)],
      ["Already present", String(job.eventsAlreadyPresent)],
      ["Rejected", String(job.eventsRejected)],
    ]),
    errors.length ? h("div", { class: "error-list", id: "job-errors" }, h("h3", {}, "Errors"),
      h("ul", {}, ...errors.map((error) => h("li", {},
        typeof error === "string" ? error : [
          error.location ? h("span", { class: "mono small" }, error.location) : "",
          error.location ? ": " : "",
          error.reason || error.message || JSON.stringify(error),
        ])))) : null,
    h("p", {}, h("a", { href: context.href(`events?GE_recordTime=${encodeURIComponent(job.createdAt || "")}`) }, "Events recorded since")));
}

export async function captureJobPage(context, id) {
  try {
    const job = await getJson(`v2/epcis/capture/${encodeURIComponent(id)}`);
    show(context.view, h("h1", {}, "Capture"), jobCard(context, job),
      h("p", {}, h("a", { href: context.href("capture") }, "Capture another document")));
  } catch (error) {
    show(context.view, h("h1", {}, "Capture"), notice(error.message));
  }
}
