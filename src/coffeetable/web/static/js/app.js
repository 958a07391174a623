// The start-up and the hash router (the session, header, toasts and banner: shell.js).
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

import { initPalette, onPaletteChange } from "./a11y.js";
import { $, h, mount } from "./dom.js";
import { initI18n, onLanguageChange, t } from "./i18n.js";
import { onChannel } from "./notify.js";
import { banner, parseHash, refreshSession, renderHeader, session, setRouter } from "./shell.js";

let currentView = null;

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
  setRouter(route);
  window.addEventListener("hashchange", route);
  await route();
}

boot();
