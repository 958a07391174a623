// The texts of learning the games (the first page's game introductions, How to play, the
// tutorials) live in their own files, so that the main i18n files stay small:
//   static/help/{lang}.json              intro, How to play, the tutorial panel
//   static/tutorial/{game}.{lang}.json   the words of each tutorial step
// They were written for this project from docs/cafe-rules.md and docs/coffee-rush-rules.md.
//
// ht("help.cafe.goal.title")   -> the string in the player's language (English if missing)
// htn("help.x", 3)             -> the plural form for 3 (keys "help.x.one/few/many/other")

import { language } from "./i18n.js";

const cache = new Map(); // path -> Promise<object>
let strings = {};
let fallback = {};

function load(path) {
  if (!cache.has(path)) {
    cache.set(path, fetch(path, { cache: "no-cache" }).then((r) => (r.ok ? r.json() : {})).catch(() => ({})));
  }
  return cache.get(path);
}

/** Load the learning texts for the current language (and the English fallback). */
const extras = new Set(); // tutorial texts asked for so far: every later load keeps them

export async function loadLearnText(extra = []) {
  for (const name of extra) extras.add(name);
  const lang = language();
  const base = [load("/help/en.json"), load(`/help/${lang}.json`)];
  const more = [...extras].flatMap((name) => [load(`/tutorial/${name}.en.json`), load(`/tutorial/${name}.${lang}.json`)]);
  const [en, here, ...rest] = await Promise.all([...base, ...more]);
  fallback = { ...en };
  strings = { ...here };
  for (let i = 0; i < rest.length; i += 2) {
    Object.assign(fallback, rest[i]);
    Object.assign(strings, rest[i + 1]);
  }
}

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

export function hasHt(key) {
  return key in strings || key in fallback;
}

export function ht(key, params) {
  const text = strings[key] ?? fallback[key];
  if (text === undefined) {
    console.warn("missing learning text", key);
    return key;
  }
  return fill(text, params);
}

export function htn(key, n, params = {}) {
  const p = { n, ...params };
  const rule = new Intl.PluralRules(language()).select(n);
  for (const form of [rule, "other"]) if (`${key}.${form}` in strings) return fill(strings[`${key}.${form}`], p);
  const en = new Intl.PluralRules("en").select(n);
  for (const form of [en, "other"]) if (`${key}.${form}` in fallback) return fill(fallback[`${key}.${form}`], p);
  return ht(key, p);
}

/** Text with **bold** parts, as DOM nodes (never parsed as HTML). */
export function rich(text, h) {
  return text.split(/\*\*/).map((part, i) => (i % 2 ? h("strong", {}, part) : part));
}

/** A "How to play" link for the table and the replay (opens beside the game). */
export function helpLink(game, h) {
  const a = h("a", { href: `#/help/${game}`, target: "_blank", rel: "noopener", class: "button small", id: "help-link", "data-help-link": game }, "?");
  loadLearnText().then(() => { a.textContent = ht("help.link"); });
  return a;
}
