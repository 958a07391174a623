// A player's page (results per game, the solo best and its rulebook rating, rating and its
// history, every game they sat at with its replay), the leaderboards, and the solo
// high-score board.

import { api, errorText } from "./api.js";
import { gamesInfo, go } from "./shell.js";
import { botName, gameTitle, soloLabel } from "./common.js";
import { button, h, mount, s } from "./dom.js";
import { language, t, tn } from "./i18n.js";

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

const number = (x) => Number(x).toLocaleString(language(), { maximumFractionDigits: 1 });
const day = (iso) => (iso ? new Date(iso).toLocaleDateString() : "");
const profileLink = (name) => h("a", { href: `#/profile/${encodeURIComponent(name)}` }, name);

function stat(key, label, value) {
  return [h("dt", {}, label), h("dd", { "data-stat": key }, value)];
}

function gameCard(g) {
  const solo = g.solo && g.solo.played ? g.solo : null;
  return h("div", { class: "card", "data-game": g.game },
    h("h2", {}, gameTitle(g.game)),
    g.played
      ? [h("p", { class: "stats-line" },
        h("span", { "data-stat": "played" }, tn("players.played", g.played)), " · ",
        h("span", { "data-stat": "wins" }, tn("players.wins", g.wins))),
      h("dl", { class: "stats" },
        stat("mean", t("players.mean"), number(g.mean_score)),
        stat("best", t("players.best"), String(g.best_score)),
        solo ? stat("solo-best", t("players.solo_best"), [String(solo.best), h("span", { class: "muted" }, ` · ${tn("players.solo_played", solo.played)}`)]) : null,
        solo && solo.band ? stat("band", t("players.band"), h("strong", {}, soloLabel(solo.band))) : null)]
      : h("p", { class: "muted" }, t("players.no_games_of", { game: gameTitle(g.game) })),
    h("h3", {}, t("players.rating")),
    h("p", {}, h("span", { class: "rating-big", "data-rating": g.game }, String(g.rating)), " ", h("span", { class: "muted" }, tn("profile.games", g.rated_games))),
    g.rating_history.length ? chart(g.rating_history) : h("p", { class: "muted" }, t("profile.no_history")),
    g.rating_history.length ? h("ol", { class: "history" }, g.rating_history.slice(-10).reverse().map((x) => h("li", {},
      x.table ? h("a", { href: `#/replay/${x.table}` }, day(x.at)) : h("span", {}, day(x.at)), " ",
      `${x.before} → ${x.after} (${x.after >= x.before ? "+" : ""}${Math.round((x.after - x.before) * 10) / 10})`))) : null);
}

function playerNames(row) {
  return row.players.map((p, i) => [
    i ? ", " : "",
    p.name ? (i === row.seat ? h("strong", {}, p.name) : profileLink(p.name)) : p.bot ? botName(p.bot) : t("table.open_seat"),
  ]);
}

function resultText(row) {
  if (row.status === "running") return t("players.in_play");
  if (row.status === "open") return t("players.waiting");
  if (row.status === "aborted") {
    const seat = row.abandoned_by;
    return seat === null || seat === undefined ? t("players.closed")
      : t("players.abandoned_by", { name: row.players[seat]?.name || botName(row.players[seat]?.bot) });
  }
  const points = row.score === null ? "" : tn("players.points", row.score);
  if (row.players.length === 1) return row.band ? `${points} · ${soloLabel(row.band)}` : points;
  const outcome = row.left ? t("players.left") : row.won ? t("players.won") : t("players.lost");
  return points ? `${outcome} · ${points}` : outcome;
}

function historyRow(row) {
  return h("tr", { "data-table": row.table, "data-status": row.status },
    h("td", {}, day(row.finished_at || row.created_at)),
    h("td", {}, gameTitle(row.game),
      row.rated ? [" ", h("span", { class: "tag rated" }, t("lobby.rated"))] : null,
      row.private ? [" ", h("span", { class: "tag" }, t("players.private"))] : null),
    h("td", {}, playerNames(row)),
    h("td", { class: ["result", row.won && !row.left && "won"] }, resultText(row)),
    h("td", {}, row.replay
      ? h("a", { href: `#/replay/${row.table}`, class: "button small", "data-replay": row.table }, t("players.replay"))
      : row.status === "running" || row.status === "open"
        ? h("a", { href: `#/table/${row.table}`, class: "button small" }, t("players.open")) : null));
}

export function profileView(name, page = 1) {
  const el = h("section", { class: "profile-page", id: "profile-page" });
  page = Number.isInteger(page) && page >= 1 ? page : 1;
  let profile = null;
  let games = null;
  let error = null;

  function pager() {
    if (!games || games.pages <= 1) return null;
    const to = (n) => go(`#/profile/${encodeURIComponent(profile.name)}?page=${n}`);
    return h("div", { class: "pager" },
      button(t("players.newer"), () => to(page - 1), { class: "small", id: "history-newer", disabled: page <= 1 }),
      h("span", { class: "muted", id: "history-page" }, t("players.page", { page: games.page, pages: games.pages })),
      button(t("players.older"), () => to(page + 1), { class: "small", id: "history-older", disabled: page >= games.pages }));
  }

  function render() {
    if (!name) {
      mount(el, h("p", {}, t("profile.login")));
      return;
    }
    if (error) {
      mount(el, h("h1", {}, t("profile.heading")), h("p", { class: "error-page" }, error));
      return;
    }
    if (!profile) {
      mount(el, h("p", { class: "muted" }, "…"));
      return;
    }
    mount(el,
      h("h1", { id: "profile-name" }, profile.name, profile.guest ? [" ", h("span", { class: "tag" }, t("players.guest"))] : null),
      h("p", { class: "muted" }, t("players.since", { date: day(profile.since) })),
      h("div", { class: "profile-grid" }, profile.games.map(gameCard)),
      h("section", { class: "card", id: "history" },
        h("h2", {}, t("players.history")),
        !games ? h("p", { class: "muted" }, "…")
          : games.games.length === 0 ? h("p", { class: "muted empty" }, t("players.history_empty"))
            : h("table", { class: "leaders games-history", id: "history-table" },
              h("thead", {}, h("tr", {},
                h("th", {}, t("players.col_date")), h("th", {}, t("players.col_game")), h("th", {}, t("players.col_players")),
                h("th", {}, t("players.col_result")), h("th", {}, ""))),
              h("tbody", {}, games.games.map(historyRow))),
        pager()));
  }

  return {
    el,
    async mounted() {
      if (!name) { render(); return; }
      render();
      try {
        [profile, games] = await Promise.all([api.profile(name), api.playerGames(name, page)]);
      } catch (err) {
        error = errorText(err);
      }
      render();
    },
    relabel: render,
  };
}

function soloBoard(rows) {
  return rows.length === 0 ? h("p", { class: "muted empty" }, t("highscores.empty"))
    : h("table", { class: "leaders", id: "highscores" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("leaderboard.player")), h("th", { class: "num" }, t("highscores.score")),
        h("th", {}, t("highscores.band")), h("th", {}, t("highscores.date")), h("th", {}, ""))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-table": r.table },
        h("td", {}, String(r.rank)),
        h("td", {}, profileLink(r.name)),
        h("td", { class: "num" }, String(r.score)),
        h("td", {}, r.band ? soloLabel(r.band) : ""),
        h("td", {}, day(r.at)),
        h("td", {}, h("a", { href: `#/replay/${r.table}`, class: "button small" }, t("players.replay")))))));
}

export function leaderboardView(game, soloGame) {
  const el = h("section", { class: "leaderboard-page", id: "leaderboard-page" });
  const solo = game === "solo";
  let games = [];
  let rows = null;
  let error = null;

  function render() {
    const current = solo ? `solo/${soloGame}` : game || (games[0] && games[0].name);
    const tabs = [
      ...games.map((g) => ({ key: g.name, label: gameTitle(g.name) })),
      ...games.filter((g) => g.min_players === 1).map((g) => ({ key: `solo/${g.name}`, label: t("highscores.tab", { game: gameTitle(g.name) }) })),
    ];
    mount(el,
      h("h1", {}, solo ? t("highscores.title", { game: gameTitle(soloGame) }) : t("leaderboard.title")),
      h("div", { class: "game-pick" }, tabs.map((tab) => h("a", {
        href: `#/leaderboard/${tab.key}`, class: ["button", "game-choice", tab.key === current && "active"], "data-game": tab.key,
      }, tab.label))),
      h("div", { class: "card" },
        error ? h("p", { class: "error-page" }, error)
          : rows === null ? h("p", { class: "muted" }, "…")
            : solo ? soloBoard(rows)
              : rows.length === 0 ? h("p", { class: "muted empty" }, t("leaderboard.empty"))
                : h("table", { class: "leaders", id: "leaders" },
                  h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("leaderboard.player")), h("th", { class: "num" }, t("leaderboard.rating")), h("th", { class: "num" }, t("leaderboard.games")))),
                  h("tbody", {}, rows.map((r, i) => h("tr", {},
                    h("td", {}, String(i + 1)),
                    h("td", {}, profileLink(r.name)),
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
      if (solo ? !games.some((g) => g.name === soloGame && g.min_players === 1) : !games.some((g) => g.name === game)) {
        // not a game of ours (or not one played alone): say so, and offer the boards there are
        error = t("leaderboard.no_game", { game: solo ? soloGame : game });
        render();
        return;
      }
      render();
      try {
        rows = solo ? await api.highScores(soloGame) : await api.leaderboard(game);
      } catch (err) {
        error = errorText(err);
      }
      render();
    },
    relabel: render,
  };
}
