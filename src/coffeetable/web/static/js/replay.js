// Replay of a finished game: the public view after each move, step by step.

import { api, errorText } from "./api.js";
import { gameTitle, deckLabel, optionsSummary, scoreTable, seatBadge, seatName } from "./common.js";
import { replayChat } from "./chat.js";
import { createReview } from "./review.js";
import { button, h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { createBoards } from "./boards.js";
import { helpLink } from "./learn-text.js";
import { sayOnBoard } from "./logview.js";
import { capture, createMotion } from "./motion.js";
import { logText } from "./say.js";
import { zoomControls } from "./table.js";

const RENDERERS = {
  cafe: () => import("./cafe.js"),
  "coffee-rush": () => import("./rush.js"),
};

export function replayView(tableId, start = -1, reviewAtOnce = false) {
  const el = h("section", { class: "replay-page", id: "replay-page" });
  const head = h("div", { class: "table-head" });
  const bar = h("div", { class: "replay-bar card", id: "replay-bar" });
  const boardBox = h("div", { class: "board-box board-readonly", id: "board" });
  const side = h("aside", { class: "table-side" });
  const results = h("div", { class: "replay-results" });
  const reviewBox = h("div", { class: "replay-review" });
  el.append(head, bar, results, reviewBox, h("div", { class: "table-body" }, boardBox, side));
  let review = null; // the game review panel (review.js), once opened

  let table = null;
  let log = [];
  let n = 0;
  let total = 0;
  let renderer = null;
  let rendererModule = null;
  let boards = null;
  let shown = null; // the view on the board now
  const motion = createMotion(); // one step forward is shown moving, as at the table
  const cache = new Map();
  let loading = 0;
  let gone = false; // the page was left: what it was loading is not shown
  const chat = replayChat(tableId); // the lines said up to the move shown (chat.js)

  function renderHead() {
    if (!table) return;
    mount(head,
      h("div", { class: "title" },
        h("h1", {}, t("replay.title"), ": ", gameTitle(table.game)),
        h("span", { class: "muted" }, optionsSummary(table.game, table.options)),
        deckLabel(table.deck)),
      h("div", { class: "tools" },
        zoomControls(el),
        helpLink(table.game, h),
        h("a", { href: api.recordUrl(table.id), class: "button small", download: `${table.id}.json`, id: "download-record" }, t("replay.download")),
        button(t("review.open"), () => openReview(), { class: "small", id: "review-open" }),
        h("a", { href: `#/table/${table.id}`, class: "button small" }, t("replay.to_table"))));
  }

  /** A log entry in the player's words; Café positions for the area as the board shows it. */
  function words(entry, view) {
    const worded = { ...entry, say: sayOnBoard(table.game, entry.say, view, entry.seat) };
    return logText(worded, seatName(table.seats[entry.seat], entry.seat));
  }

  function renderBar() {
    const move = n > 0 ? log[n - 1] : null;
    const slider = h("input", {
      type: "range", min: 0, max: total, value: n, id: "replay-slider", "aria-label": t("replay.jump"),
      oninput: (e) => show(Number(e.target.value)),
    });
    mount(bar,
      button("|◀", () => show(0), { class: "icon", title: t("replay.first"), "aria-label": t("replay.first"), id: "replay-first" }),
      button("◀", () => show(n - 1), { class: "icon", title: t("replay.back"), "aria-label": t("replay.back"), id: "replay-back", disabled: n <= 0 }),
      button("▶", () => show(n + 1), { class: "icon", title: t("replay.forward"), "aria-label": t("replay.forward"), id: "replay-forward", disabled: n >= total }),
      button("▶|", () => show(total), { class: "icon", title: t("replay.last"), "aria-label": t("replay.last"), id: "replay-last" }),
      slider,
      h("span", { id: "replay-position" }, t("replay.position", { n, total })),
      h("p", { class: "replay-move", id: "replay-move" }, move ? words(move, shown) : t("replay.start")));
  }

  function renderSide(view) {
    mount(side,
      h("div", { class: "card players" }, h("h2", {}, t("table.players")),
        h("ul", { class: "player-list" }, table.seats.map((seat, i) => h("li", { class: ["player", (view.current_seats || []).includes(i) && "to-move"] },
          h("span", { class: "turn-mark" }, (view.current_seats || []).includes(i) ? "▶" : ""),
          seatBadge(seat, i),
          h("span", {}, ""),
          h("span", { class: "score" }, String(view.scores[i].total)))))),
      h("div", { class: "card log" }, h("h2", {}, t("table.log")),
        h("ol", { class: "log-lines" }, log.map((entry, i) => h("li", { class: i === n - 1 ? "current" : null, "data-version": entry.version },
          h("span", { class: "dot", style: { background: `var(--seat-${entry.seat})` } }),
          h("a", { href: "#", onclick: (e) => { e.preventDefault(); show(i + 1); } }, words(entry, view)))))));
    side.appendChild(chat.el);
    chat.show(n);
    const list = side.querySelector(".log-lines");
    const current = side.querySelector(".log-lines .current");
    if (list && current) list.scrollTop = current.offsetTop - list.offsetTop - list.clientHeight / 2;
  }

  /** The replay after `k` moves, asked for once. */
  async function replayAt(k) {
    let data = cache.get(k);
    if (!data) {
      data = await api.replay(tableId, k);
      cache.set(k, data);
    }
    return data;
  }

  async function show(target) {
    target = Math.max(0, Math.min(total, target));
    const step = target === n + 1 ? log[n] : null; // one move forward: shown moving
    n = target;
    renderBar();
    const ticket = ++loading;
    try {
      const data = await replayAt(target);
      if (ticket !== loading || gone) return;
      const before = shown;
      const old = step && before ? capture(renderer.el) : null;
      await renderer.update({ table, view: data.view, legal: [], seat: null, clock: null, over: data.view.over });
      if (gone) return;
      shown = data.view;
      renderBar();
      renderSide(data.view);
      if (boards) boards.refresh();
      if (old && !boards?.isOpen()) motion.play({ game: table.game, root: renderer.el, before, after: data.view, move: step, old, module: rendererModule });
      mount(results, data.view.over ? h("div", { class: "card", id: "replay-results" }, h("h2", {}, t("end.title")), scoreTable(table, data.view)) : null);
    } catch (err) {
      mount(boardBox, h("p", { class: "error-page" }, errorText(err)));
    }
  }

  /** The review beside the replay: the stored one, or one asked for now. */
  async function openReview() {
    if (!review) {
      review = createReview({
        table, jump: (k) => show(k), renderers: RENDERERS[table.game],
        viewAt: async (k) => (await replayAt(k)).view,
      });
      mount(reviewBox, review.el);
    }
    await review.start({ askNow: true });
    review.el.scrollIntoView({ block: "nearest" });
  }

  function onKey(event) {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft") show(n - 1);
    else if (event.key === "ArrowRight") show(n + 1);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(total);
  }

  return {
    el,
    async mounted() {
      try {
        table = await api.table(tableId);
      } catch (err) {
        mount(el, h("p", { class: "error-page", id: "replay-error" }, errorText(err)));
        return;
      }
      if (gone) return;
      if (table.status !== "finished") {
        mount(el, h("div", { class: "card" }, h("p", { id: "replay-error" }, t("replay.not_finished")),
          h("a", { href: `#/table/${table.id}`, class: "button" }, t("replay.to_table"))));
        return;
      }
      try {
        log = await api.log(tableId);
      } catch {
        log = [];
      }
      if (gone) return;
      // moves, not the table version: a move taken back (undo) bumped the version too
      total = log.length || table.version;
      const module = await RENDERERS[table.game]();
      if (gone) return;
      rendererModule = module;
      renderer = module.createRenderer({ act: () => false, interactive: false, boardTools: (which) => boards.tools(which) });
      boards = createBoards({
        root: renderer.el,
        title: (which) => (which === "board" ? t("boards.ingredients") : t("boards.of", { name: seatName(table.seats[which], which) })),
      });
      mount(boardBox, renderer.el);
      renderHead();
      document.addEventListener("keydown", onKey);
      await show(start >= 0 ? start : total);
      if (reviewAtOnce && !gone) await openReview();
    },
    unmount() {
      gone = true;
      document.removeEventListener("keydown", onKey);
      if (review) review.destroy();
      if (renderer) renderer.destroy();
      if (boards) boards.destroy();
      motion.destroy();
    },
    relabel() {
      renderHead();
      if (table) show(n);
      if (review) review.relabel();
    },
  };
}
