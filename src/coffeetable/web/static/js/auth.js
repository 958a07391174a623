// Sign up, log in, or play as a guest.

import { api, errorText } from "./api.js";
import { go, refreshSession } from "./shell.js";
import { button, h, mount } from "./dom.js";
import { t } from "./i18n.js";

// the server's rules (docs/server-auth.md), checked first so the message can be precise
function checkName(name) {
  const n = name.normalize("NFKC").trim();
  const length = [...n].length;
  if (length < 3 || length > 20) return "auth.bad_name_length";
  if (/\s/u.test(n)) return "auth.bad_name_space";
  if (!/^[\p{L}\p{M}0-9_.-]+$/u.test(n)) return "auth.bad_name_chars";
  if (!/^[\p{L}0-9]/u.test(n)) return "auth.bad_name_start";
  if (!/\p{L}/u.test(n)) return "auth.bad_name_letter";
  return null;
}

function checkPassword(pw) {
  const length = [...pw.normalize("NFKC")].length;
  if (length < 8) return "auth.bad_password_short";
  if (length > 128) return "auth.bad_password_long";
  return null;
}

export function loginView(next) {
  let mode = "login"; // or "signup"
  const el = h("section", { class: "auth-page" });
  const target = next && next.startsWith("#/") ? next : "#/";

  function render() {
    const typed = el.querySelector("#auth-name");
    const keep = typed ? typed.value : "";
    const message = h("p", { class: "form-error", role: "alert", id: "auth-error" });
    const name = h("input", {
      id: "auth-name", name: "name", autocomplete: "username", required: true, maxlength: 40, value: keep,
    });
    const password = h("input", {
      id: "auth-password", name: "password", type: "password", required: true, maxlength: 200,
      autocomplete: mode === "signup" ? "new-password" : "current-password",
    });
    const submit = h("button", { type: "submit", class: "primary", id: "auth-submit" },
      t(mode === "signup" ? "auth.signup" : "auth.login"));
    const form = h("form", { class: "card auth-form", id: "auth-form", novalidate: true },
      h("div", { class: "tabs", role: "tablist" },
        button(t("auth.login_tab"), () => { mode = "login"; render(); },
          { class: ["tab", mode === "login" && "active"], id: "tab-login", role: "tab" }),
        button(t("auth.signup_tab"), () => { mode = "signup"; render(); },
          { class: ["tab", mode === "signup" && "active"], id: "tab-signup", role: "tab" })),
      h("label", {}, h("span", {}, t("auth.name")), name),
      mode === "signup" ? h("p", { class: "hint" }, t("auth.name_rules")) : null,
      h("label", {}, h("span", {}, t("auth.password")), password),
      mode === "signup" ? h("p", { class: "hint" }, t("auth.password_rules")) : null,
      message,
      submit);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      message.textContent = "";
      if (mode === "signup") {
        const problem = checkName(name.value) || checkPassword(password.value);
        if (problem) {
          message.textContent = t(problem);
          return;
        }
      } else if (!name.value.trim() || !password.value) {
        message.textContent = t("auth.fill_in");
        return;
      }
      submit.disabled = true;
      try {
        if (mode === "signup") await api.register(name.value, password.value);
        else await api.login(name.value, password.value);
        await refreshSession();
        go(target);
      } catch (err) {
        message.textContent = errorText(err);
        submit.disabled = false;
      }
    });
    const guestError = h("p", { class: "form-error", role: "alert" });
    const guest = h("div", { class: "card guest-box" },
      h("h2", {}, t("auth.guest_title")),
      h("p", {}, t("auth.guest_text")),
      guestError,
      button(t("auth.guest"), async (event) => {
        event.target.disabled = true;
        try {
          await api.guest();
          await refreshSession();
          go(target);
        } catch (err) {
          guestError.textContent = errorText(err);
          event.target.disabled = false;
        }
      }, { id: "guest-button" }));
    mount(el,
      h("div", { class: "welcome" },
        h("h1", {}, t("auth.welcome")),
        h("p", { class: "lead" }, t("auth.lead"))),
      h("div", { class: "auth-columns" }, form, guest));
  }

  render();
  return { el, relabel: render };
}
