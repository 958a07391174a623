// The lobby: the live table list (/ws/lobby), recent finished games, and the new-table form.

import { limitText as silenceText } from "./abandon.js";
import { api, errorText } from "./api.js";
import { gamesInfo, go, requireLogin, session, toast } from "./shell.js";
import {
  botName, clockSummary, rememberHost, gameTitle, mySeat, deckLabel, optionsSummary, seatBadge, statusText,
} from "./common.js";
import { lobbyChat } from "./chat.js";
import { button, h, mount, requestId } from "./dom.js";
import { has, t, tn } from "./i18n.js";
import { friendNames, invitationBox, mayHaveFriends } from "./friends.js";
import { introBox } from "./intro.js";
import { myGamesSection } from "./mygames.js";
import { onPresence, onlineCount } from "./presence.js";

const PROMOS = ["leao", "coffee-mine", "atlas"];

/** A time limit per move: "no limit", "6 h", "1 day", "3 days". */
export function limitText(seconds) {
  if (!seconds) return t("clock.no_limit");
  return seconds < 86400 ? t("clock.hours", { n: seconds / 3600 }) : tn("clock.days", seconds / 86400);
}

class LobbySocket {
  constructor(onTables, onTable, onStatus, onChat = null) {
    this.onTables = onTables;
    this.onTable = onTable;
    this.onStatus = onStatus;
    this.onChat = onChat; // chat.js: the lines (`tables`' chat, `chat`) and errors
    this.closed = false;
    this.delay = 500;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      this.onStatus(true);
    };
    ws.onmessage = (event) => {
      const msg = JSON.parse(event.data);
      if (msg.type === "tables") this.onTables(msg.tables);
      else if (msg.type === "table") this.onTable(msg.table);
      if (this.onChat && (msg.type === "chat" || msg.type === "error" || msg.chat)) this.onChat(msg);
    };
    ws.onclose = () => {
      if (this.closed || this.ws !== ws) return;
      this.onStatus(false);
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    };
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}

/** The table option naming a deck of the player's choice, per game (docs/server.md, "Decks"). */
export const DECK_OPTION = { cafe: "deck_sha256", "coffee-rush": "cards_sha256" };

export function lobbyView() {
  const el = h("section", { class: "lobby" });
  const tables = new Map();
  let finished = [];
  let connected = true;
  let socket = null;
  let games = [];
  const form = { game: null, state: {} };
  const deckChoices = {}; // game -> the decks the player may use (GET /api/decks), null while asked

  const listBox = h("div", { class: "card table-list", id: "table-list" });
  const finishedBox = h("div", { class: "card finished-list", id: "finished-list" });
  const createBox = h("div", { class: "card create-box", id: "create-box" });

  // ---- the list ---------------------------------------------------------------------------------
  function tableRow(table) {
    const me = mySeat(table, session.user);
    const free = table.seats.some((s) => s.kind === "open");
    const actions = [];
    if (me !== null) {
      actions.push(button(t(table.status === "open" ? "lobby.open_table" : "lobby.play"),
        () => go(`#/table/${table.id}`), { class: "primary small" }));
    } else if (table.status === "open" && free) {
      actions.push(button(t("lobby.join"), () => join(table), { class: "primary small", "data-join": table.id }));
    }
    if (me === null) {
      actions.push(button(t(table.status === "running" ? "lobby.watch" : "lobby.view"),
        () => go(`#/table/${table.id}`), { class: "small", "data-watch": table.id }));
    }
    const flags = [];
    if (table.rated) flags.push(h("span", { class: "tag rated" }, t("lobby.rated")));
    if (table.private) flags.push(h("span", { class: "tag" }, t("lobby.private")));
    return h("li", { class: ["table-row", `status-${table.status}`], "data-table": table.id },
      h("div", { class: "row-head" },
        h("strong", {}, gameTitle(table.game)),
        h("span", { class: "muted" }, optionsSummary(table.game, table.options)),
        deckLabel(table.deck),
        h("span", { class: ["status", table.status] }, statusText(table.status)),
        flags),
      h("div", { class: "row-seats" }, table.seats.map((s, i) => seatBadge(s, i, { me: i === me }))),
      h("div", { class: "row-foot" },
        h("span", { class: "muted" }, clockSummary(table.clock)),
        table.created_by ? h("span", { class: "muted created-by" }, t("lobby.created_by", { name: table.created_by })) : null,
        h("span", { class: "actions" }, actions)));
  }

  // "Tables with my friends": only tables where a friend sits (the names come once per visit)
  let friends = new Set();
  let withFriends = false;
  const withFriend = (tb) => tb.seats.some((s) => s.user && friends.has(s.user));
  const friendFilter = () => (mayHaveFriends() ? h("label", { class: "check friend-filter" },
    h("input", {
      type: "checkbox", id: "with-friends", checked: withFriends,
      onchange: (e) => { withFriends = e.target.checked; renderList(); },
    }), t("friends.filter")) : null);

  function renderList() {
    const rows = [...tables.values()]
      .filter((tb) => tb.status === "open" || tb.status === "running")
      .filter((tb) => !withFriends || withFriend(tb))
      .sort((a, b) => (a.status === b.status ? (b.created_at > a.created_at ? 1 : -1) : a.status === "open" ? -1 : 1));
    const online = onlineCount();
    mount(listBox,
      h("h2", {}, t("lobby.tables"), connected ? null : h("span", { class: "tag warn" }, t("conn.lost_short")),
        online !== null ? h("span", { class: "online-count muted", id: "online-count" }, tn("presence.count", online)) : null),
      friendFilter(),
      rows.length
        ? h("ul", { class: "tables" }, rows.map(tableRow))
        : h("p", { class: "muted empty" }, t(withFriends ? "friends.no_tables" : "lobby.no_tables")));
  }

  function renderFinished() {
    const rows = finished.slice(0, 15);
    mount(finishedBox,
      h("h2", {}, t("lobby.finished")),
      rows.length
        ? h("ul", { class: "finished" }, rows.map((table) => {
          const result = table.result || {};
          const winners = new Set(result.winners || []);
          return h("li", { "data-table": table.id },
            h("strong", {}, gameTitle(table.game)), " ",
            h("span", { class: "row-seats" }, table.seats.map((s, i) => h("span", { class: winners.has(i) ? "won" : null },
              seatBadge(s, i), result.scores ? ` ${result.scores[i].total}` : ""))),
            " ",
            h("a", { href: `#/replay/${table.id}`, class: "button small" }, t("lobby.replay")));
        }))
        : h("p", { class: "muted empty" }, t("lobby.no_finished")));
  }

  async function join(table) {
    if (!requireLogin()) return;
    try {
      await api.join(table.id);
      go(`#/table/${table.id}`);
      return true;
    } catch (err) {
      toast(errorText(err));
      try {
        // the list was behind: fetch it again
        const fresh = await api.tables();
        tables.clear();
        for (const tb of fresh) tables.set(tb.id, tb);
        renderList();
      } catch {
        /* the live list will catch up */
      }
    }
  }

  // ---- the new-table form -----------------------------------------------------------------------
  function defaultsFor(info) {
    const options = {};
    for (const [key, value] of Object.entries(info.default_options || {})) {
      if (!key.endsWith("_sha256")) options[key] = Array.isArray(value) ? [...value] : value;
    }
    return {
      options,
      seats: [{ kind: "human" }, { kind: "bot", bot: "greedy" }].slice(0, Math.max(2, info.min_players)),
      clock: "none",
      initial: 10,
      increment: 5,
      turnLimit: 0,
      abandonAfter: 0, // 0: the default of the table's speed
      rated: false,
      private: false,
      deck: "", // the sha256 of a deck of the player's choice; "": the default deck
    };
  }

  /** The deck to play with: the default first, then the decks the player may use. */
  function deckField(info, st) {
    const game = info.name;
    if (!(game in deckChoices)) {
      deckChoices[game] = null;
      api.decks(game).then((list) => { deckChoices[game] = list; }, () => { deckChoices[game] = []; })
        .then(() => { if (form.game === game) renderCreate(); });
    }
    const list = deckChoices[game] || [];
    if (st.deck && !list.some((d) => d.sha256 === st.deck)) st.deck = "";
    return h("label", {}, t("decks.choose"),
      h("select", { id: "opt-deck", onchange: (e) => { st.deck = e.target.value; } },
        h("option", { value: "", selected: !st.deck }, t("decks.default_deck")),
        list.map((d) => h("option", { value: d.sha256, selected: st.deck === d.sha256 },
          `${d.name} — ${t(d.reconstructed ? "decks.reconstruction" : "decks.transcription")}${d.owner && (!session.user || d.owner !== session.user.name) ? ` (${d.owner})` : ""}`))),
      h("a", { href: "#/decks", class: "hint", id: "my-decks-link" }, t("decks.manage")));
  }

  function option(info, st, key) {
    const value = st.options[key];
    const help = (info.options || {})[key];
    const id = `opt-${key}`;
    if (info.name === "cafe" && key === "variant") {
      return h("label", { class: "field" }, h("span", {}, t("opt.variant")),
        h("select", { id, onchange: (e) => { st.options.variant = e.target.value; renderCreate(); } },
          ["base", "advanced"].map((v) => h("option", { value: v, selected: value === v }, t(`opt.variant_${v}`)))));
    }
    if (info.name === "cafe" && key === "promos") {
      return h("fieldset", { class: "field promos" }, h("legend", {}, t("opt.promos")),
        PROMOS.map((p) => h("label", { class: "check" },
          h("input", {
            type: "checkbox", id: `promo-${p}`, checked: value.includes(p),
            onchange: (e) => {
              st.options.promos = e.target.checked ? [...value, p] : value.filter((x) => x !== p);
              renderCreate();
            },
          }), has(`promo.${p}`) ? t(`promo.${p}`) : p)));
    }
    if (typeof value === "boolean") {
      return h("label", { class: "check field" },
        h("input", { type: "checkbox", id, checked: value, onchange: (e) => { st.options[key] = e.target.checked; } }),
        has(`opt.${key}`) ? t(`opt.${key}`) : key,
        has(`opt.${key}_help`) ? h("span", { class: "hint" }, t(`opt.${key}_help`)) : null);
    }
    // an option this client does not know yet: edit its JSON value
    return h("label", { class: "field" }, h("span", { title: help || "" }, key),
      h("input", {
        id, value: JSON.stringify(value),
        onchange: (e) => {
          try { st.options[key] = JSON.parse(e.target.value); } catch { st.options[key] = e.target.value; }
        },
      }));
  }

  function seatRow(info, st, index) {
    const seat = st.seats[index];
    const firstPerson = st.seats.findIndex((x) => x.kind !== "bot");
    const kind = seat.kind === "bot" ? "bot" : "person";
    return h("li", { class: "seat-row", "data-seat-row": index },
      h("span", { class: "seat-no" }, t("table.seat_n", { n: index + 1 })),
      h("select", {
        class: "seat-kind", "aria-label": t("create.seat_kind"),
        onchange: (e) => {
          st.seats[index] = e.target.value === "bot" ? { kind: "bot", bot: "greedy" } : { kind: "open" };
          renderCreate();
        },
      },
      h("option", { value: "person", selected: kind === "person" }, t("create.person")),
      h("option", { value: "bot", selected: kind === "bot" }, t("create.bot"))),
      kind === "bot"
        ? h("select", {
          class: "seat-bot", "aria-label": t("create.bot_level"),
          onchange: (e) => { seat.bot = e.target.value; },
        }, (info.bots || []).map((b) => h("option", { value: b, selected: seat.bot === b }, botLabel(info, b))))
        : h("span", { class: "muted" }, index === firstPerson ? t("create.you") : t("create.open_seat")),
      st.seats.length > info.min_players && st.seats.length > 1
        ? button("✕", () => { st.seats.splice(index, 1); renderCreate(); },
          { class: "icon small", title: t("create.remove_seat"), "aria-label": t("create.remove_seat") })
        : null);
  }

  function renderCreate() {
    if (!session.user) {
      mount(createBox,
        h("h2", {}, t("lobby.new_table")),
        h("p", {}, t("lobby.login_to_play")),
        h("a", { href: "#/login", class: "button primary", id: "lobby-login" }, t("header.login")));
      return;
    }
    if (!games.length) return;
    const info = games.find((g) => g.name === form.game) || games[0];
    form.game = info.name;
    const st = (form.state[info.name] ||= defaultsFor(info));
    const hasBot = st.seats.some((x) => x.kind === "bot");
    const error = h("p", { class: "form-error", role: "alert", id: "create-error" });
    const optionKeys = Object.keys(st.options);
    mount(createBox,
      h("h2", {}, t("lobby.new_table")),
      h("div", { class: "game-pick", role: "radiogroup" }, games.map((g) => button(gameTitle(g.name),
        () => { form.game = g.name; renderCreate(); },
        { class: ["game-choice", g.name === info.name && "active"], "data-game": g.name, role: "radio", "aria-checked": g.name === info.name ? "true" : "false" }))),
      h("div", { class: "form-grid" },
        h("fieldset", {}, h("legend", {}, t("create.options")),
          optionKeys.length ? optionKeys.map((k) => option(info, st, k)) : h("p", { class: "muted" }, t("create.no_options")),
          deckField(info, st)),
        h("fieldset", {}, h("legend", {}, t("create.seats", { min: info.min_players, max: info.max_players })),
          h("ol", { class: "seats" }, st.seats.map((_, i) => seatRow(info, st, i))),
          st.seats.length < info.max_players
            ? button(t("create.add_seat"), () => { st.seats.push({ kind: "bot", bot: "greedy" }); renderCreate(); }, { class: "small", id: "add-seat" })
            : null),
        h("fieldset", {}, h("legend", {}, t("create.clock")),
          h("select", { id: "clock-kind", "aria-label": t("create.clock"), onchange: (e) => { st.clock = e.target.value; renderCreate(); } },
            ["none", "realtime", "turn_based"].map((k) => h("option", { value: k, selected: st.clock === k }, t(`clock.kind_${k}`)))),
          st.clock === "realtime" ? h("div", { class: "inline" },
            h("label", {}, t("clock.bank_minutes"), h("input", { type: "number", min: 1, max: 1440, value: st.initial, id: "clock-initial", onchange: (e) => { st.initial = Number(e.target.value); } })),
            h("label", {}, t("clock.increment_seconds"), h("input", { type: "number", min: 0, max: 600, value: st.increment, id: "clock-increment", onchange: (e) => { st.increment = Number(e.target.value); } }))) : null,
          st.clock === "turn_based" ? h("label", {}, t("clock.turn_limit"),
            h("select", { id: "clock-limit", onchange: (e) => { st.turnLimit = Number(e.target.value); } },
              [0, 3600, 6 * 3600, 86400, 3 * 86400, 7 * 86400].map((v) => h("option", { value: v, selected: st.turnLimit === v },
                limitText(v))))) : null),
        h("fieldset", {}, h("legend", {}, t("create.table")),
          h("label", { class: "check" }, h("input", {
            type: "checkbox", id: "opt-rated", checked: st.rated && !hasBot && !session.user.guest,
            disabled: hasBot || session.user.guest, onchange: (e) => { st.rated = e.target.checked; },
          }), t("create.rated")),
          h("p", { class: "hint" }, t(session.user.guest ? "create.rated_guest" : "create.rated_help")),
          h("label", { class: "check" }, h("input", {
            type: "checkbox", id: "opt-private", checked: st.private, onchange: (e) => { st.private = e.target.checked; },
          }), t("create.private")),
          h("p", { class: "hint" }, t("create.private_help")),
          st.seats.filter((x) => x.kind !== "bot").length > 1 ? [
            h("label", {}, t("create.abandon"),
              h("select", { id: "opt-abandon", onchange: (e) => { st.abandonAfter = Number(e.target.value); } },
                [0, 60, 180, 600, 3600, 86400, 3 * 86400].map((v) => h("option", { value: v, selected: st.abandonAfter === v },
                  v ? silenceText(v) : t("create.abandon_default", { time: silenceText(st.clock === "turn_based" ? 86400 : 180) }))))),
            h("p", { class: "hint" }, t("create.abandon_help")),
          ] : null)),
      error,
      button(t("create.submit"), (e) => create(info, st, error, e.target), { class: "primary", id: "create-table" }));
  }

  async function create(info, st, error, submit) {
    error.textContent = "";
    const firstPerson = st.seats.findIndex((x) => x.kind !== "bot");
    if (firstPerson < 0) {
      error.textContent = t("create.need_person");
      return;
    }
    const seats = st.seats.map((x, i) => (x.kind === "bot" ? { kind: "bot", bot: x.bot } : { kind: i === firstPerson ? "human" : "open" }));
    let clock = null;
    if (st.clock === "realtime") {
      if (!(st.initial > 0)) {
        error.textContent = t("create.bad_clock");
        return;
      }
      clock = { kind: "realtime", initial: st.initial * 60, increment: Math.max(0, st.increment || 0) };
    } else if (st.clock === "turn_based") {
      clock = { kind: "turn_based", initial: 0, increment: 0, turn_limit: st.turnLimit || null };
    }
    const options = { ...st.options };
    if (st.deck) options[DECK_OPTION[info.name]] = st.deck;
    const spec = {
      game: info.name, options, seats, clock,
      rated: !!st.rated && !st.seats.some((x) => x.kind === "bot"), private: !!st.private,
    };
    if (st.abandonAfter) spec.abandon_after = st.abandonAfter;
    // one id per table asked for: a repeated request gets the same table (docs/server.md)
    st.requestId = st.requestId || requestId();
    spec.request_id = st.requestId;
    submit.disabled = true;
    try {
      const table = await api.createTable(spec);
      st.requestId = null;
      rememberHost(table.id, session.user);
      if (table.invite) {
        localStorage.setItem(`coffeetable.invite.${table.id}`, table.invite);
        go(`#/table/${table.id}?invite=${encodeURIComponent(table.invite)}`);
      } else {
        go(`#/table/${table.id}`);
      }
      return true;
    } catch (err) {
      error.textContent = err.code === "invalid_table" || err.code === "invalid_clock" || err.code === "invalid"
        ? `${t("error.invalid_table")} (${err.message})` : errorText(err);
      submit.disabled = false;
    }
  }

  function renderAll() {
    renderList();
    renderFinished();
    renderCreate();
  }

  const chat = lobbyChat({ send: (message) => !!socket && socket.send(message) });
  const intro = introBox();
  const invited = invitationBox();
  const myGames = myGamesSection(); // logged-in players: their running games, your move first
  mount(el,
    intro.el,
    h("div", { class: "lobby-grid" },
      h("div", { class: "lobby-main" }, myGames ? myGames.el : null, invited.el, listBox, chat.el, finishedBox),
      h("aside", { class: "lobby-side" }, createBox)));
  const offPresence = onPresence(() => renderList());

  return {
    el,
    async mounted() {
      renderAll();
      invited.refresh();
      friendNames().then((names) => { friends = names; if (withFriends) renderList(); });
      if (myGames) myGames.load();
      socket = new LobbySocket(
        (list) => { tables.clear(); for (const tb of list) tables.set(tb.id, tb); renderList(); },
        (tb) => {
          if (!tables.has(tb.id)) invited.refresh(); // a new table may be one we are invited to
          tables.set(tb.id, tb);
          if (tb.status === "finished") { finished = [tb, ...finished.filter((x) => x.id !== tb.id)]; renderFinished(); }
          renderList();
        },
        (ok) => { connected = ok; renderList(); },
        (msg) => {
          if (msg.type === "tables") chat.reset(msg.chat);
          else if (msg.type === "chat") chat.add(msg.line);
          else if (msg.type === "error" && !chat.error(msg)) toast(errorText(msg));
        },
      );
      try {
        games = await gamesInfo();
        renderCreate();
        finished = await api.tables("finished");
        renderFinished();
      } catch (err) {
        toast(errorText(err));
      }
    },
    unmount() {
      if (socket) socket.close();
      if (myGames) myGames.destroy();
      offPresence();
      invited.stop();
    },
    relabel() { intro.relabel(); chat.render(); renderAll(); if (myGames) myGames.render(); },
  };
}

/** A bot's name in the seat list, with its rating on the Elo scale where it was measured. */
function botLabel(info, bot) {
  const elo = (info.bot_ratings || {})[bot];
  return elo === undefined ? botName(bot) : t("create.bot_rated", { name: botName(bot), elo });
}
