// Game-log sentences in the player's language (docs/web.md, "The game log"). The server sends
// each move with `say`: {key, params}, the sentence as a message key and its parameters
// (coffeetable.core.say). A parameter is text or a number, a nested {key, params}, a list
// (joined as "a, b and c" in the language), or {join, items} (joined with that separator).
// `colour` (Y/B/G/R), `ingredient`, `upgrade` and `city` are translated here. An unknown key gives
// null, and the caller shows the server's English `text` instead.

import { has, language, t, tn } from "./i18n.js";

const LIST_LOCALE = { en: "en-GB" }; // "a, b and c", as the server's English has it

function known(key) {
  return has(key) || has(`${key}.other`);
}

function joinAnd(items) {
  try {
    const lang = language();
    return new Intl.ListFormat(LIST_LOCALE[lang] || lang, { style: "long", type: "conjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

function value(v, name) {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) {
    const parts = v.map((x) => value(x, ""));
    return parts.includes(null) ? null : joinAnd(parts);
  }
  if (typeof v === "object") {
    if (Array.isArray(v.items) && typeof v.join === "string") {
      const parts = v.items.map((x) => value(x, ""));
      return parts.includes(null) ? null : parts.join(v.join);
    }
    return sayText(v);
  }
  if (name === "ingredient" && has(`ing.${v}`)) return t(`ing.${v}`);
  if (name === "upgrade" && has(`rush.upgrade_${v}`)) return t(`rush.upgrade_${v}`);
  if (name === "city" && has(`city.${v}`)) return t(`city.${v}`);
  return String(v);
}

/** The sentence of a `say` object in the current language, or null if a key is unknown. */
export function sayText(say) {
  if (!say || typeof say !== "object" || typeof say.key !== "string" || !known(say.key)) return null;
  const params = {};
  for (const [name, v] of Object.entries(say.params || {})) {
    if (name === "colour") {
      if (!has(`colour.${v}`)) return null;
      Object.assign(params, { colour: t(`colour.${v}`), colour_pl: t(`colour_pl.${v}`), colour_gpl: t(`colour_gpl.${v}`) });
      continue;
    }
    const text = value(v, name);
    if (text === null) return null;
    params[name] = text;
  }
  if (!has(say.key)) return tn(say.key, Number((say.params || {}).n), params);
  return t(say.key, params);
}

/** A log line: the player's name and what they did, in the current language (the server's
 * English `text` when the sentence cannot be written from its keys). */
export function logText(entry, name) {
  const words = sayText(entry.say);
  return words === null ? entry.text : `${name} ${words}`;
}
