// The pages the service's e-mails link to: choose a new password, accept an invitation,
// verify an address; and asking for a reset mail.
import { ApiError, call } from "./api.js";
import { h, notice, show } from "./dom.js";

export const RESET = {
  title: "Choose a new password",
  intro: "Choose the new password of your Tracepoint account.",
  endpoint: "auth/password/reset",
  done: "Your password is changed. Sign in with the new one.",
  expired: "This link has expired or was used already. Ask for a new one.",
};
export const INVITE = {
  title: "Accept the invitation",
  intro: "Choose a password to activate your Tracepoint account.",
  endpoint: "users/invite/accept",
  done: "Your account is active. Sign in with your e-mail address and this password.",
  expired: "This invitation has expired or was accepted already. Ask for a new one.",
};

function token() {
  return new URLSearchParams(location.search).get("token") || "";
}

function signInLink(context) {
  return h("p", {}, h("a", { class: "button", href: context.href("sign-in") }, "Sign in"));
}

export async function passwordPage(context, page) {
  const mailed = token();
  if (!mailed) {
    show(context.view, h("div", { class: "card narrow" }, h("h1", {}, page.title),
      notice("This link carries no token. Open the whole link from the mail.")));
    return;
  }
  const message = h("div");
  const form = h("form", { class: "card narrow", id: "password-form" },
    h("h1", {}, page.title), h("p", {}, page.intro), message,
    h("div", { class: "field" }, h("label", { for: "password" }, "New password"),
      h("input", { id: "password", name: "password", type: "password", required: true, autocomplete: "new-password", autofocus: true })),
    h("div", { class: "field" }, h("label", { for: "password_confirm" }, "The same password again"),
      h("input", { id: "password_confirm", name: "password_confirm", type: "password", required: true, autocomplete: "new-password" })),
    h("button", { type: "submit" }, page.title));
  show(context.view, form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    if (data.get("password") !== data.get("password_confirm")) {
      show(message, notice("The two passwords differ."));
      return;
    }
    try {
      await call(page.endpoint, { method: "POST", json: { token: mailed, password: data.get("password") } });
      // The token has done its work: it leaves the address bar.
      history.replaceState(null, "", location.pathname);
      show(context.view, h("div", { class: "card narrow" }, h("h1", {}, page.title),
        notice(page.done, "success"), signInLink(context)));
    } catch (error) {
      const expired = error instanceof ApiError && error.status === 403;
      show(message, notice(expired ? page.expired : error.message));
    }
  });
}

export async function verifyEmailPage(context) {
  const title = "Verify your e-mail address";
  const mailed = token();
  const card = h("div", { class: "card narrow", id: "verify" }, h("h1", {}, title));
  show(context.view, card);
  if (!mailed) {
    card.append(notice("This link carries no token. Open the whole link from the mail."));
    return;
  }
  card.append(h("p", { class: "muted" }, "Checking the link…"));
  try {
    await call(`users/register/verify-email?token=${encodeURIComponent(mailed)}`);
    history.replaceState(null, "", location.pathname);
    show(card, h("h1", {}, title),
      notice("Your e-mail address is verified and your account is active. You can sign in now.", "success"),
      signInLink(context));
  } catch (error) {
    const text = error instanceof ApiError && error.status === 403
      ? "This link has expired or is not valid. Register again to get a new one."
      : "This address is verified already, or its registration is unknown.";
    show(card, h("h1", {}, title), notice(text), signInLink(context));
  }
}

export async function forgotPasswordPage(context) {
  const message = h("div");
  const form = h("form", { class: "card narrow", id: "forgot" },
    h("h1", {}, "Forgot your password?"),
    h("p", {}, "We mail you a link to choose a new one."), message,
    h("div", { class: "field" }, h("label", { for: "email" }, "E-mail"),
      h("input", { id: "email", name: "email", type: "email", required: true, autocomplete: "username", autofocus: true })),
    h("button", { type: "submit" }, "Send the link"));
  show(context.view, form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("auth/password/request", { method: "POST", json: { email: new FormData(form).get("email") } });
      show(message, notice("If the address has an account, a mail with a link is on its way.", "success"));
    } catch (error) {
      show(message, notice(error.message));
    }
  });
}
