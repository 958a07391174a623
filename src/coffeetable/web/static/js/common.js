// Small pieces shared by the lobby, the table and the replay pages.

import { h } from "./dom.js";
import { has, t, tn } from "./i18n.js";

// The server does not say who created a table (only the creator may start it): this client
// remembers the tables it created, per player name.
export function rememberHost(id, user) {
  if (user) localStorage.setItem(`coffeetable.host.${id}`, user.name);
}

/** Whether `user` created the table: the server's `created_by`, else what this browser
 * remembered when it created the table. */
export function createdByMe(id, user, table = null) {
  if (!user) return false;
  if (table && table.created_by) return table.created_by === user.name;
  return localStorage.getItem(`coffeetable.host.${id}`) === user.name;
}

export const SEAT_COLOURS = ["#c0392b", "#2471a3", "#229954", "#d4ac0d"];

export function gameTitle(game) {
  return has(`game.${game}`) ? t(`game.${game}`) : game;
}

export function botName(bot) {
  if (!bot) return "";
  const key = `bot.${bot.replace(":", "_")}`;
  if (has(key)) return t(key);
  if (bot.startsWith("imported:")) return bot.slice("imported:".length);
  return bot;
}

/** The name shown for a seat of a table: the person's name, or the bot's. */
export function seatName(seat, index) {
  if (!seat) return t("table.seat_n", { n: index + 1 });
  if (seat.user) return seat.user;
  if (seat.kind === "bot") return `${botName(seat.bot)} #${index + 1}`;
  return t("table.open_seat");
}

/** A name badge: the seat's colour, the name as text, and marks (bot, replaced). */
export function seatBadge(seat, index, { me = false } = {}) {
  const marks = [];
  if (seat && seat.kind === "bot") marks.push(h("span", { class: "tag bot" }, t("table.bot")));
  if (seat && seat.replaced) marks.push(h("span", { class: "tag warn", title: t("table.replaced_help") }, t("table.replaced")));
  if (me) marks.push(h("span", { class: "tag me" }, t("table.you")));
  return h("span", { class: "seat-badge", "data-seat": index },
    h("span", { class: "dot", style: { background: SEAT_COLOURS[index % 4] } }),
    h("span", { class: "seat-name", title: seatName(seat, index) }, seatName(seat, index)),
    marks);
}

/** "Advanced · Espresso · promos: Leão d'Ouro", in the player's language. */
export function optionsSummary(game, options) {
  const parts = [];
  if (game === "cafe") {
    parts.push(t(options.variant === "advanced" ? "opt.variant_advanced" : "opt.variant_base"));
    if (options.espresso) parts.push(t("opt.espresso"));
    for (const promo of options.promos || []) parts.push(has(`promo.${promo}`) ? t(`promo.${promo}`) : promo);
  } else if (game === "coffee-rush") {
    if (options.less_luck) parts.push(t("opt.less_luck"));
  }
  return parts.join(" · ");
}

/** A table's own deck (`table.deck`, absent for the default deck): its name, and whether
 * it is a transcription of the printed cards or a reconstruction (docs/web.md, "Decks"). */
export function deckLabel(deck) {
  if (!deck) return null;
  // a transcription: every card copied from a printed card (no reconstructed card)
  const kind = deck.reconstructed ? "reconstruction" : "transcription";
  return h("span", { class: "deck-label", "data-deck": deck.sha256 },
    t("decks.played_with", { name: deck.name }), " ",
    h("span", { class: ["tag", `deck-${kind}`] }, t(`decks.${kind}`)));
}

export function clockSummary(clock) {
  if (!clock) return t("clock.none");
  if (clock.kind === "realtime") {
    return t("clock.realtime_summary", {
      minutes: Math.round((clock.initial || 0) / 60),
      increment: Math.round(clock.increment || 0),
    });
  }
  if (clock.turn_limit) {
    const hours = clock.turn_limit / 3600;
    return hours >= 24
      ? tn("clock.turn_based_days", Math.round(hours / 24))
      : t("clock.turn_based_hours", { hours: Math.round(hours * 10) / 10 });
  }
  return t("clock.turn_based");
}

export function statusText(status) {
  return has(`status.${status}`) ? t(`status.${status}`) : status;
}

export function mySeat(table, user) {
  if (!table || !user) return null;
  const i = table.seats.findIndex((s) => s.kind === "human" && s.user === user.name);
  return i < 0 ? null : i;
}

/** A ScoreBreakdown part name ("warehouse lowest x2") in the player's language. */
export function partName(name) {
  const key = `score.${name.replace(/[^a-z0-9]+/gi, "_")}`;
  return has(key) ? t(key) : name;
}

export function soloLabel(label) {
  const key = `score.label_${String(label).replace(/[^a-z0-9]+/gi, "_").toLowerCase()}`;
  return has(key) ? t(key) : label;
}

/** The end-of-game table: rank, name, every part, the total; winners marked. */
export function scoreTable(table, view) {
  const scores = view.scores || [];
  const winners = new Set(view.winners || []);
  const partNames = [];
  for (const s of scores) for (const p of Object.keys(s.parts || {})) if (!partNames.includes(p)) partNames.push(p);
  const order = scores.map((_, i) => i).sort((a, b) => {
    const wa = winners.has(a) ? 1 : 0;
    const wb = winners.has(b) ? 1 : 0;
    return wb - wa || scores[b].total - scores[a].total || a - b;
  });
  return h("table", { class: "scores", id: "score-table" },
    h("thead", {}, h("tr", {},
      h("th", {}, t("score.player")),
      partNames.map((p) => h("th", { class: "num" }, partName(p))),
      h("th", { class: "num" }, t("score.total")))),
    h("tbody", {}, order.map((i) => h("tr", { class: winners.has(i) ? "winner" : null, "data-seat": i },
      h("td", {}, winners.has(i) ? h("span", { class: "crown", title: t("score.winner") }, "★ ") : null,
        seatBadge(table.seats[i], i)),
      partNames.map((p) => h("td", { class: "num" }, String(scores[i].parts?.[p] ?? 0))),
      h("td", { class: "num total", "data-total": scores[i].total }, String(scores[i].total))))));
}
