// Every string a player sees comes from static/i18n/{lang}.json and the parts
// static/i18n/PART/{lang}.json named in PARTS (one part per area: keeps each file small; docs/web.md).
//
// t("lobby.title")                       -> the string
// t("table.seat", {n: 2})                -> "{n}" replaced (values are text, never markup)
// tn("cafe.stake", 3)                    -> the plural form for 3 ("cafe.stake.one/few/many/other")
//
// On a touch screen (`(pointer: coarse)`) a key with a `touch.` twin ("touch.rush.do_place")
// gives the twin: "tap", never "click" or "press R" (docs/web.md, "Phones").

export const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "pt", name: "Português" },
  { code: "ru", name: "Русский" },
  { code: "uk", name: "Українська" },
];

const STORAGE_KEY = "coffeetable.lang";
let current = "en";
let strings = {};
let fallback = {};
const listeners = new Set();

/** The parts of the strings kept in their own directory under i18n/ (every one in every language). */
export const PARTS = ["friends", "chat", "access", "notify", "motion", "players", "decks", "review"];

async function fetchStrings(path) {
  const response = await fetch(path, { cache: "no-cache" });
  if (!response.ok) throw new Error(`no strings at ${path}`);
  return response.json();
}

async function load(code) {
  const files = await Promise.all([
    fetchStrings(`/i18n/${code}.json`),
    ...PARTS.map((part) => fetchStrings(`/i18n/${part}/${code}.json`)),
  ]);
  return Object.assign({}, ...files);
}

function chooseInitial() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved && LANGUAGES.some((l) => l.code === saved)) return saved;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const base = String(wanted).toLowerCase().split("-")[0];
    if (LANGUAGES.some((l) => l.code === base)) return base;
  }
  return "en";
}

export async function initI18n() {
  fallback = await load("en");
  await setLanguage(chooseInitial(), { quiet: true });
}

export async function setLanguage(code, { quiet = false } = {}) {
  if (!LANGUAGES.some((l) => l.code === code)) code = "en";
  if (!quiet) localStorage.setItem(STORAGE_KEY, code);
  strings = code === "en" ? fallback : await load(code);
  current = code;
  document.documentElement.lang = code;
  if (!quiet) for (const fn of listeners) fn(code);
}

export function language() {
  return current;
}

export function onLanguageChange(fn) {
  listeners.add(fn);
}

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

const COARSE = typeof matchMedia === "function" ? matchMedia("(pointer: coarse)") : null;

/** Whether the main pointer is a finger (a phone or a tablet): touch words, no key names. */
export function isTouch() {
  return !!(COARSE && COARSE.matches);
}

/** The key to read: its `touch.` twin on a touch screen, when the language has one. */
function touchKey(key, table) {
  if (!isTouch()) return key;
  const twin = `touch.${key}`;
  return twin in table || `${twin}.other` in table ? twin : key;
}

export function has(key) {
  return key in strings || key in fallback;
}

export function t(key, params) {
  if (isTouch() && `touch.${key}` in fallback) key = `touch.${key}`;
  const text = strings[key] ?? fallback[key];
  if (text === undefined) {
    console.warn("missing string", key);
    return key;
  }
  return fill(text, params);
}

/** A string with a plural form chosen by the language's rules for `n`. */
export function tn(key, n, params = {}) {
  key = touchKey(key, fallback);
  const rule = new Intl.PluralRules(current).select(n);
  const p = { n, ...params };
  for (const form of [rule, "other"]) {
    const k = `${key}.${form}`;
    if (k in strings) return fill(strings[k], p);
  }
  for (const form of [new Intl.PluralRules("en").select(n), "other"]) {
    const k = `${key}.${form}`;
    if (k in fallback) return fill(fallback[k], p);
  }
  return t(key, p);
}

/** t(key) when the key exists, else `otherwise` (for server values such as a part name). */
export function tOr(key, otherwise, params) {
  return has(key) ? t(key, params) : otherwise;
}
