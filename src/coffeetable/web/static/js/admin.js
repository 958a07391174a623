// The admin page (#/admin): open reports with the reported line in its context, marking them
// handled, suspending and lifting suspensions (docs/web.md, "Chat"). The server answers 403 to
// anyone who is not an admin; this page then says so.

import { api, errorText } from "./api.js";
import { requireLogin, toast } from "./shell.js";
import { lineWords } from "./chat.js";
import { button, h, mount } from "./dom.js";
import { t } from "./i18n.js";

export function adminView() {
  const el = h("section", { class: "admin-page", id: "admin-page" });
  const list = h("div", { id: "admin-reports" });
  const accounts = h("div", { class: "card", id: "admin-accounts" });
  let handled = false;
  let reports = [];

  function when(iso) {
    const at = new Date(iso);
    return isNaN(at) ? "" : at.toLocaleString();
  }

  async function suspend(name, on) {
    if (on && !confirm(t("admin.suspend_confirm", { name }))) return;
    try {
      await api.post(`/api/admin/users/${encodeURIComponent(name)}/${on ? "suspend" : "unsuspend"}`);
      toast(t(on ? "admin.suspended_toast" : "admin.unsuspended_toast", { name }), "info", 4000);
      await load();
    } catch (err) {
      toast(errorText(err));
    }
  }

  async function markHandled(report) {
    try {
      await api.post(`/api/admin/reports/${report.id}/handle`);
      await load();
      return true;
    } catch (err) {
      toast(errorText(err));
    }
  }

  function reportCard(report) {
    const context = report.context.length
      ? h("ol", { class: "chat-lines admin-context" }, report.context.map((line) => h("li", {
        class: ["chat-line", line.id === report.line && "reported", line.spectator && "spectator"],
      }, h("span", { class: "chat-name" }, line.user), " ", h("span", { class: "chat-words" }, lineWords(line)))))
      : null;
    return h("article", { class: "card admin-report", "data-report": String(report.id) },
      h("h2", {},
        t(report.line ? "admin.about_line" : "admin.about_player", { name: report.target }),
        report.target_suspended ? h("span", { class: "tag danger" }, t("admin.suspended")) : null),
      h("p", { class: "muted" }, t("admin.reported_by", { name: report.reporter, at: when(report.at) }),
        report.table ? [" · ", h("a", { href: `#/table/${encodeURIComponent(report.table)}` }, t("admin.table"))] : null),
      h("p", {}, h("b", {}, t("admin.reason")), " ", h("span", { class: "admin-reason" }, report.reason)),
      report.text !== null ? h("blockquote", { class: "chat-quote admin-text" }, report.text) : null,
      context ? h("details", { open: true }, h("summary", {}, t("admin.context")), context) : null,
      h("div", { class: "actions" },
        report.handled_at ? h("span", { class: "muted" }, t("admin.handled_at", { at: when(report.handled_at) }))
          : button(t("admin.mark_handled"), () => markHandled(report), { class: "primary small", "data-handle": String(report.id) }),
        report.target_suspended
          ? button(t("admin.unsuspend", { name: report.target }), () => suspend(report.target, false), { class: "small", "data-unsuspend": report.target })
          : button(t("admin.suspend", { name: report.target }), () => suspend(report.target, true), { class: "small danger", "data-suspend": report.target })));
  }

  function render() {
    mount(list,
      h("div", { class: "admin-tabs", role: "tablist" },
        button(t("admin.open"), () => { handled = false; load(); }, { role: "tab", class: ["small", !handled && "active"], "aria-selected": String(!handled), id: "admin-open" }),
        button(t("admin.handled"), () => { handled = true; load(); }, { role: "tab", class: ["small", handled && "active"], "aria-selected": String(handled), id: "admin-handled" })),
      reports.length ? reports.map(reportCard) : h("p", { class: "muted", id: "admin-none" }, t(handled ? "admin.none_handled" : "admin.none")));
    const name = h("input", { type: "text", id: "admin-account", maxlength: 200, "aria-label": t("admin.account") });
    mount(accounts,
      h("h2", {}, t("admin.accounts")),
      h("label", { for: "admin-account" }, t("admin.account")), name,
      h("div", { class: "actions" },
        button(t("admin.suspend_named"), () => name.value.trim() && suspend(name.value.trim(), true), { class: "small danger", id: "admin-suspend" }),
        button(t("admin.unsuspend_named"), () => name.value.trim() && suspend(name.value.trim(), false), { class: "small", id: "admin-unsuspend" })));
  }

  async function load() {
    try {
      reports = await api.get(`/api/admin/reports${handled ? "?handled=true" : ""}`);
    } catch (err) {
      mount(el, h("h1", {}, t("admin.title")),
        h("p", { class: "error-page", id: "admin-error" }, err.status === 403 ? t("admin.forbidden") : errorText(err)));
      return;
    }
    render();
  }

  mount(el, h("h1", {}, t("admin.title")), list, accounts);
  return {
    el,
    async mounted() {
      if (!requireLogin()) return;
      await load();
    },
    relabel() { render(); },
  };
}
