// The player's settings (#/settings): sound and browser notifications in the page, e-mail
// (address, on/off per kind, how often at most, language), saved with POST /api/me/settings.
// Also the page a mail's unsubscribe link opens (#/unsubscribe/TOKEN): it turns every mail
// off at once, logged in or not.

import { api, errorText } from "./api.js";
import { requireLogin, session, toast } from "./shell.js";
import { button, h, mount } from "./dom.js";
import { LANGUAGES, language, t, tn } from "./i18n.js";
import { notificationsSupported, playChime, setPrefs } from "./notify.js";

const KINDS = ["your_move", "ended", "invitation"];

function checkbox(id, checked, label, attrs = {}) {
  const input = h("input", { type: "checkbox", id, ...attrs });
  input.checked = !!checked;
  return { input, el: h("label", { class: "check", for: id }, input, " ", label) };
}

export function settingsView() {
  const el = h("section", { class: "settings-page" });
  if (!requireLogin()) return { el };
  const box = h("div", { class: "card settings", id: "settings" });
  let settings = null;

  function render() {
    if (!settings) {
      mount(box, h("p", { class: "loading" }, "…"));
      return;
    }
    const guest = session.user && session.user.guest;
    const sound = checkbox("set-sound", settings.sound, t("settings.sound"));
    const browser = checkbox("set-browser", settings.browser, t("settings.browser"),
      notificationsSupported() ? {} : { disabled: true });
    const email = h("input", {
      type: "email", id: "set-email", maxlength: 254, autocomplete: "email",
      placeholder: t("settings.email_placeholder"), disabled: guest || null,
    });
    email.value = settings.email || "";
    const mail = checkbox("set-mail", settings.mail, t("settings.mail"));
    const kinds = KINDS.map((kind) => checkbox(`set-mail-${kind}`, settings[`mail_${kind}`], t(`settings.mail_${kind}`)));
    const digest = h("select", { id: "set-digest" },
      settings.digest_choices.map((m) => h("option", { value: String(m) },
        m < 60 ? tn("settings.minutes", m) : m < 1440 ? tn("settings.hours", m / 60) : tn("settings.days", m / 1440))));
    digest.value = String(settings.digest);
    const lang = h("select", { id: "set-language" },
      LANGUAGES.filter((l) => settings.languages.includes(l.code)).map((l) => h("option", { value: l.code }, l.name)));
    lang.value = settings.language;

    async function save(event) {
      event.preventDefault();
      const body = {
        sound: sound.input.checked,
        browser: browser.input.checked,
        mail: mail.input.checked,
        digest: Number(digest.value),
        language: lang.value,
      };
      for (const [i, kind] of KINDS.entries()) body[`mail_${kind}`] = kinds[i].input.checked;
      if (!guest) body.email = email.value.trim() ? email.value.trim() : null;
      if (body.browser && notificationsSupported() && Notification.permission !== "granted") {
        const answer = await Notification.requestPermission();
        if (answer !== "granted") {
          body.browser = false;
          toast(t("settings.browser_denied"), "warn");
        }
      }
      try {
        settings = await api.post("/api/me/settings", body);
        setPrefs({ sound: settings.sound, browser: settings.browser });
        toast(t("settings.saved"), "info", 2500);
        render();
      } catch (err) {
        toast(errorText(err));
      }
    }

    mount(box,
      h("h1", {}, t("settings.title")),
      h("form", { id: "settings-form", novalidate: true, onsubmit: save },
        h("fieldset", {},
          h("legend", {}, t("settings.in_page")),
          h("p", { class: "muted" }, t("settings.in_page_help")),
          h("div", { class: "row" }, sound.el,
            button(t("settings.try_sound"), () => playChime(), { class: "small", type: "button", id: "try-sound" })),
          browser.el,
          notificationsSupported() ? null : h("p", { class: "muted" }, t("settings.browser_unsupported"))),
        h("fieldset", {},
          h("legend", {}, t("settings.by_mail")),
          settings.mail_available ? null : h("p", { class: "tag warn", id: "mail-off" }, t("settings.mail_unavailable")),
          h("label", { for: "set-email" }, t("settings.email")),
          email,
          guest ? h("p", { class: "muted" }, t("settings.email_guest")) : h("p", { class: "muted" }, t("settings.email_private")),
          mail.el,
          h("div", { class: "kinds" }, kinds.map((k) => k.el)),
          h("label", { for: "set-digest" }, t("settings.digest")),
          digest,
          h("label", { for: "set-language" }, t("settings.language")),
          lang),
        h("div", { class: "actions" }, button(t("settings.save"), null, { class: "primary", type: "submit", id: "save-settings" }))));
  }

  async function load() {
    try {
      settings = await api.get("/api/me/settings");
      if (!settings.email && settings.language === "en" && language() !== "en") settings.language = language();
    } catch (err) {
      toast(errorText(err));
    }
    render();
  }

  mount(el, box);
  return { el, mounted() { render(); load(); }, relabel: render };
}

export function unsubscribeView(token) {
  const el = h("section", { class: "unsubscribe-page" });
  const box = h("div", { class: "card", id: "unsubscribe" }, h("p", { class: "loading" }, "…"));
  mount(el, box);
  let answer = null;
  let failed = null;

  function render() {
    mount(box,
      h("h1", {}, t("unsubscribe.title")),
      answer
        ? h("p", { id: "unsubscribed" }, t("unsubscribe.done", { name: answer.name }))
        : h("p", { class: "error", id: "unsubscribe-error" }, failed || "…"),
      h("p", {}, h("a", { href: "#/settings" }, t("unsubscribe.settings"))));
  }

  return {
    el,
    async mounted() {
      try {
        answer = await api.post("/api/unsubscribe", { token: String(token || "") });
      } catch (err) {
        failed = err.code === "invalid_token" ? t("unsubscribe.invalid") : errorText(err);
      }
      render();
    },
    relabel: render,
  };
}
