// "My games" (#/games) and its short form in the lobby: the player's running and recent
// tables from GET /api/me/games, "your move" first with the time left on the clock. It
// refreshes when the user channel says a turn changed (notify.js).

import { api, errorText } from "./api.js";
import { requireLogin, session } from "./shell.js";
import { gameTitle, seatBadge, statusText } from "./common.js";
import { formatDuration, h, mount } from "./dom.js";
import { t, tn } from "./i18n.js";
import { onChannel } from "./notify.js";

function timeLeftText(row, fetchedAt) {
  if (row.time_left === null || row.time_left === undefined) {
    // no limit: how long the move has waited
    if (!row.your_move || !row.turn_since) return null;
    return t("mygames.waiting_for", { time: formatDuration((Date.now() - Date.parse(row.turn_since)) / 1000) });
  }
  const left = row.time_left - (row.your_move ? (Date.now() - fetchedAt) / 1000 : 0);
  return t("mygames.time_left", { time: formatDuration(Math.max(0, left)) });
}

function gameRow(row, fetchedAt) {
  const others = row.seats.map((s, i) => (i === row.my_seat ? null : seatBadge(s, i))).filter(Boolean);
  const left = timeLeftText(row, fetchedAt);
  const link = row.status === "finished" || row.status === "aborted" ? `#/replay/${row.id}` : `#/table/${row.id}`;
  return h("li", { class: ["mygame", row.your_move && "your-move", `status-${row.status}`], "data-mygame": row.id },
    h("a", { href: link, class: "mygame-link" },
      h("strong", {}, gameTitle(row.game)),
      row.your_move
        ? h("span", { class: "tag move", "data-your-move": "1" }, t("mygames.your_move"))
        : h("span", { class: ["status", row.status] }, statusText(row.status))),
    h("span", { class: "mygame-seats" }, others),
    left ? h("span", { class: "mygame-clock", "data-time-left": "1" }, left) : null);
}

/** The list, as a box; `limit`: the lobby shows the first few with a link to the page. */
function gamesBox({ limit = 0, id }) {
  const box = h("div", { class: "card mygames", id });
  let rows = [];
  let fetchedAt = Date.now();
  let failed = null;
  let timer = null;

  function render() {
    const shown = limit ? rows.filter((r) => r.status === "running" || r.status === "open").slice(0, limit) : rows;
    const waiting = rows.filter((r) => r.your_move).length;
    mount(box,
      h("h2", {}, t("mygames.title"),
        waiting ? h("span", { class: "tag move" }, tn("mygames.waiting", waiting)) : null),
      failed ? h("p", { class: "error" }, failed) : null,
      shown.length
        ? h("ul", { class: "mygames-list" }, shown.map((r) => gameRow(r, fetchedAt)))
        : h("p", { class: "muted empty" }, t("mygames.none")),
      limit && rows.length > shown.length
        ? h("a", { href: "#/games", class: "more", id: "all-my-games" }, t("mygames.all"))
        : null);
  }

  async function load() {
    try {
      rows = await api.get("/api/me/games");
      fetchedAt = Date.now();
      failed = null;
    } catch (err) {
      failed = errorText(err);
    }
    render();
  }

  const off = onChannel((msg) => {
    if (msg.type === "turn" || msg.type === "ended" || msg.type === "welcome") {
      clearTimeout(timer);
      timer = setTimeout(load, 150); // a few changes at once: one request
    }
  });
  const tick = setInterval(() => { if (rows.some((r) => r.your_move)) render(); }, 1000);
  return {
    el: box,
    load,
    render,
    destroy() {
      off();
      clearInterval(tick);
      clearTimeout(timer);
    },
  };
}

/** The lobby's section (logged-in players only). */
export function myGamesSection() {
  if (!session.user) return null;
  return gamesBox({ limit: 5, id: "my-games-lobby" });
}

export function myGamesView() {
  const el = h("section", { class: "mygames-page" });
  if (!requireLogin()) return { el };
  const box = gamesBox({ id: "my-games" });
  mount(el, box.el);
  return {
    el,
    mounted() { box.load(); },
    unmount() { box.destroy(); },
    relabel() { box.render(); },
  };
}
