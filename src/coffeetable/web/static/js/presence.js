// Presence: a mark for a player who is online, away (their tabs hidden) or offline, and since
// when, from the user channel (notify.js). A page says whom it shows (`showPresenceOf`) and
// draws `presenceMark(name)` next to each; `onPresence` tells it when to draw again.

import { channel, onChannel, watchUsers } from "./notify.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const states = new Map(); // name -> {state, since}
const listeners = new Set();

onChannel((msg) => {
  if (msg.type === "presence") {
    for (const [name, info] of Object.entries(msg.users || {})) states.set(name, info);
    for (const fn of [...listeners]) fn();
  } else if (msg.type === "online") {
    for (const fn of [...listeners]) fn();
  }
});

/** Watch these people (the players of the table shown). */
export function showPresenceOf(names) {
  const wanted = [...new Set(names.filter(Boolean))];
  const current = channel.watchList;
  if (wanted.length === current.length && wanted.every((n) => current.includes(n))) return;
  watchUsers(wanted);
}

/** fn() whenever someone's presence (or the online count) changed; returns the unsubscribe. */
export function onPresence(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function presenceOf(name) {
  return states.get(name) || null;
}

function sinceText(since) {
  if (!since) return "";
  const when = new Date(since);
  const sameDay = when.toDateString() === new Date().toDateString();
  return sameDay
    ? when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : when.toLocaleDateString([], { month: "short", day: "numeric" });
}

/** A dot and words: "online since 10:32", "away since ...", "last seen ..." (also its title).
 * `compact`: the dot only, the words for screen readers and as the tooltip (a narrow panel). */
export function presenceMark(name, { compact = false } = {}) {
  const info = presenceOf(name);
  if (!name || !info) return null;
  const since = sinceText(info.since);
  const words = since ? t(`presence.${info.state}_since`, { time: since }) : t(`presence.${info.state}`);
  return h("span", { class: ["presence", info.state], "data-presence": info.state, "data-user": name, title: words },
    h("span", { class: "presence-dot", "aria-hidden": "true" }),
    h("span", { class: compact ? "sr-only" : "presence-word" }, words));
}

/** "3 people online" (null until the channel said). */
export function onlineCount() {
  return channel.online;
}
