// Abandonment at a table (docs/server-clocks-ratings.md, "Abandonment"): when a player to
// move has shown no sign of life for longer than the table allows, the server asks the
// other players (`table.abandon` in the table's messages) whether a bot should take the
// seat, whether to wait, or whether to end the game. This draws that question, the votes so
// far, and the notice of a game that was ended that way; the vote goes over the socket.

import { seatName } from "./common.js";
import { button, h, mount } from "./dom.js";
import { t, tn } from "./i18n.js";

const CHOICES = ["bot", "wait", "end"];

/** "3 minutes", "1 day": a limit in seconds, in the player's language. */
export function limitText(seconds) {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 120) return tn("abandon.minutes", minutes);
  const hours = Math.round(minutes / 60);
  if (hours < 48) return tn("abandon.hours", hours);
  return tn("abandon.days", Math.round(hours / 24));
}

/**
 * The abandonment box of a table page. `vote(seat, choice)` sends a vote (false when the
 * connection is down). `update(table, mySeat)` redraws it from the table's latest message.
 */
export function createAbandonBox({ vote }) {
  const el = h("div", { class: "card abandon", id: "abandon", hidden: true });

  function update(table, me) {
    const offer = table && table.status === "running" ? table.abandon : null;
    const ended = table && table.status === "aborted" && table.result && table.result.abandoned;
    if (ended) {
      const seat = table.result.abandoned.seat;
      el.hidden = false;
      el.setAttribute("role", "status");
      mount(el, h("p", { id: "abandon-ended" }, t("abandon.ended", { name: seatName(table.seats[seat], seat) })));
      return;
    }
    if (!offer) {
      el.hidden = true;
      mount(el);
      return;
    }
    const name = seatName(table.seats[offer.seat], offer.seat);
    const votes = offer.votes || {};
    const voters = offer.voters || [];
    const counted = voters.filter((s) => votes[String(s)] !== undefined).length;
    const mine = me !== null && me !== undefined ? votes[String(me)] : undefined;
    el.hidden = false;
    if (me === null || me === undefined || !voters.includes(me)) {
      // a spectator, or a player a bot stands in for: told, not asked
      el.setAttribute("role", "status");
      mount(el,
        h("p", { id: "abandon-notice" }, t("abandon.others_decide", { name })),
        h("p", { class: "muted", id: "abandon-count" }, tn("abandon.voted", counted, { total: voters.length })));
      return;
    }
    el.setAttribute("role", "dialog");
    el.setAttribute("aria-labelledby", "abandon-title");
    mount(el,
      h("h2", { id: "abandon-title" }, t("abandon.title", { name })),
      h("p", {}, t("abandon.text", { name, time: limitText(table.abandon_after) })),
      h("div", { class: "abandon-choices" }, CHOICES.map((choice) => h("div", { class: "abandon-choice" },
        button(t(`abandon.${choice}`), () => vote(offer.seat, choice), {
          class: ["small", choice === "end" ? "danger" : choice === "bot" ? "primary" : null, mine === choice && "chosen"],
          id: `abandon-${choice}`,
          "aria-pressed": String(mine === choice),
          "data-choice": choice,
        }),
        h("span", { class: "muted abandon-help" }, t(`abandon.${choice}_help`))))),
      h("p", { class: "muted", id: "abandon-count" },
        tn("abandon.voted", counted, { total: voters.length }),
        mine ? ` · ${t("abandon.your_vote", { choice: t(`abandon.${mine}`) })}` : ""));
  }

  return { el, update };
}
