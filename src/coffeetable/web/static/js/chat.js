// Chat (docs/web.md, "Chat"): the panel of a table and of the lobby, and the chat of a replay.
//
// Lines come over the page's socket (`chat` messages; the last lines with the first
// snapshot, or the lobby's `tables` message) and are only ever inserted as text. A line is
// words (`text`) or a quick message (`preset`), shown in the reader's language. A spectator's
// line is marked, and a player may hide spectators' lines (kept in localStorage). A click on a
// name opens its menu: mute, block, report the line, report the player (docs/server.md).

import { api, errorText } from "./api.js";
import { session, toast } from "./shell.js";
import { button, h, mount } from "./dom.js";
import { language, t, tn } from "./i18n.js";

export const MAX_CHARS = 500;
export const PRESETS = [
  "hello", "good_luck", "thinking", "one_moment", "sorry_misclick", "well_played", "thanks", "good_game", "bye",
];
const HIDE_SPECTATORS_KEY = "coffeetable.chat.hide_spectators";
const KEEP = 300; // lines kept on the page

/** Whom I muted and blocked (names), shared by every panel of the page. */
const moderation = { muted: new Set(), blocked: new Set(), loaded: null };

function loadModeration() {
  if (!session.user) return Promise.resolve();
  if (!moderation.loaded) {
    moderation.loaded = api.get("/api/me/moderation").then((lists) => {
      moderation.muted = new Set(lists.muted);
      moderation.blocked = new Set(lists.blocked);
    }).catch(() => { moderation.loaded = null; });
  }
  return moderation.loaded;
}

function hiddenName(name) {
  return moderation.muted.has(name) || moderation.blocked.has(name);
}

/** A line's words in the reader's language: its text, or its quick message translated. */
export function lineWords(line) {
  if (line.preset) return PRESETS.includes(line.preset) ? t(`chat.preset.${line.preset}`) : line.preset;
  return line.text || "";
}

function timeOf(line) {
  const at = new Date(line.at);
  return isNaN(at) ? "" : at.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit" });
}

/** One line: time, name (a button opening its menu), spectator mark, words. */
function lineEl(line, { menu = null } = {}) {
  const mine = session.user && line.user === session.user.name;
  const name = menu && !mine
    ? button(line.user, (event) => menu(line, event.currentTarget), { class: "chat-name link", "aria-haspopup": "menu" })
    : h("span", { class: "chat-name" }, line.user);
  return h("li", {
    class: ["chat-line", line.spectator && "spectator", line.preset && "preset", mine && "mine"],
    "data-line": String(line.id),
  },
  h("time", { class: "chat-time muted", datetime: line.at }, timeOf(line)),
  name,
  line.spectator ? h("span", { class: "tag chat-spectator", title: t("chat.spectator_title") }, t("chat.spectator")) : null,
  h("span", { class: "chat-words" }, lineWords(line)));
}

/** The menu of a name: mute/unmute, block/unblock, report the line, report the player. */
function nameMenu(line, anchor, onChange) {
  document.querySelector(".chat-menu")?.remove();
  const name = line.user;
  const close = () => {
    box.remove();
    document.removeEventListener("click", outside, true);
    document.removeEventListener("keydown", escape);
  };
  const outside = (event) => { if (!box.contains(event.target) && event.target !== anchor) close(); };
  const escape = (event) => { if (event.key === "Escape") { close(); anchor.focus(); } };
  const toggle = async (path, key) => {
    try {
      const lists = await api.post(`/api/users/${encodeURIComponent(name)}/${path}`);
      moderation.muted = new Set(lists.muted);
      moderation.blocked = new Set(lists.blocked);
      toast(t(key, { name }), "info", 3000);
      onChange();
    } catch (err) {
      toast(errorText(err));
    }
    close();
  };
  const report = (withLine) => {
    close();
    reportDialog(name, withLine ? line : null);
  };
  const muted = moderation.muted.has(name);
  const blocked = moderation.blocked.has(name);
  const box = h("div", { class: "chat-menu card", role: "menu", "aria-label": t("chat.menu", { name }) },
    h("p", { class: "chat-menu-title" }, name),
    button(t(muted ? "chat.unmute" : "chat.mute"), () => toggle(muted ? "unmute" : "mute", muted ? "chat.unmuted" : "chat.muted"), { role: "menuitem", class: "small", "data-action": muted ? "unmute" : "mute" }),
    button(t(blocked ? "chat.unblock" : "chat.block"), () => toggle(blocked ? "unblock" : "block", blocked ? "chat.unblocked" : "chat.blocked"), { role: "menuitem", class: "small", "data-action": blocked ? "unblock" : "block" }),
    line.id ? button(t("chat.report_line"), () => report(true), { role: "menuitem", class: "small", "data-action": "report-line" }) : null,
    button(t("chat.report_player"), () => report(false), { role: "menuitem", class: "small", "data-action": "report-player" }));
  const rect = anchor.getBoundingClientRect();
  box.style.setProperty("top", `${Math.round(rect.bottom + window.scrollY + 4)}px`);
  box.style.setProperty("left", `${Math.round(Math.max(4, rect.left + window.scrollX))}px`);
  document.body.appendChild(box);
  setTimeout(() => document.addEventListener("click", outside, true));
  document.addEventListener("keydown", escape);
  box.querySelector("button")?.focus();
}

/** A small dialog asking why; sends the report (of a line, or of a player). */
function reportDialog(name, line) {
  document.querySelector(".chat-report")?.remove();
  const reason = h("textarea", { id: "report-reason", maxlength: MAX_CHARS, rows: 3, required: true });
  const box = h("div", { class: "chat-report-backdrop" });
  const close = () => { box.remove(); document.removeEventListener("keydown", escape); };
  const escape = (event) => { if (event.key === "Escape") close(); };
  document.addEventListener("keydown", escape);
  const send = async () => {
    const text = reason.value.trim();
    if (!text) { reason.focus(); return; }
    try {
      await api.post("/api/reports", line ? { line: line.id, reason: text } : { name, reason: text });
      toast(t("chat.reported"), "info", 4000);
      close();
    } catch (err) {
      toast(errorText(err));
    }
  };
  box.appendChild(h("div", { class: "card chat-report", role: "dialog", "aria-labelledby": "report-title" },
    h("h2", { id: "report-title" }, t(line ? "chat.report_line" : "chat.report_player")),
    line ? h("blockquote", { class: "chat-quote" }, h("b", {}, name), ": ", lineWords(line)) : h("p", {}, name),
    h("label", { for: "report-reason" }, t("chat.report_reason")), reason,
    h("div", { class: "actions" },
      button(t("chat.report_send"), send, { class: "primary", id: "report-send" }),
      button(t("chat.cancel"), close, { class: "small" }))));
  document.body.appendChild(box);
  reason.focus();
}

/**
 * A chat panel. `send(message)` sends a `chat` message over the page's socket (false when it
 * is down); `spectators`: whether lines may be spectators' (a table: the "hide" toggle).
 */
function chatPanel({ id, title, send, spectators }) {
  const lines = [];
  const ids = new Set();
  let hideSpectators = spectators && localStorage.getItem(HIDE_SPECTATORS_KEY) === "1";
  let refCounter = 0;
  let lastSent = null; // {ref, text}: put back in the box if the server refuses it
  const list = h("ol", { class: "chat-lines", id: `${id}-lines`, "aria-live": "polite" });
  const input = h("input", {
    type: "text", id: `${id}-input`, maxlength: MAX_CHARS, autocomplete: "off",
    placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder"),
  });
  const counter = h("span", { class: "chat-count muted", "aria-live": "polite" });
  const problem = h("p", { class: "chat-error", role: "alert", hidden: true });
  const el = h("div", { class: "card chat", id });

  function visible(line) {
    if (hiddenName(line.user)) return false;
    return !(hideSpectators && line.spectator);
  }

  function renderLines() {
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
    const shown = lines.filter(visible);
    mount(list, shown.length ? shown.map((line) => lineEl(line, { menu: session.user ? menuFor : null }))
      : h("li", { class: "muted chat-empty" }, t("chat.empty")));
    if (atBottom || !list.dataset.scrolled) list.scrollTop = list.scrollHeight;
    list.dataset.scrolled = "1";
  }

  function menuFor(line, anchor) {
    nameMenu(line, anchor, renderLines);
  }

  function say(message) {
    refCounter += 1;
    const ref = `c${refCounter}`;
    if (!send({ type: "chat", ...message, ref })) {
      toast(t("error.offline"));
      return false;
    }
    lastSent = { ref, text: message.text || null };
    problem.hidden = true;
    return true;
  }

  function submit(event) {
    event.preventDefault();
    const text = input.value.replace(/\s+/g, " ").trim();
    if (!text) return;
    if (say({ text })) {
      input.value = "";
      updateCounter();
    }
  }

  function updateCounter() {
    const left = MAX_CHARS - input.value.length;
    counter.textContent = left <= 100 ? tn("chat.chars_left", left) : "";
  }
  input.addEventListener("input", updateCounter);

  function render() {
    const canSay = !!session.user;
    mount(el,
      h("div", { class: "chat-head" },
        h("h2", {}, title()),
        spectators ? h("label", { class: "chat-toggle" },
          h("input", {
            type: "checkbox", id: `${id}-hide-spectators`, checked: hideSpectators,
            onchange: (e) => {
              hideSpectators = e.target.checked;
              localStorage.setItem(HIDE_SPECTATORS_KEY, hideSpectators ? "1" : "0");
              renderLines();
            },
          }), t("chat.hide_spectators")) : null),
      list,
      canSay ? h("div", { class: "chat-quick", role: "group", "aria-label": t("chat.quick") },
        PRESETS.map((preset) => button(t(`chat.preset.${preset}`), () => { say({ preset }); }, { class: "small chip", "data-preset": preset })))
        : null,
      canSay ? h("form", { class: "chat-form", onsubmit: submit },
        input, button(t("chat.send"), null, { class: "small primary", type: "submit", id: `${id}-send` }), counter)
        : h("p", { class: "muted chat-login" }, h("a", { href: `#/login?next=${encodeURIComponent(location.hash || "#/")}` }, t("chat.login"))),
      problem);
    input.placeholder = t("chat.placeholder");
    renderLines();
  }

  render();
  return {
    el,
    /** The last lines (from a snapshot or the lobby's first message): replaces what we had. */
    reset(history) {
      lines.length = 0;
      ids.clear();
      for (const line of history || []) this.add(line, false);
      loadModeration().then(renderLines);
      render();
      list.dataset.live = "1"; // the socket's first lines came: what is said now is heard here
    },
    add(line, draw = true) {
      if (!line || ids.has(line.id)) return;
      ids.add(line.id);
      lines.push(line);
      lines.sort((a, b) => a.id - b.id);
      if (lines.length > KEEP) ids.delete(lines.shift().id);
      if (draw) renderLines();
    },
    /** An error message from the socket: true if it was about a line of this panel. */
    error(msg) {
      if (!msg.ref || !lastSent || msg.ref !== lastSent.ref) return false;
      if (lastSent.text && !input.value) input.value = lastSent.text;
      problem.textContent = errorText(msg);
      problem.hidden = false;
      updateCounter();
      return true;
    },
    render,
  };
}

/** The chat of a table. */
export function tableChat({ send }) {
  return chatPanel({ id: "table-chat", title: () => t("chat.title"), send, spectators: true });
}

/** The lobby's chat. */
export function lobbyChat({ send }) {
  return chatPanel({ id: "lobby-chat", title: () => t("chat.lobby_title"), send, spectators: false });
}

/** The chat of a replay: the lines said up to the move shown (`show(n)`). */
export function replayChat(tableId) {
  let lines = [];
  const el = h("div", { class: "card chat chat-replay", id: "replay-chat" });
  const ready = api.get(`/api/tables/${encodeURIComponent(tableId)}/chat`)
    .then((answer) => { lines = answer.lines || []; })
    .catch(() => { lines = []; });
  return {
    el,
    async show(n) {
      await Promise.all([ready, loadModeration()]);
      const said = lines.filter((line) => (line.moves ?? 0) <= n && !hiddenName(line.user));
      mount(el, h("h2", {}, t("chat.title")),
        h("ol", { class: "chat-lines", id: "replay-chat-lines" },
          said.length ? said.map((line) => lineEl(line)) : h("li", { class: "muted chat-empty" }, t("chat.empty"))));
      const list = el.querySelector(".chat-lines");
      list.scrollTop = list.scrollHeight;
    },
  };
}
