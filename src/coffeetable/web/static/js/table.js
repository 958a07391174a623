// A table: its seats before the start, then the game (Café or Coffee Rush), the players
// with their clocks and scores, the game log, hints, and the end screen.

import { createAbandonBox } from "./abandon.js";
import { api, errorText } from "./api.js";
import { banner, go, requireLogin, session, toast } from "./shell.js";
import {
  clockSummary, createdByMe, gameTitle, mySeat, rememberHost, deckLabel, optionsSummary, scoreTable, seatBadge, seatName, soloLabel, statusText,
} from "./common.js";
import { tableChat } from "./chat.js";
import { button, formatDuration, h, mount, requestId } from "./dom.js";
import { invitePicker, mayHaveFriends } from "./friends.js";
import { t, tn } from "./i18n.js";
import { helpLink } from "./learn-text.js";
import { createBoards } from "./boards.js";
import { groupLog, mergedSay, roundSummaries, sayOnBoard } from "./logview.js";
import { MAX_QUEUE, capture, createMotion } from "./motion.js";
import { logText, sayText } from "./say.js";
import { TableSocket } from "./socket.js";
import { createTutorial, tutorialOf } from "./tutorial.js";
import { onPresence, presenceMark, showPresenceOf } from "./presence.js";

const RENDERERS = {
  cafe: () => import("./cafe.js"),
  "coffee-rush": () => import("./rush.js"),
};

const ZOOM_KEY = "coffeetable.zoom";
/** What the server's table ids look like (letters, digits, "-" and "_"). */
const TABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function zoomLevel() {
  const z = Number(localStorage.getItem(ZOOM_KEY) || "1");
  return isFinite(z) && z >= 0.5 && z <= 2 ? z : 1;
}

/** Zoom buttons that scale `target` (a CSS variable, so SVGs grow with it). */
export function zoomControls(target) {
  const apply = (z) => {
    localStorage.setItem(ZOOM_KEY, String(z));
    target.style.setProperty("--zoom", String(z));
  };
  apply(zoomLevel());
  const step = (d) => apply(Math.round(Math.min(2, Math.max(0.5, zoomLevel() + d)) * 10) / 10);
  return h("span", { class: "zoom" },
    button("−", () => step(-0.1), { class: "icon small", title: t("table.zoom_out"), "aria-label": t("table.zoom_out"), id: "zoom-out" }),
    button("⟲", () => apply(1), { class: "icon small", title: t("table.zoom_reset"), "aria-label": t("table.zoom_reset") }),
    button("+", () => step(0.1), { class: "icon small", title: t("table.zoom_in"), "aria-label": t("table.zoom_in"), id: "zoom-in" }));
}

export function tableView(tableId, { invite = null } = {}) {
  const el = h("section", { class: "table-page", id: "table-page", "data-table": tableId });
  invite = invite || localStorage.getItem(`coffeetable.invite.${tableId}`);
  if (invite) localStorage.setItem(`coffeetable.invite.${tableId}`, invite);

  const model = {
    table: null, view: null, legal: [], seat: null, clock: null, clockAt: 0, version: -1, log: [],
    undoable: false,
  };
  let socket = null;
  let renderer = null;
  let rendererGame = null;
  let rendererModule = null;
  let connection = "connecting";
  let endDismissed = false;
  let hint = null; // {version, action, text}
  let hintBusy = false;
  let tick = null;
  let tutorial = null; // the guided tutorial over this table (tutorial.js), if it is one
  let boards = null; // the Enlarge buttons and dialog (boards.js), one per renderer
  let backlog = 0; // socket messages received and not yet handled
  let behind = false; // updates taken in and not drawn yet (more messages were waiting)
  let gone = false; // the page was left: what it had received and not handled is dropped
  const motion = createMotion(); // others' moves shown moving (motion.js)

  const head = h("div", { class: "table-head" });
  const body = h("div", { class: "table-body" });
  const boardBox = h("div", { class: "board-box", id: "board" });
  const side = h("aside", { class: "table-side" });
  const playersBox = h("div", { class: "card players", id: "players" });
  // Undo and Hint travel with the renderer's action bar (on a phone it stays on screen)
  const hintBox = h("span", { class: "hint-box", id: "hint-box" });
  const undoBox = h("span", { class: "undo-box", id: "undo-box", hidden: true });
  const quickBox = h("span", { class: "quick-actions", id: "quick-actions" }, undoBox, hintBox);
  const logBox = h("div", { class: "card log", id: "game-log" });
  const endBox = h("div", { class: "end-overlay", id: "end-screen", hidden: true });
  const preBox = h("div", { class: "card pregame", id: "pregame" });
  const chat = tableChat({ send: (message) => !!socket && socket.send(message) }); // chat.js
  // the question about a player who has gone (abandon.js)
  const abandonBox = createAbandonBox({
    vote: (seat, choice) => {
      if (!socket || !socket.connected) {
        toast(t("error.offline"));
        return false;
      }
      return socket.vote(seat, choice);
    },
  });

  el.append(head, body, endBox);

  // ---- the players and the log fold away on a phone (a tap on their title opens them) -----------
  const narrow = typeof matchMedia === "function" && matchMedia("(max-width: 600px)").matches;
  const folded = { players: narrow, log: narrow };

  function foldTitle(which, key) {
    const card = which === "players" ? playersBox : logBox;
    card.classList.toggle("folded", folded[which]);
    return h("h2", { class: "fold-title" },
      button([t(key), h("span", { class: "fold-mark", "aria-hidden": "true" }, folded[which] ? "▸" : "▾")], () => {
        folded[which] = !folded[which];
        if (which === "players") renderPlayers();
        else renderLog();
      }, { class: "fold", id: `fold-${which}`, "aria-expanded": String(!folded[which]), "aria-controls": which === "players" ? "player-list" : "log-lines" }));
  }

  // ---- header line -------------------------------------------------------------------------------
  function renderHead() {
    const table = model.table;
    if (!table) {
      mount(head, h("h1", {}, t("table.loading")));
      return;
    }
    const me = model.seat;
    const watching = me === null && table.status === "running";
    mount(head,
      h("div", { class: "title" },
        h("h1", {}, gameTitle(table.game)),
        h("span", { class: "muted" }, optionsSummary(table.game, table.options)),
        deckLabel(table.deck),
        h("span", { class: ["status", table.status], id: "table-status" }, statusText(table.status)),
        table.rated ? h("span", { class: "tag rated" }, t("lobby.rated")) : null,
        watching ? h("span", { class: "tag", id: "spectating" }, t("table.spectating")) : null),
      h("div", { class: "tools" },
        h("span", { class: ["conn", connection], id: "conn-state" }, t(connection === "lost" ? "conn.lost_short" : `conn.${connection}`)),
        zoomControls(el),
        helpLink(table.game, h),
        table.status === "running" && me !== null && !table.seats[me].replaced
          ? button(t("table.leave_game"), leaveGame, { class: "small danger", id: "leave-game" }) : null,
        table.status === "finished"
          ? h("a", { href: `#/replay/${table.id}`, class: "button small", id: "open-replay" }, t("table.replay")) : null,
        table.status === "finished"
          ? h("a", { href: `#/replay/${table.id}?review=1`, class: "button small", id: "open-review" }, t("review.open")) : null));
  }

  // ---- before the start: seats, invite, start ---------------------------------------------------
  let friendPicker = null; // "Invite a friend", made once (it asks for the friends list)
  function renderPregame() {
    watchPlayers();
    const table = model.table;
    const me = mySeat(table, session.user);
    const free = table.seats.filter((s) => s.kind === "open").length;
    const host = createdByMe(table.id, session.user, table);
    const rows = table.seats.map((seat, i) => h("li", { class: "pre-seat", "data-seat": i },
      seatBadge(seat, i, { me: i === me }),
      seat.kind === "human" ? presenceMark(seat.user) : null,
      seat.kind === "open" && me === null
        ? button(t("table.take_seat"), () => join(i), { class: "small primary", "data-take-seat": i }) : null));
    const actions = [];
    if (me !== null) {
      if (host && table.status === "open") {
        // Start stays busy once clicked: the seats are redrawn (a presence mark, a player
        // coming and going) while it is on its way, and once more by the table's "running"
        // message before the board comes; a new Start then would say "already started"
        const busy = starting !== null;
        actions.push(button(t("table.start"), start, {
          class: "primary", id: "start-game", disabled: free > 0 || busy, ...(busy ? { "aria-busy": "true" } : {}),
        }));
      }
      actions.push(button(t("table.leave_seat"), leaveSeat, { class: "small", id: "leave-seat" }));
    }
    let inviteBox = null;
    if (table.private && !invite && model.invite) invite = model.invite; // we play here: share it
    if (table.private && invite) {
      const link = `${location.origin}${location.pathname}#/table/${table.id}?invite=${encodeURIComponent(invite)}`;
      const input = h("input", { readonly: true, value: link, id: "invite-link", onclick: (e) => e.target.select() });
      inviteBox = h("div", { class: "invite" },
        h("label", {}, t("table.invite_link"), input),
        button(t("table.copy"), async () => {
          try { await navigator.clipboard.writeText(link); toast(t("table.copied"), "info", 2000); } catch { input.select(); }
        }, { class: "small" }));
    }
    mount(preBox,
      h("h2", {}, t("table.waiting_title")),
      h("p", { class: "muted" }, clockSummary(table.clock)),
      h("ol", { class: "pre-seats" }, rows),
      h("p", { id: "pregame-status" },
        table.status === "aborted" ? t("table.aborted")
          : free ? tn("table.waiting_players", free)
            : host ? t("table.ready_to_start") : t("table.waiting_host")),
      inviteBox,
      me !== null && free > 0 && mayHaveFriends() ? (friendPicker ||= invitePicker(table.id)) : null,
      h("div", { class: "actions" }, actions));
  }

  async function join(seat) {
    if (!requireLogin()) return;
    try {
      const table = await api.join(tableId, { seat, ...(invite ? { invite } : {}) });
      model.table = table;
      renderAll();
      return true;
    } catch (err) {
      toast(errorText(err));
    }
  }

  async function leaveSeat() {
    try {
      model.table = await api.leave(tableId);
      renderAll();
    } catch (err) {
      toast(errorText(err));
    }
  }

  async function leaveGame() {
    if (!confirm(t("table.leave_confirm"))) return;
    try {
      model.table = await api.leave(tableId);
      renderAll();
    } catch (err) {
      toast(errorText(err));
    }
  }

  let starting = null; // the Start request on its way, or done (then the game is running)
  function start() {
    starting ||= api.start(tableId).then(
      () => true, // the table's message redraws the page
      (err) => {
        starting = null;
        toast(errorText(err));
        renderPregame();
      });
    return starting;
  }

  // ---- players, clocks, scores -------------------------------------------------------------------
  function clockText(i) {
    const c = model.clock;
    if (!c || !c.remaining) return null;
    const elapsed = (performance.now() - model.clockAt) / 1000;
    const running = (c.running || []).includes(i);
    if (c.settings && c.settings.kind === "turn_based") {
      if (!running) return c.remaining[i] === null ? null : "";
      const waited = (c.waiting?.[i] || 0) + elapsed;
      const limit = c.remaining[i];
      return limit === null || limit === undefined
        ? t("clock.waiting_for", { time: formatDuration(waited) })
        : formatDuration(Math.max(0, limit - elapsed));
    }
    const left = (c.remaining[i] ?? 0) - (running ? elapsed : 0);
    return formatDuration(Math.max(0, left));
  }

  function watchPlayers() {
    if (model.table) showPresenceOf(model.table.seats.filter((s) => s.kind === "human").map((s) => s.user));
  }

  function renderPlayers() {
    const { table, view } = model;
    watchPlayers();
    if (!view) {
      mount(playersBox);
      return;
    }
    const current = new Set(view.current_seats || []);
    mount(playersBox,
      foldTitle("players", "table.players"),
      h("ul", { class: "player-list", id: "player-list" }, table.seats.map((seat, i) => {
        const score = view.scores?.[i]?.total;
        const extra = renderer && renderer.seatInfo ? renderer.seatInfo(i) : null;
        const lowClock = model.clock && model.clock.settings?.kind === "realtime" && (model.clock.remaining?.[i] ?? 999) < 30;
        return h("li", { class: ["player", current.has(i) && "to-move", i === model.seat && "mine"], "data-seat": i },
          h("span", { class: "turn-mark", "aria-hidden": "true" }, current.has(i) ? "▶" : ""),
          seatBadge(seat, i, { me: i === model.seat }),
          seat.kind === "human" ? presenceMark(seat.user, { compact: true }) : null,
          extra ? h("span", { class: "seat-extra muted" }, extra) : null,
          h("span", { class: "score", title: t("score.total") }, score === undefined ? "" : String(score)),
          model.clock ? h("span", { class: ["clock", lowClock && "low", (model.clock.running || []).includes(i) && "running"], "data-clock": i, title: t("clock.help") }, clockText(i) || "") : null);
      })),
      turnLine());
  }

  function turnLine() {
    const { view, table } = model;
    if (!view) return null;
    if (view.over || table.status === "aborted") return h("p", { class: "turn-line", id: "turn-line" }, t("table.game_over"));
    const current = view.current_seats || [];
    if (model.seat !== null && current.includes(model.seat) && model.legal.length) {
      return h("p", { class: "turn-line mine", id: "turn-line" }, t("table.your_turn"));
    }
    const names = current.map((i) => seatName(table.seats[i], i));
    return h("p", { class: "turn-line", id: "turn-line" },
      current.length ? t("table.waiting_for", { names: names.join(", ") }) : "");
  }

  function tickClocks() {
    if (!model.clock) return;
    for (const node of playersBox.querySelectorAll("[data-clock]")) {
      node.textContent = clockText(Number(node.dataset.clock)) || "";
    }
  }

  // ---- hint ---------------------------------------------------------------------------------------
  function renderHint() {
    const { table, view } = model;
    if (!view || view.over || model.seat === null || table.rated || table.status !== "running") {
      mount(hintBox);
      hintBox.hidden = true;
      return;
    }
    hintBox.hidden = false;
    const canAsk = model.legal.length > 0;
    const fresh = hint && hint.version === model.version;
    mount(hintBox,
      button(hintBusy ? t("hint.thinking") : t("hint.ask"), askHint, { class: "small", id: "hint-button", disabled: !canAsk || hintBusy }),
      fresh ? h("p", { class: "hint-text", id: "hint-text" }, t("hint.suggests"), " ", h("q", {}, sayText(worded({ seat: model.seat, say: hint.say }).say) ?? hint.text)) : null,
      fresh && model.legal.includes(hint.action)
        ? button(t("hint.play"), () => act(hint.action), { class: "small primary", id: "hint-play" }) : null);
  }

  async function askHint() {
    hintBusy = true;
    renderHint();
    try {
      hint = await api.hint(tableId);
      if (renderer && renderer.showHint) renderer.showHint(hint.action);
    } catch (err) {
      toast(errorText(err));
    }
    hintBusy = false;
    renderHint();
  }

  // ---- undo: the server says when our last step may be taken back --------------------------------
  function renderUndo() {
    const { table, view } = model;
    const show = model.undoable && view && !view.over && table && table.status === "running";
    undoBox.hidden = !show;
    mount(undoBox, show
      ? button(t("undo.button"), undo, { class: "small", id: "undo-button", title: t("undo.title"), "aria-keyshortcuts": "Control+Z" })
      : null);
  }

  function undo() {
    if (!socket || !socket.connected) {
      toast(t("error.offline"));
      return false;
    }
    hint = null;
    return socket.undo();
  }

  function onKey(event) {
    // Ctrl+Z (⌘Z) asks the server to take back our last step; it answers why not if it may not
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z" || event.shiftKey) return;
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    const { table, view } = model;
    if (model.seat === null || !table || table.status !== "running" || !view || view.over) return;
    event.preventDefault();
    undo();
  }

  // ---- the log -----------------------------------------------------------------------------------
  // Lines are grouped by turn (Coffee Rush) or round (Café); a player's deliveries to the
  // warehouse in a row make one line; Café cards are drawn, not named by id; hovering,
  // focusing or tapping a line points at the cells or squares it names (renderer.pointAt).
  let pinned = null; // the line a tap fixed
  let hovered = null; // the line under the pointer or the keyboard focus
  // where the pointer is over the log (null: elsewhere). A redraw replaces the lines under a
  // pointer that has not moved, and the browser matches `:hover` on the new ones only at its
  // next hover update, so the line under it is found by hit-testing this point instead
  let pointer = null;
  logBox.addEventListener("pointermove", (e) => { pointer = { x: e.clientX, y: e.clientY }; });
  /** The log line that has the keyboard focus, or null. */
  const focusedLine = () => (logBox.contains(document.activeElement) ? document.activeElement.logLine : null);
  logBox.addEventListener("pointerleave", () => {
    pointer = null;
    // a line drawn anew under a resting pointer saw no pointer come in (no mouseenter), so it
    // sees none leave: leaving the log points at nothing, or at the line focused from the keys
    const focused = focusedLine();
    if (hovered && hovered !== focused) point(focused || null);
  });

  function groupTitle(group, index, count) {
    if (group.kind === "setup") return t("logview.setup");
    if (group.kind === "turn") return t("logview.turn", { name: seatName(model.table.seats[group.seat], group.seat) });
    // the server sends the last 200 moves: count rounds from the first, or back from the current
    const n = model.log.length < 200 ? index + 1 : (model.view?.round || count) - (count - 1 - index);
    return t("logview.round", { n: Math.max(1, n) });
  }

  /** An entry whose Café positions are words ("row 2, column 3"), for the seat's area now. */
  function worded(entry) {
    return { ...entry, say: sayOnBoard(model.table?.game, entry.say, model.view, entry.seat) };
  }

  /** A line's words: merged deliveries as one sentence, Café cards as their pictures. */
  function lineWords(line) {
    const entry = worded(line.entries[line.entries.length - 1]);
    const name = seatName(model.table && model.table.seats[entry.seat], entry.seat);
    if (line.entries.length > 1) {
      const words = sayText(mergedSay(line.entries));
      if (words !== null) return [`${name} ${words}`];
    }
    const text = logText(entry, name);
    const card = entry.say?.params?.card;
    const cafe = rendererGame === "cafe" && rendererModule;
    if (!cafe || typeof card !== "string" || !text.includes(card)) return [text];
    // the card's picture instead of its id; a placed card also by its shops' names
    const [before, ...after] = text.split(card);
    const picture = h("span", { class: "log-card", title: rendererModule.cardTitle(card) }, rendererModule.cardSvg(card));
    const named = entry.say.key.startsWith("log.cafe.place") ? ` ${rendererModule.cardTitle(card)}` : "";
    return [before, picture, named, after.join(card)];
  }

  function point(line) {
    hovered = line;
    if (!renderer || !renderer.pointAt) return;
    const target = line || pinned;
    renderer.pointAt(target ? target.seat : null, target ? target.entries.map((e) => e.action) : []);
  }

  function logLine(line) {
    const entry = line.entries[line.entries.length - 1];
    const li = h("li", {
      class: ["log-line", pinned && pinned.entries.includes(entry) && "pinned"], tabindex: 0,
      "data-version": entry.version, "data-action": line.entries.map((e) => e.action).join(" | "), "data-seat": entry.seat,
      "data-merged": line.entries.length > 1 ? line.entries.length : null,
      onmouseenter: () => point(line), onmouseleave: () => point(null),
      onfocus: () => point(line), onblur: () => point(null),
      onclick: () => {
        pinned = pinned && pinned.entries.includes(entry) ? null : line; // a tap points, a second tap stops
        for (const other of logBox.querySelectorAll(".log-line.pinned")) other.classList.remove("pinned");
        if (pinned) li.classList.add("pinned");
        point(null);
      },
    },
    h("span", { class: "dot", style: { background: `var(--seat-${entry.seat})` } }),
    h("span", {}, lineWords(line)));
    li.logLine = line; // what a redraw's hit test finds under the pointer
    return li;
  }

  /** After a Café round or a Coffee Rush cycle of turns: each player's score change. */
  function summaryBox(summary, whole) {
    const table = model.table;
    const title = summary.cycle
      ? (whole ? t("summary.cycle", { n: summary.n }) : t("summary.cycle_unnumbered"))
      : t("summary.round", { n: summary.n });
    return h("div", { class: "round-summary", "data-summary": summary.n, role: "group", "aria-label": title },
      h("div", { class: "round-summary-title" }, title),
      h("ul", {}, summary.lines.map((line) => {
        const name = seatName(table.seats[line.seat], line.seat);
        const key = line.gain > 0 ? "summary.gain" : line.gain < 0 ? "summary.loss" : null;
        return h("li", { class: ["summary-line", line.gain > 0 ? "up" : line.gain < 0 ? "down" : "same"], "data-seat": line.seat, "data-gain": line.gain, "data-total": line.total },
          h("span", { class: "dot", style: { background: `var(--seat-${line.seat})` } }),
          h("span", {}, key ? tn(key, Math.abs(line.gain), { name, total: line.total }) : t("summary.same", { name, total: line.total })));
      })));
  }

  function renderLog() {
    // the log follows the new lines when it is first shown (or opened) and when it was at
    // the bottom, unless the pointer is on it: a reader scrolled up, or pointing at a line,
    // keeps the place (the line under the pointer would otherwise move away from it)
    const old = logBox.querySelector("#log-lines");
    const fresh = !old || !old.clientHeight;
    const follow = fresh || (!pointer && old.scrollHeight - old.scrollTop - old.clientHeight < 40);
    const top = old ? old.scrollTop : 0;
    // a line focused from the keyboard is replaced too: the new line that holds its last
    // move takes the focus (a merged line may have grown meanwhile)
    const focused = focusedLine();
    const pointed = hovered;
    const groups = model.table ? groupLog(model.log, model.table.game) : [];
    if (pinned && !model.log.includes(pinned.entries[pinned.entries.length - 1])) pinned = null;
    const whole = model.log.length < 200; // the server sends the last 200 moves
    const summaries = model.table ? roundSummaries(groups, model.table.game, model.table.seats.length, {
      whole, over: !!model.view?.over, firstRound: whole ? 1 : Math.max(1, (model.view?.round || groups.length) - (groups.length - 1)),
    }) : new Map();
    const list = h("ol", { class: "log-lines", id: "log-lines" }, groups.map((group, i) => h("li", { class: ["log-group", group.kind], "data-group": i },
      h("div", { class: "log-group-title" }, groupTitle(group, i, groups.length)),
      h("ol", { class: "log-group-lines" }, group.lines.map(logLine)),
      summaries.has(i) ? summaryBox(summaries.get(i), whole) : null)));
    mount(logBox, foldTitle("log", "table.log"), list);
    list.scrollTop = follow ? list.scrollHeight : top;
    const last = focused && focused.entries[focused.entries.length - 1];
    const again = last && [...list.querySelectorAll("li.log-line")].find((li) => li.logLine.entries.includes(last));
    if (again) again.focus({ preventScroll: true });
    if (pointed || focused) {
      // the line now under the pointer keeps the cells marked, else the focused line; neither
      // (the pointer left, or the log moved away from under it): nothing is pointed at
      const under = pointer && document.elementFromPoint(pointer.x, pointer.y)?.closest(".log-line");
      point(under && list.contains(under) ? under.logLine : again ? again.logLine : null);
    }
  }

  // ---- end screen ----------------------------------------------------------------------------------
  function renderEnd() {
    const { table, view } = model;
    if (!view || !view.over) {
      endBox.hidden = true;
      return;
    }
    if (endDismissed) {
      endBox.hidden = true;
      return;
    }
    const winners = view.winners || [];
    const names = winners.map((i) => seatName(table.seats[i], i));
    const me = model.seat;
    const iWon = me !== null && winners.includes(me);
    const label = view.scores.length === 1 && view.scores[0].label ? soloLabel(view.scores[0].label) : null;
    endBox.hidden = false;
    mount(endBox, h("div", { class: "card end-card", role: "dialog", "aria-labelledby": "end-title" },
      h("h2", { id: "end-title" }, t("end.title")),
      h("p", { class: "result-line", id: "result-line" },
        view.scores.length === 1 ? tn("end.solo", view.scores[0].total)
          : iWon ? (winners.length > 1 ? t("end.you_share") : t("end.you_won"))
            : tn("end.winners", winners.length, { names: names.join(", ") })),
      label ? h("p", { class: "solo-label", id: "solo-label" }, t("end.rating"), " ", h("strong", {}, label)) : null,
      scoreTable(table, view),
      view.scores.length > 1 ? h("p", { class: "muted tiebreak" }, t(table.game === "cafe" ? "end.tiebreak_cafe" : "end.tiebreak_rush")) : null,
      h("div", { class: "actions" },
        me !== null ? button(t("end.rematch"), rematch, { class: "primary", id: "rematch" }) : null,
        h("a", { href: `#/replay/${table.id}`, class: "button", id: "end-replay" }, t("end.replay")),
        h("a", { href: `#/replay/${table.id}?review=1`, class: "button", id: "end-review" }, t("review.open")),
        h("a", { href: api.recordUrl(table.id), class: "button", download: `${table.id}.json` }, t("end.download")),
        deckFileLink(table),
        button(t("end.see_board"), () => { endDismissed = true; renderEnd(); renderBoard(); }, { id: "end-close" }),
        h("a", { href: "#/", class: "button" }, t("end.lobby")))));
  }

  let deckFile = null; // whether this player may download the table's own deck file (asked once)
  /** The file of the table's own deck, which its record replays with (`inspect --deck`): shown
   * to those who may use the deck. */
  function deckFileLink(table) {
    if (!table.deck) return null;
    const link = h("a", {
      href: api.deckFileUrl(table.deck.sha256), class: "button", download: `${table.deck.sha256.slice(0, 12)}.toml`,
      id: "end-deck-file", hidden: true, title: t("decks.download_cards_help"),
    }, t("decks.download_cards"));
    deckFile ||= api.deck(table.deck.sha256).then(() => true, () => false);
    deckFile.then((ok) => { link.hidden = !ok; });
    return link;
  }

  let rematchId = null;
  async function rematch() {
    // one id for this game's rematch: asking twice gets the same new table (docs/server.md)
    rematchId = rematchId || requestId();
    try {
      const table = await api.rematch(tableId, rematchId);
      rememberHost(table.id, session.user);
      if (table.invite) localStorage.setItem(`coffeetable.invite.${table.id}`, table.invite);
      go(`#/table/${table.id}`);
      return true;
    } catch (err) {
      toast(errorText(err));
    }
  }

  // ---- the board -----------------------------------------------------------------------------------
  async function ensureRenderer() {
    const game = model.table.game;
    if (renderer && rendererGame === game) return;
    const module = await RENDERERS[game]();
    if (gone) return;
    if (module.loadCafeData) await module.loadCafeData(model.table.deck); // the log draws Café cards
    if (gone) return;
    if (renderer) renderer.destroy();
    if (boards) boards.destroy();
    renderer = module.createRenderer({ act, interactive: true, barExtras: quickBox, boardTools: (which) => boards.tools(which) });
    boards = createBoards({ root: renderer.el, title: boardTitle });
    rendererModule = module;
    rendererGame = game;
  }

  function boardTitle(which) {
    if (which === "board") return t("boards.ingredients");
    return t("boards.of", { name: seatName(model.table.seats[which], which) });
  }

  function renderBoard() {
    const { table, view } = model;
    if (!table) return null;
    const abandoned = table.status === "aborted" && table.result && table.result.abandoned;
    if (table.status === "open" || (table.status === "aborted" && !abandoned) || !view) {
      mount(body, preBox, chat.el);
      renderPregame();
      return null;
    }
    if (!body.contains(boardBox)) {
      mount(body, boardBox, side);
      mount(side, abandonBox.el, playersBox, logBox, chat.el);
      renderLog();
    }
    let drawn = null;
    if (renderer) {
      if (!boardBox.contains(renderer.el)) mount(boardBox, renderer.el);
      // a game ended as abandoned is over too: nothing more to play (abandon.js says why)
      const shown = abandoned ? { ...view, over: true } : view;
      drawn = Promise.resolve(renderer.update({ ...model, view: shown, over: shown.over })).then(() => {
        if (pinned || hovered) point(hovered); // a redraw keeps what the log points at
        if (boards) boards.refresh(); // an enlarged board shows the new state
      });
    }
    if (view.over && !side.querySelector("#show-results")) {
      // the game is over: the results can be opened again from the side
      const again = h("div", { class: "card" },
        button(t("end.show"), () => { endDismissed = false; renderEnd(); }, { id: "show-results", class: "primary" }));
      side.insertBefore(again, logBox);
    }
    return drawn;
  }

  function renderAll() {
    if (tutorial) tutorial.update(model);
    abandonBox.update(model.table, model.seat);
    renderHead();
    renderBoard();
    renderPlayers();
    renderHint();
    renderUndo();
    renderEnd();
  }

  // ---- playing ---------------------------------------------------------------------------------------
  function act(action) {
    if (!socket || !socket.connected) {
      toast(t("error.offline"));
      return false;
    }
    if (!model.legal.includes(action)) {
      toast(t("error.illegal"));
      return false;
    }
    if (tutorial && !tutorial.allow(action)) return false;
    hint = null;
    return socket.act(action); // a promise while the move is on its way (see TableSocket.act)
  }

  function onError(msg) {
    const code = msg.code;
    if (code === "changed") {
      toast(t("error.changed"), "warn");
      return;
    }
    const text = errorText({ code });
    toast(text, code === "stale_version" ? "warn" : "error");
    if (code === "stale_version" || code === "illegal") socket.sync();
  }

  async function onMessage(msg) {
    if (msg.type === "snapshot") {
      model.table = msg.table;
      model.version = msg.version;
      model.seat = msg.seat;
      model.view = msg.view || null;
      model.legal = msg.legal || [];
      model.clock = msg.clock || null;
      model.clockAt = performance.now();
      model.log = [...(msg.log || [])];
      model.undoable = !!msg.undoable;
      model.invite = msg.invite || null;
      if (msg.chat) chat.reset(msg.chat); // the first snapshot of a connection
      behind = false;
      if (model.view) await ensureRenderer();
      if (gone) return;
      renderAll();
      renderLog();
      el.dataset.version = String(msg.version);
      el.dataset.legal = String(model.legal.length);
    } else if (msg.type === "update") {
      // what the board showed, for the motion of another's move (drawn after the new state)
      const before = model.view;
      // more than MAX_QUEUE messages waiting behind this one: the page catches up without
      // drawing or motion (motion would not show it either); fewer (a bot's steps of one
      // turn) are each drawn and shown moving, as they come
      const catchingUp = backlog > MAX_QUEUE + 1;
      const old = renderer && msg.move && msg.move.seat !== model.seat && !catchingUp ? capture(renderer.el) : null;
      model.version = msg.version;
      model.seat = msg.seat;
      model.view = msg.view;
      model.legal = msg.legal || [];
      model.clock = msg.clock || null;
      model.clockAt = performance.now();
      model.undoable = !!msg.undoable;
      if (msg.move) model.log.push(msg.move);
      if (catchingUp) {
        // taken in without drawing; the next drawing shows it: a burst of n moves (a busy
        // page, a reconnection) costs MAX_QUEUE + 1 drawings, not n, of the board and the log
        behind = true;
        if (tutorial) tutorial.update(model);
        return;
      }
      const { drawn } = await draw({ log: !!msg.move || behind });
      if (old && drawn) {
        // the player's own moves are not shown moving (they made them), nor anything while
        // a board is open large over the table
        await drawn;
        if (gone || (boards && boards.isOpen())) return;
        motion.play({ game: rendererGame, root: renderer.el, before, after: model.view, move: msg.move, old, module: rendererModule });
      }
    } else if (msg.type === "undo") {
      // a step was taken back: the state before it, at a new version; its log line goes
      model.version = msg.version;
      model.seat = msg.seat;
      model.view = msg.view;
      model.legal = msg.legal || [];
      model.clock = msg.clock || null;
      model.clockAt = performance.now();
      model.undoable = !!msg.undoable;
      model.log = model.log.filter((entry) => entry.version !== msg.undone.version);
      hint = null;
      behind = false;
      await ensureRenderer();
      if (gone) return;
      renderLog();
      renderBoard();
      renderPlayers();
      renderHint();
      renderUndo();
      renderEnd();
      el.dataset.version = String(msg.version);
      el.dataset.legal = String(model.legal.length);
    } else if (msg.type === "table") {
      const wasOpen = model.table && model.table.status === "open";
      model.table = msg.table;
      if (model.table.status === "finished" || wasOpen) socket.sync();
      abandonBox.update(model.table, model.seat);
      renderHead();
      renderBoard();
      renderPlayers();
    } else if (msg.type === "chat") {
      chat.add(msg.line);
    } else if (msg.type === "error") {
      if (!chat.error(msg)) onError(msg);
    }
  }

  /** A promise settled in a task of its own: the socket's messages that have come meanwhile
   * are received first (a promise's callbacks run before any of them). */
  const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

  /** Draws the model after an update, or after a burst of them taken in without drawing
   * (`behind`; then this comes after the burst's last message); `log: false` keeps the log
   * as it is. Returns `{ drawn }`, the board's drawing (a promise, wrapped: an async
   * function's promise would wait for it) for the motion. */
  async function draw({ log = true } = {}) {
    behind = false;
    if (model.view) await ensureRenderer();
    if (gone) return { drawn: null };
    if (log) renderLog();
    const drawn = renderBoard();
    renderPlayers();
    renderHint();
    renderUndo();
    renderEnd();
    if (tutorial) tutorial.update(model);
    el.dataset.version = String(model.version);
    el.dataset.legal = String(model.legal.length);
    return { drawn };
  }

  function onStatus(status) {
    connection = status;
    if (status === "lost") banner(t("conn.lost"), "warn");
    else if (status === "open") banner(null);
    const node = head.querySelector("#conn-state");
    if (node) {
      node.className = `conn ${status}`;
      node.textContent = t(status === "lost" ? "conn.lost_short" : `conn.${status}`);
    } else {
      renderHead();
    }
  }

  function onFatal(code) {
    mount(head, h("h1", {}, t("table.not_found_title")));
    mount(body, h("div", { class: "card" },
      h("p", { class: "error-page", id: "table-error" }, t(code === "private" ? "error.private" : "error.no_table")),
      h("a", { href: "#/", class: "button" }, t("end.lobby"))));
  }

  // a player's presence changed: their mark (the seats before the start, or the players)
  const offPresence = onPresence(() => {
    if (!model.table) return;
    if (model.table.status === "open") renderPregame();
    else renderPlayers();
  });

  renderHead();
  return {
    el,
    mounted() {
      if (!TABLE_ID.test(tableId || "")) {
        onFatal("no_table"); // not a table id at all (e.g. a URL with "/" or "<" in it)
        return;
      }
      // one message at a time, in order (rendering may wait for game data)
      let chain = Promise.resolve();
      const message = (msg) => {
        backlog += 1;
        chain = chain.then(() => (msg.type === "update" ? nextTask() : null)).then(() => (gone ? null : onMessage(msg)))
          .catch((err) => console.error(err)).then(() => { backlog -= 1; })
          .then(() => (gone || backlog || !behind ? null : draw())).catch((err) => console.error(err));
      };
      socket = new TableSocket(tableId, { invite, handlers: { message, status: onStatus, fatal: onFatal } });
      const guided = tutorialOf(tableId);
      if (guided) {
        chain = chain.then(async () => {
          const made = await createTutorial({ tableId, game: guided.game, root: el });
          if (gone) return made.destroy();
          tutorial = made;
          tutorial.update(model);
        }).catch((err) => console.error(err));
      }
      socket.connect();
      tick = setInterval(tickClocks, 250);
      document.addEventListener("keydown", onKey);
    },
    unmount() {
      gone = true;
      offPresence();
      if (socket) socket.close();
      document.removeEventListener("keydown", onKey);
      clearInterval(tick);
      if (renderer) renderer.destroy();
      if (boards) boards.destroy();
      motion.destroy();
      if (tutorial) tutorial.destroy();
      banner(null);
    },
    relabel() {
      const again = side.querySelector("#show-results");
      if (again) again.closest(".card").remove();
      if (renderer && renderer.relabel) renderer.relabel();
      if (tutorial) tutorial.relabel();
      chat.render();
      renderAll();
      renderLog();
    },
  };
}
