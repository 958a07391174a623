// A player's ratings (with their history) and the leaderboards.

import { api, errorText } from "./api.js";
import { gamesInfo, go } from "./app.js";
import { gameTitle } from "./common.js";
import { h, mount, s } from "./dom.js";
import { t, tn } from "./i18n.js";

function chart(history) {
  const points = [history.length ? history[0].before : 1500, ...history.map((x) => x.after)];
  const W = 320;
  const H = 120;
  const lo = Math.min(...points) - 10;
  const hi = Math.max(...points) + 10;
  const x = (i) => 10 + (i * (W - 20)) / Math.max(1, points.length - 1);
  const y = (v) => H - 10 - ((v - lo) * (H - 20)) / Math.max(1, hi - lo);
  return s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": t("profile.chart") },
    s("line", { x1: 10, y1: H - 10, x2: W - 10, y2: H - 10, class: "axis" }),
    s("polyline", { points: points.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }),
    points.map((v, i) => s("circle", { cx: x(i), cy: y(v), r: 2.5, fill: "var(--accent)" }, s("title", {}, String(v)))),
    s("text", { x: 12, y: 12, "font-size": 10, fill: "#7a6a5c" }, String(Math.round(hi - 10))),
    s("text", { x: 12, y: H - 14, "font-size": 10, fill: "#7a6a5c" }, String(Math.round(lo + 10))));
}

export function profileView(name) {
  const el = h("section", { class: "profile-page", id: "profile-page" });
  let data = {};

  function render() {
    if (!name) {
      mount(el, h("p", {}, t("profile.login")));
      return;
    }
    const errors = Object.values(data).filter((r) => r.error);
    if (errors.length && errors.length === Object.keys(data).length) {
      // no such player (or the server could not say): one message, no "<name>'s ratings"
      mount(el, h("h1", {}, t("profile.heading")), h("p", { class: "error-page" }, errors[0].error));
      return;
    }
    mount(el,
      h("h1", {}, t("profile.title", { name })),
      h("div", { class: "profile-grid" }, Object.entries(data).map(([game, r]) => h("div", { class: "card", "data-game": game },
        h("h2", {}, gameTitle(game)),
        r.error ? h("p", { class: "error-page" }, r.error) : [
          h("p", {}, h("span", { class: "rating-big", "data-rating": game }, String(r.rating)), " ", h("span", { class: "muted" }, tn("profile.games", r.games))),
          r.history.length ? chart(r.history) : h("p", { class: "muted" }, t("profile.no_history")),
          r.history.length ? h("ol", { class: "history" }, r.history.slice(-10).reverse().map((x) => h("li", {},
            h("a", { href: `#/replay/${x.table}` }, new Date(x.at).toLocaleDateString()), " ",
            `${x.before} → ${x.after} (${x.after >= x.before ? "+" : ""}${Math.round((x.after - x.before) * 10) / 10})`))) : null,
        ]))));
  }

  return {
    el,
    async mounted() {
      if (!name) { render(); return; }
      const games = await gamesInfo();
      for (const g of games) {
        try {
          data[g.name] = await api.ratings(name, g.name);
        } catch (err) {
          data[g.name] = { error: errorText(err) };
        }
      }
      render();
    },
    relabel: render,
  };
}

export function leaderboardView(game) {
  const el = h("section", { class: "leaderboard-page", id: "leaderboard-page" });
  let games = [];
  let rows = null;
  let error = null;

  function render() {
    const current = game || (games[0] && games[0].name);
    mount(el,
      h("h1", {}, t("leaderboard.title")),
      h("div", { class: "game-pick" }, games.map((g) => h("a", {
        href: `#/leaderboard/${g.name}`, class: ["button", "game-choice", g.name === current && "active"], "data-game": g.name,
      }, gameTitle(g.name)))),
      h("div", { class: "card" },
        error ? h("p", { class: "error-page" }, error)
          : rows === null ? h("p", { class: "muted" }, "…")
            : rows.length === 0 ? h("p", { class: "muted empty" }, t("leaderboard.empty"))
              : h("table", { class: "leaders", id: "leaders" },
                h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("leaderboard.player")), h("th", { class: "num" }, t("leaderboard.rating")), h("th", { class: "num" }, t("leaderboard.games")))),
                h("tbody", {}, rows.map((r, i) => h("tr", {},
                  h("td", {}, String(i + 1)),
                  h("td", {}, h("a", { href: `#/profile/${encodeURIComponent(r.name)}` }, r.name)),
                  h("td", { class: "num" }, String(r.rating)),
                  h("td", { class: "num" }, String(r.games))))))));
  }

  return {
    el,
    async mounted() {
      games = await gamesInfo();
      if (!game && games.length) {
        go(`#/leaderboard/${games[0].name}`);
        return;
      }
      if (!games.some((g) => g.name === game)) {
        // not a game of ours: say so, and offer the games there are
        error = t("leaderboard.no_game", { game });
        render();
        return;
      }
      render();
      try {
        rows = await api.leaderboard(game);
      } catch (err) {
        error = errorText(err);
      }
      render();
    },
    relabel: render,
  };
}
