// The HTTP API (docs/server.md). Every error becomes an ApiError with the server's code;
// errorText() turns a code into a sentence in the player's language.

import { has, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message, { field = null, rule = null, problems = null } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field; // a refused name or password: which one, and the rule it broke
    this.rule = rule;
    this.problems = problems; // a refused deck file: what is wrong with it
  }
}

/** A request body sent as it is (a deck file's text), not as JSON. */
export class TextBody {
  constructor(text, type = "text/plain; charset=utf-8") {
    this.text = text;
    this.type = type;
  }
}

async function request(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body instanceof TextBody) {
    init.headers["Content-Type"] = body.type;
    init.body = body.text;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || "http", error.message || response.statusText,
      { field: error.field || null, rule: error.rule || null, problems: (data && data.problems) || error.problems || null });
  }
  return data;
}

export const api = {
  get: (path) => request("GET", path),
  post: (path, body) => request("POST", path, body),
  del: (path) => request("DELETE", path),

  me: () => request("GET", "/api/me"),
  session: () => request("GET", "/api/session").then((answer) => answer.user),
  register: (name, password) => request("POST", "/api/register", { name, password }),
  login: (name, password) => request("POST", "/api/login", { name, password }),
  guest: () => request("POST", "/api/guest"),
  logout: () => request("POST", "/api/logout"),
  games: () => request("GET", "/api/games"),
  tables: (status) => request("GET", status ? `/api/tables?status=${status}` : "/api/tables"),
  table: (id) => request("GET", `/api/tables/${encodeURIComponent(id)}`),
  createTable: (spec) => request("POST", "/api/tables", spec),
  join: (id, body) => request("POST", `/api/tables/${encodeURIComponent(id)}/join`, body || {}),
  leave: (id) => request("POST", `/api/tables/${encodeURIComponent(id)}/leave`),
  start: (id) => request("POST", `/api/tables/${encodeURIComponent(id)}/start`),
  rematch: (id, requestId) => request("POST", `/api/tables/${encodeURIComponent(id)}/rematch`, requestId ? { request_id: requestId } : undefined),
  hint: (id) => request("POST", `/api/tables/${encodeURIComponent(id)}/hint`),
  log: (id) => request("GET", `/api/tables/${encodeURIComponent(id)}/log`),
  replay: (id, n) => request("GET", `/api/tables/${encodeURIComponent(id)}/replay/${n}`),
  recordUrl: (id) => `/api/tables/${encodeURIComponent(id)}/record`,
  leaderboard: (game) => request("GET", `/api/leaderboard/${encodeURIComponent(game)}`),
  profile: (name) => request("GET", `/api/users/${encodeURIComponent(name)}/profile`),
  playerGames: (name, page, perPage = 20) =>
    request("GET", `/api/users/${encodeURIComponent(name)}/games?page=${page}&per_page=${perPage}`),
  highScores: (game) => request("GET", `/api/highscores/${encodeURIComponent(game)}?limit=50`),
  // decks (docs/server.md, "Decks"): `body` is a file's text (TextBody) or {model}
  checkDeck: (game, body) => request("POST", `/api/decks/check?game=${encodeURIComponent(game)}`, body),
  uploadDeck: (game, visibility, body) =>
    request("POST", `/api/decks?game=${encodeURIComponent(game)}&visibility=${encodeURIComponent(visibility)}`, body),
  decks: (game) => request("GET", game ? `/api/decks?game=${encodeURIComponent(game)}` : "/api/decks"),
  deck: (sha) => request("GET", `/api/decks/${encodeURIComponent(sha)}`),
  deckFileUrl: (sha) => `/api/decks/${encodeURIComponent(sha)}/file`,
  setDeckVisibility: (sha, visibility) => request("PATCH", `/api/decks/${encodeURIComponent(sha)}`, { visibility }),
  deleteDeck: (sha) => request("DELETE", `/api/decks/${encodeURIComponent(sha)}`),
  calibrate: (sha) => request("POST", `/api/decks/${encodeURIComponent(sha)}/calibrate`),
  calibration: (sha) => request("GET", `/api/decks/${encodeURIComponent(sha)}/calibration`),
  ratings: (name, game) =>
    request("GET", `/api/users/${encodeURIComponent(name)}/ratings/${encodeURIComponent(game)}`),
};

/** A sentence for the player: the error's code in their language (never a stack trace). */
export function errorText(err) {
  const code = err && err.code ? err.code : "unknown";
  if (err && err.field && err.rule && has(`auth.rule.${err.field}.${err.rule}`)) return t(`auth.rule.${err.field}.${err.rule}`);
  if (has(`error.${code}`)) return t(`error.${code}`);
  return t("error.unknown");
}
