// The shell: session, header, language switch, hash router, toasts and the banner.
//
// Routes:  #/             lobby
//          #/login        sign up / log in / play as a guest   (#/login?next=...)
//          #/table/ID     a table (seats before the start, then the game)  (?invite=TOKEN)
//          #/replay/ID    replay of a finished game
//          #/profile/NAME a player's page: results, ratings, games (?page=N)
//          #/leaderboard  leaderboards; #/leaderboard/solo/GAME the solo high scores
//          #/help/GAME    How to play (cafe, coffee-rush)

import { api } from "./api.js";
import { $, button, h, mount } from "./dom.js";
import { LANGUAGES, initI18n, language, onLanguageChange, setLanguage, t } from "./i18n.js";

export const session = { user: null, games: null };

let currentView = null;

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

export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

const routes = {
  "": () => import("./lobby.js").then((m) => m.lobbyView()),
  lobby: () => import("./lobby.js").then((m) => m.lobbyView()),
  login: (parts, query) => import("./auth.js").then((m) => m.loginView(query.get("next"))),
  table: (parts, query) =>
    import("./table.js").then((m) => m.tableView(parts[1], { invite: query.get("invite") })),
  replay: (parts, query) =>
    import("./replay.js").then((m) => m.replayView(parts[1], Number(query.get("n") ?? "-1"))),
  profile: (parts, query) => import("./profile.js").then((m) => m.profileView(parts[1] || (session.user && session.user.name), Number(query.get("page") || "1"))),
  help: (parts) => import("./help.js").then((m) => m.helpView(parts[1])),
  leaderboard: (parts) => import("./profile.js").then((m) => m.leaderboardView(parts[1], parts[2])),
};

async function route() {
  const { parts, query } = parseHash();
  const make = routes[parts[0] || ""] || routes[""];
  if (currentView && currentView.unmount) currentView.unmount();
  currentView = null;
  banner(null);
  const main = $("#main");
  document.body.dataset.route = parts[0] || "lobby";
  try {
    const view = await make(parts, query);
    currentView = view;
    mount(main, view.el);
    if (view.mounted) view.mounted();
  } catch (err) {
    console.error(err);
    mount(main, h("p", { class: "error-page" }, t("error.unknown")));
  }
  renderHeader();
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
  $("#lang-label").textContent = t("header.language");
  const select = $("#lang");
  if (!select.options.length) {
    for (const l of LANGUAGES) select.appendChild(h("option", { value: l.code }, l.name));
    select.addEventListener("change", () => setLanguage(select.value));
  }
  select.value = language();
  document.title = t("app.title");
}

async function logout() {
  try {
    await api.logout();
  } catch {
    /* the session is gone either way */
  }
  session.user = null;
  go("#/");
}

export async function refreshSession() {
  try {
    session.user = await api.session(); // null when logged out (no 401 in the console)
  } catch {
    session.user = null;
  }
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

// ---- start --------------------------------------------------------------------------------------
async function boot() {
  await initI18n();
  onLanguageChange(() => {
    renderHeader();
    if (currentView && currentView.relabel) currentView.relabel();
    else route();
  });
  await refreshSession();
  window.addEventListener("hashchange", route);
  await route();
}

boot();
