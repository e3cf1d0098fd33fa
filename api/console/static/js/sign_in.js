// Sign in: e-mail and password (and a one-time password when two-factor authentication
// is on) in session mode, or a single sign-on provider.
import { ApiError, CONSOLE, SERVICE, call, getJson, scheduleRefresh } from "./api.js";
import { h, notice, show } from "./dom.js";

/** What a failed single sign-on's `reason` means to the user. */
const SSO_FAILURES = {
  INVALID_CREDENTIALS: "The provider signed you in, but this service has no active account for you.",
  INVALID_PROVIDER: "That sign-in provider is not available.",
  SERVICE_UNAVAILABLE: "The sign-in provider does not answer. Try again later.",
  USER_SUSPENDED: "Your account is suspended.",
};

export async function signInPage(context) {
  const params = new URLSearchParams(location.search);
  const next = params.get("next") || "";
  const message = h("div");
  const otp = h("input", { id: "otp", name: "otp", inputmode: "numeric", autocomplete: "one-time-code" });
  const otpField = h("div", { class: "field", hidden: true },
    h("label", { for: "otp" }, "One-time password"), otp);
  const form = h("form", { class: "card narrow", id: "sign-in" },
    h("h1", {}, "Sign in"),
    params.get("expired") ? notice("Your session has ended. Sign in again.", "note") : null,
    message,
    h("div", { class: "field" }, h("label", { for: "email" }, "E-mail"),
      h("input", { id: "email", name: "email", type: "email", required: true, autocomplete: "username", autofocus: true })),
    h("div", { class: "field" }, h("label", { for: "password" }, "Password"),
      h("input", { id: "password", name: "password", type: "password", required: true, autocomplete: "current-password" })),
    otpField,
    h("button", { type: "submit" }, "Sign in"),
    h("p", {}, h("a", { href: context.href("forgot-password") }, "Forgot your password?")),
  );
  const providers = h("div", { class: "providers" });
  show(context.view, form, providers);
  // A single sign-on that failed comes back here with `?reason=<code>`.
  const reason = params.get("reason");
  if (reason === "INVALID_OTP") {
    otpField.hidden = false;
    show(message, notice("Enter the one-time password of your authenticator app, then sign in with your provider again.", "note"));
  } else if (reason) {
    show(message, notice(SSO_FAILURES[reason] || `The single sign-on failed (${reason}).`));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { email: data.get("email"), password: data.get("password"), mode: "session" };
    if (!otpField.hidden && data.get("otp")) body.otp = data.get("otp");
    try {
      const response = await call("auth/login", { method: "POST", json: body });
      scheduleRefresh((await response.json()).data?.expires);
      await context.signedIn(next);
    } catch (error) {
      if (error instanceof ApiError && error.code === "INVALID_OTP") {
        const first = otpField.hidden;
        otpField.hidden = false;
        otp.required = true;
        otp.focus();
        show(message, first
          ? notice("Enter the one-time password of your authenticator app.", "note")
          : notice("That one-time password is not right."));
        return;
      }
      show(message, notice(error.message));
    }
  });

  // Single sign-on: one link a provider, when the service has any.
  try {
    const answer = await getJson("auth");
    const list = answer.data || [];
    if (answer.disableDefault) form.replaceChildren(form.firstChild, message);
    if (list.length) {
      const back = new URL(next || CONSOLE.pathname, CONSOLE).href;
      show(providers, h("p", { class: "muted" }, answer.disableDefault ? "Sign in with" : "Or sign in with"),
        ...list.map((provider) => {
          const url = new URL(`auth/login/${encodeURIComponent(provider.name)}`, SERVICE);
          url.searchParams.set("redirect", back);
          url.searchParams.set("mode", "session");
          const link = h("a", { class: "button secondary", href: url.href, "data-reload": "" },
            provider.label || provider.name);
          // A user with two-factor authentication gives the one-time password along.
          link.addEventListener("click", () => {
            if (otp.value) url.searchParams.set("otp", otp.value);
            link.href = url.href;
          });
          return link;
        }));
    }
  } catch {
    // No provider list: the form alone.
  }
}
