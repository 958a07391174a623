// The shell: session, header, language switch, hash router, toasts and the banner.
//
// Routes:  #/             lobby
//          #/login        sign up / log in / play as a guest   (#/login?next=...)
//          #/table/ID     a table (seats before the start, then the game)  (?invite=TOKEN)
//          #/replay/ID    replay of a finished game
//          #/profile/NAME a player's page: results, ratings, games (?page=N)
//          #/leaderboard  leaderboards; #/leaderboard/solo/GAME the solo high scores
//          #/help/GAME    How to play (cafe, coffee-rush)
//          #/friends      friends, friend requests and invitations to tables
//          #/admin        reports and suspensions (admins only)
//          #/games        my games (running and recent, your move first)
//          #/settings     notifications and e-mail
//          #/unsubscribe/TOKEN   a mail's unsubscribe link
//          #/decks        my decks: upload, who may use them, calibration
//          #/decks/edit/GAME   the card editor (cafe, coffee-rush)  (?from=SHA256: a deck to start from)

import { initPalette, onPaletteChange, paletteControl } from "./a11y.js";
import { api } from "./api.js";
import { $, button, h, mount } from "./dom.js";
import { LANGUAGES, initI18n, language, onLanguageChange, setLanguage, t } from "./i18n.js";
import { channel, connectChannel, onChannel, refreshTitle } from "./notify.js";

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
    import("./replay.js").then((m) => m.replayView(parts[1], Number(query.get("n") ?? "-1"), query.has("review"))),
  profile: (parts, query) => import("./profile.js").then((m) => m.profileView(parts[1] || (session.user && session.user.name), Number(query.get("page") || "1"))),
  help: (parts) => import("./help.js").then((m) => m.helpView(parts[1])),
  friends: () => import("./friends.js").then((m) => m.friendsView()),
  leaderboard: (parts) => import("./profile.js").then((m) => m.leaderboardView(parts[1], parts[2])),
  admin: () => import("./admin.js").then((m) => m.adminView()),
  games: () => import("./mygames.js").then((m) => m.myGamesView()),
  settings: () => import("./settings.js").then((m) => m.settingsView()),
  unsubscribe: (parts) => import("./settings.js").then((m) => m.unsubscribeView(parts[1])),
  decks: (parts, query) => (parts[1] === "edit" ? deckEditor(parts[2], query.get("from")) : import("./decks.js").then((m) => m.decksView())),
};

/** The card editor of a game (#/decks/edit/GAME, `?from=SHA256`: a deck to start from). */
async function deckEditor(game, from) {
  const [{ editorView }, part] = await Promise.all([
    import("./deckedit.js"),
    game === "coffee-rush" ? import("./deckedit-rush.js").then((m) => m.rushPart) : import("./deckedit-cafe.js").then((m) => m.cafePart),
  ]);
  return editorView(part, { from });
}

let routing = 0; // the latest route(): a slower page made for an earlier hash is dropped

async function route() {
  const { parts, query } = parseHash();
  const make = routes[parts[0] || ""] || routes[""];
  const mine = ++routing;
  if (currentView && currentView.unmount) currentView.unmount();
  currentView = null;
  banner(null);
  const main = $("#main");
  document.body.dataset.route = parts[0] || "lobby";
  try {
    const view = await make(parts, query);
    if (mine !== routing) {
      // the hash changed while this page loaded: the newer page is shown, not this one
      if (view && view.unmount) view.unmount();
      return;
    }
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

// ---- start --------------------------------------------------------------------------------------
async function boot() {
  initPalette();
  await initI18n();
  onPaletteChange(() => {
    renderHeader();
    if (currentView && currentView.relabel) currentView.relabel();
    else route();
  });
  onLanguageChange(() => {
    renderHeader();
    if (currentView && currentView.relabel) currentView.relabel();
    else route();
  });
  await refreshSession();
  onChannel((msg) => {
    if (msg.type === "welcome" || msg.type === "turn" || msg.type === "ended") renderHeader();
  });
  import("./friends.js").then((m) => m.startFriendNews());
  window.addEventListener("hashchange", route);
  await route();
}

boot();
