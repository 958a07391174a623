// What every page shares: the session, toasts, the banner, going to a hash, the header and
// the login check. The pages import this; app.js (the router, which imports the pages)
// imports it too, so no page imports app.js.

import { paletteControl } from "./a11y.js";
import { api } from "./api.js";
import { $, button, h, mount } from "./dom.js";
import { LANGUAGES, language, setLanguage, t } from "./i18n.js";
import { channel, connectChannel, refreshTitle } from "./notify.js";

export const session = { user: null, games: null };

// ---- toasts and the banner --------------------------------------------------------------------
export function toast(text, kind = "error", ms = 5000) {
  const box = $("#toasts");
  const el = h("div", { class: ["toast", kind], role: kind === "error" ? "alert" : "status" }, text);
  box.appendChild(el);
  setTimeout(() => el.classList.add("gone"), ms);
  setTimeout(() => el.remove(), ms + 600);
  return el;
}

export function banner(text, kind = "warn") {
  const el = $("#banner");
  if (!text) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  el.hidden = false;
  el.className = kind;
  mount(el, text);
}

// ---- routing ------------------------------------------------------------------------------------
export function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, query: new URLSearchParams(query) };
}

let router = () => {}; // app.js's route(), set at start-up (setRouter)

/** Who shows the page of the hash now: app.js's router, which imports every page (and so
 * cannot be imported by them). */
export function setRouter(fn) {
  router = fn;
}

export function go(hash) {
  if (location.hash === hash) router();
  else location.hash = hash;
}

// ---- header -------------------------------------------------------------------------------------
export function renderHeader() {
  const here = parseHash().parts[0] || "";
  const link = (hash, key, active) =>
    h("a", { href: hash, class: active ? "active" : null, "data-nav": key }, t(`nav.${key}`));
  mount(
    $("#nav"),
    link("#/", "lobby", here === "" || here === "lobby"),
    link("#/leaderboard", "leaderboard", here === "leaderboard"),
    session.user && !session.user.guest ? link("#/profile", "profile", here === "profile") : null,
    session.user && !session.user.guest ? link("#/friends", "friends", here === "friends") : null,
    session.user && session.user.admin ? link("#/admin", "admin", here === "admin") : null,
    session.user ? gamesLink(here === "games") : null,
    session.user ? link("#/settings", "settings", here === "settings") : null,
  );
  const box = $("#user-box");
  if (session.user) {
    mount(
      box,
      h("span", { class: "me", title: t("header.signed_in_as") },
        h("span", { class: "me-name", id: "me-name" }, session.user.name),
        session.user.guest ? h("span", { class: "tag" }, t("header.guest")) : null),
      button(t("header.logout"), logout, { class: "link", id: "logout" }),
    );
  } else {
    mount(box, h("a", { href: "#/login", class: "button small", id: "login-link" }, t("header.login")));
  }
  const paletteBox = $("#palette-box") || h("span", { id: "palette-box" });
  if (!paletteBox.isConnected) $("#lang-box").before(paletteBox);
  mount(paletteBox, paletteControl());
  $("#lang-label").textContent = t("header.language");
  const select = $("#lang");
  if (!select.options.length) {
    for (const l of LANGUAGES) select.appendChild(h("option", { value: l.code }, l.name));
    select.addEventListener("change", () => setLanguage(select.value));
  }
  select.value = language();
  refreshTitle(); // the app's title, with "your move" before it when it is
}

/** "My games", with how many wait for the player's move. */
function gamesLink(active) {
  const n = channel.yourMove.size;
  return h("a", { href: "#/games", class: active ? "active" : null, "data-nav": "games" },
    t("nav.games"), n ? h("span", { class: "badge", id: "your-move-count" }, String(n)) : null);
}

async function logout() {
  try {
    await api.logout();
  } catch {
    /* the session is gone either way */
  }
  session.user = null;
  connectChannel(null);
  go("#/");
}

export async function refreshSession() {
  try {
    session.user = await api.session(); // null when logged out (no 401 in the console)
  } catch {
    session.user = null;
  }
  connectChannel(session.user);
  renderHeader();
  return session.user;
}

export async function gamesInfo() {
  if (!session.games) session.games = await api.games();
  return session.games;
}

/** The page needs a logged-in player: send them to the login page and come back. */
export function requireLogin() {
  if (session.user) return true;
  go(`#/login?next=${encodeURIComponent(location.hash || "#/")}`);
  return false;
}
