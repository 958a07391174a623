// The game log as a player reads it (docs/web.md, "The game log"): moves grouped by turn
// (Coffee Rush: a turn ends with `end` or when another seat moves; the meeples' placing is
// the set-up) or by round (Café:
// a round starts with the draft or the auction), and a player's deliveries to the warehouse in
// a row made one line. Pure functions over the server's log entries {version, seat, action, say}.

const DRAFT = /^(take |bid |bid done$|pass$)/;
const WAREHOUSE = "log.cafe.deliver_warehouse";

/** [{kind: "setup"|"turn"|"round", seat, lines: [{seat, entries}]}] */
export function groupLog(entries, game) {
  const groups = [];
  let prev = null;
  for (const entry of entries) {
    const setup = game === "coffee-rush" && /^place /.test(entry.action);
    let start = !groups.length;
    // a Coffee Rush turn ends with `end`, or with the seat changing (the engine plays an
    // `end` that is the only step left itself, and it is not in the log)
    if (prev && game === "coffee-rush" && !setup && (prev.action === "end" || /^place /.test(prev.action) || prev.seat !== entry.seat)) start = true;
    if (prev && game === "cafe" && DRAFT.test(entry.action) && !DRAFT.test(prev.action)) start = true;
    if (start) groups.push({ kind: setup ? "setup" : game === "cafe" ? "round" : "turn", seat: entry.seat, lines: [] });
    const lines = groups[groups.length - 1].lines;
    const last = lines[lines.length - 1];
    if (last && entry.say?.key === WAREHOUSE && last.seat === entry.seat && last.entries[0].say?.key === WAREHOUSE) last.entries.push(entry);
    else lines.push({ seat: entry.seat, entries: [entry] });
    prev = entry;
  }
  return groups;
}

/** One sentence for deliveries merged into a line: "delivers 3 cubes to the warehouse: 2
 * yellow and 1 red" (a `say` for say.js; colours in the order they came). */
export function mergedSay(entries) {
  const counts = new Map();
  for (const e of entries) counts.set(e.say.params.colour, (counts.get(e.say.params.colour) || 0) + 1);
  return {
    key: "logview.deliver_many",
    params: {
      n: entries.length,
      parts: [...counts].map(([colour, k]) => ({ key: "log.cafe.cube_part", params: { n: k, colour } })),
    },
  };
}

// ---- round summaries ------------------------------------------------------------------------
// Each log entry carries the public score totals after its move (`scores`) and each seat's
// change by it (`gains`; docs/server-protocol.md). A Café round is a group; Coffee Rush has
// no rounds, so a summary follows each cycle of turns (every seat once, from seat 0 on).

function sumGains(entries, seats) {
  const out = new Array(seats).fill(0);
  for (const e of entries) (e.gains || []).forEach((g, i) => { if (i < seats) out[i] += g; });
  return out;
}

/** Per group index, the summary shown after it: {n, cycle, lines: [{seat, gain, total}]}.
 * `whole`: the log starts at the first move (the server sent fewer than its last 200); `over`:
 * the game has ended (the last round is complete). Groups not yet complete get none, and so
 * does a first group that began before the log does. */
export function roundSummaries(groups, game, seats, { whole = true, over = false, firstRound = 1 } = {}) {
  const out = new Map();
  const entriesOf = (group) => group.lines.flatMap((line) => line.entries);
  const complete = (i) => i < groups.length - 1 || over;
  const summary = (n, entries, cycle) => {
    if (!entries.length || entries.some((e) => !Array.isArray(e.gains) || !Array.isArray(e.scores))) return null;
    const gains = sumGains(entries, seats);
    const totals = entries[entries.length - 1].scores;
    return { n, cycle, lines: gains.map((gain, seat) => ({ seat, gain, total: totals[seat] })) };
  };
  if (game === "cafe") {
    groups.forEach((group, i) => {
      if (!complete(i) || (i === 0 && !whole)) return;
      const s = summary(firstRound + i, entriesOf(group), false);
      if (s) out.set(i, s);
    });
    return out;
  }
  // Coffee Rush: a cycle ends with the turn of the last seat
  let pending = [];
  let partial = !whole;
  let n = 0;
  groups.forEach((group, i) => {
    if (group.kind !== "turn") return;
    pending.push(...entriesOf(group));
    const next = groups[i + 1];
    const ends = (group.seat === seats - 1 || (next && next.kind === "turn" && next.seat <= group.seat)) && complete(i);
    if (!ends && !(over && i === groups.length - 1)) return;
    n += 1;
    if (!partial) {
      const s = summary(n, pending, true);
      if (s) out.set(i, s);
    }
    partial = false;
    pending = [];
  });
  return out;
}

// ---- Café positions in words ----------------------------------------------------------------
// The server names a Café cell by its coordinates ("0,2": row and column of the seat's area,
// which grows in every direction). A player sees the area drawn from its top-left cell, so a
// `pos` parameter becomes "row 1, column 3" counted from there (as the area is drawn now),
// with the shop it lies next to when there is one.

const POS = /^(-?\d+),(-?\d+)$/;

function areaFrame(area) {
  let rows = [0, 1];
  let cols = [0, 2];
  for (const cell of area.cells) {
    rows = [Math.min(rows[0], cell.at[0]), Math.max(rows[1], cell.at[0])];
    cols = [Math.min(cols[0], cell.at[1]), Math.max(cols[1], cell.at[1])];
  }
  return { top: rows[0], left: cols[0] };
}

function shopSay(shop) {
  if (shop.name) return shop.name;
  if (!shop.year) return { key: "log.cafe.city", params: { city: shop.city } };
  return { key: "log.cafe.shop_city", params: { city: shop.city, year: shop.year } };
}

/** The words for the cell at "R,C" of `area` (a view's area): {key, params} for say.js. */
export function cellWords(text, area, { near = true } = {}) {
  const m = POS.exec(String(text));
  if (!m || !area) return text;
  const [r, c] = [Number(m[1]), Number(m[2])];
  const { top, left } = areaFrame(area);
  const params = { row: r - top + 1, col: c - left + 1 };
  if (near) {
    const here = area.cells.find((cell) => cell.at[0] === r && cell.at[1] === c);
    const own = here && here.cell === "shop" ? here.shop : -1;
    const next = area.cells.find((cell) => cell.cell === "shop" && cell.shop !== own
      && Math.abs(cell.at[0] - r) + Math.abs(cell.at[1] - c) === 1);
    const shop = next && area.shops[next.shop];
    if (shop) return { key: "where.cell_by", params: { ...params, shop: shopSay(shop) } };
  }
  return { key: "where.cell", params };
}

/** A Café `say` with every position in words for `area` (the seat's area in a view). */
export function inWords(say, area) {
  if (!say || typeof say !== "object" || !area) return say;
  const params = {};
  for (const [name, v] of Object.entries(say.params || {})) {
    if (name === "pos" && typeof v === "string" && POS.test(v)) params[name] = cellWords(v, area, { near: say.key !== "log.cafe.shop_at" });
    else if (Array.isArray(v)) params[name] = v.map((x) => inWords(x, area));
    else if (v && typeof v === "object" && Array.isArray(v.items)) params[name] = { ...v, items: v.items.map((x) => inWords(x, area)) };
    else if (v && typeof v === "object") params[name] = inWords(v, area);
    else params[name] = v;
  }
  return { ...say, params };
}

/** A log entry's `say` in words for a Café seat's area in `view` (the board it is read
 * against); other games' entries, or no view, as they are. */
export function sayOnBoard(game, say, view, seat) {
  const area = game === "cafe" ? view?.seats?.[seat]?.area : null;
  return area ? inWords(say, area) : say;
}
