// Café: every player's business area as an SVG grid, the draft display, the auction, the
// warehouse, action points. Every click is mapped to one of the server's `legal` notations
// (a move is legal exactly when its notation is in `legal`), and exactly that string is sent.

import { arrowStep, focusIdentity, onActivate, restoreFocus } from "./a11y.js";
import { SEAT_COLOURS, partName, seatName } from "./common.js";
import { button, h, mount, s } from "./dom.js";
import {
  CUBE_COLOURS, CUBE_MARK_INK, beanIcon, cakeIcon, cube, cubeMark, cubeSvg, cupIcon, dryIcon, espressoIcon, roastIcon, shipIcon, supplyIcon,
} from "./icons.js";
import { has, t, tn } from "./i18n.js";
import { deckData } from "./gamedata.js";
import { tip } from "./tips.js";

const COLOURS = ["Y", "B", "G", "R"];
const CS = 54; // cell size in SVG units
const decks = deckData("cafe", (data) => ({ ...data, byId: Object.fromEntries(data.cards.map((c) => [c.id, c])) }));
let DATA = null; // the cards of the deck shown now (the default deck, or a table's own deck)

/** The card layouts of a deck (`{sha256, ...}` as tables name it; none: the default deck),
 * which the drawings use from then on. */
export async function loadCafeData(deck = null) {
  DATA = await decks.load(deck);
  return DATA;
}

export function colourName(c) {
  return t(`colour.${c}`);
}

/** A colour in the forms the languages need next to "cube": {colour} (one cube),
 * {colour_pl} (cubes), {colour_gpl} (e.g. Russian "5 жёлтых кубов"). */
export function colourParams(c) {
  if (!c) return { colour: "", colour_pl: "", colour_gpl: "" };
  return { colour: t(`colour.${c}`), colour_pl: t(`colour_pl.${c}`), colour_gpl: t(`colour_gpl.${c}`) };
}

const key = (r, c) => `${r},${c}`;
const parsePos = (text) => text.split(",").map(Number);

/** Where printed cell (r, c) of a card lands when its turned footprint's top-left is (R, C). */
export function footprint(R, C, rot) {
  const out = [];
  for (let r = 0; r < 2; r++) {
    for (let c = 0; c < 3; c++) {
      let pos;
      if (rot === 0) pos = [R + r, C + c];
      else if (rot === 1) pos = [R + c, C + 1 - r];
      else if (rot === 2) pos = [R + 1 - r, C + 2 - c];
      else pos = [R + 2 - c, C + r];
      out.push({ r, c, at: pos });
    }
  }
  return out;
}

function family(token) {
  if (!token) return 0;
  if (token.startsWith("bean-") || token.startsWith("bonus-") || token === "supply") return 1;
  if (token === "dry") return 2;
  if (token === "roast") return 3;
  return 0;
}

/** An area's cells by position, its groups, card owners and shop states. */
function analyse(area) {
  const cells = new Map();
  for (const cell of area.cells) cells.set(key(...cell.at), cell);
  const owner = new Map();
  area.cards.forEach((placed, index) => {
    for (const f of footprint(placed.at[0], placed.at[1], placed.rot / 90)) owner.set(key(...f.at), index);
  });
  const groupOf = new Map();
  for (const [k, cell] of cells) {
    const fam = family(cell.cell);
    if (!fam || groupOf.has(k)) continue;
    const group = [];
    const todo = [k];
    groupOf.set(k, group);
    while (todo.length) {
      const cur = todo.pop();
      group.push(cur);
      const [r, c] = parsePos(cur);
      for (const [dr, dc] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const nk = key(r + dr, c + dc);
        const n = cells.get(nk);
        if (n && !groupOf.has(nk) && family(n.cell) === fam) {
          groupOf.set(nk, group);
          todo.push(nk);
        }
      }
    }
  }
  const shops = area.shops.map((shop, index) => {
    const visible = shop.cells.filter(([r, c]) => {
      const cell = cells.get(key(r, c));
      return cell && cell.cell === "shop" && cell.shop === index;
    });
    // the view says whether the shop is still available; older views did not
    const lost = typeof shop.available === "boolean" ? !shop.available : visible.length !== shop.cells.length;
    return { ...shop, index, visible, lost };
  });
  let rows = [0, 1];
  let cols = [0, 2];
  for (const k of cells.keys()) {
    const [r, c] = parsePos(k);
    rows = [Math.min(rows[0], r), Math.max(rows[1], r)];
    cols = [Math.min(cols[0], c), Math.max(cols[1], c)];
  }
  return { cells, owner, groupOf, shops, rows, cols };
}

/** A start card's company in the player's language. */
export function companyName(company) {
  const k = `company.${String(company).replace(/[^A-Za-z]/g, "_")}`;
  return has(k) ? t(k) : company;
}

/** A city in the player's language (the rulebooks' spelling), by its English name. */
function cityName(city) {
  return city && has(`city.${city}`) ? t(`city.${city}`) : city;
}

function shopLabel(shop) {
  const base = shop.year ? `${cityName(shop.city)} ${shop.year}` : cityName(shop.city);
  return shop.name ? `${shop.name} (${base})` : base;
}

export function cellName(token) {
  if (!token) return "";
  const [kind, extra] = token.split("-");
  if (kind === "bean" || kind === "bonus") return t(`cell.${kind}`, { colour: colourName(extra) });
  if (kind === "cake") return t("cell.cake", { vp: extra });
  return has(`cell.${kind}`) ? t(`cell.${kind}`) : token;
}

function cellFill(token) {
  if (!token) return "#e8dccb";
  if (token.startsWith("bean-") || token.startsWith("bonus-")) {
    return `color-mix(in srgb, ${CUBE_COLOURS[token.slice(-1)]} 22%, #fbf6ee)`;
  }
  return {
    dry: "#f3e6b8", roast: "#f4cdb0", cup: "#fffdf8", ship: "#d7e7f1", shop: "#f9efe0",
    empty: "#e9dfd2", espresso: "#ead7c6", supply: "#f3ecd9", cake: "#fbe4ec",
  }[token.split("-")[0]] || "#eee";
}

/** The icon of a printed cell, centred in the box at (x, y). */
function cellIcon(token, x, y, size) {
  const cx = x + size / 2;
  const cy = y + size / 2;
  const r = size * 0.3;
  const [kind, extra] = token.split("-");
  switch (kind) {
    case "bean": return beanIcon(extra, cx, cy, r);
    case "bonus": return s("g", {}, beanIcon(extra, cx - r * 0.45, cy, r * 0.8), beanIcon(extra, cx + r * 0.45, cy, r * 0.8));
    case "dry": return dryIcon(cx, cy, r);
    case "roast": return roastIcon(cx, cy, r);
    case "cup": return cupIcon(cx, cy + r * 0.15, r);
    case "ship": return shipIcon(cx, cy, r);
    case "espresso": return espressoIcon(cx, cy, r);
    case "supply": return supplyIcon(cx, cy, r);
    case "cake": return cakeIcon(cx, cy, r, extra);
    default: return s("g");
  }
}

/** Cubes lying on a cell ("YY"): up to 4 drawn, more as a count. */
function cubesOn(text, x, y, size) {
  const g = s("g", { class: "cubes" });
  if (!text) return g;
  const n = text.length;
  const k = size * 0.26;
  if (n <= 4) {
    const spots = [[0.2, 0.62], [0.54, 0.62], [0.2, 0.28], [0.54, 0.28]];
    for (let i = 0; i < n; i++) g.append(cube(text[i], x + spots[i][0] * size, y + spots[i][1] * size, k));
  } else {
    g.append(cube(text[0], x + size * 0.3, y + size * 0.4, size * 0.36));
    g.append(s("text", { x: x + size * 0.48, y: y + size * 0.66, class: "cube-count" }, `×${n}`));
  }
  return g;
}

/** One card of the deck shown drawn on its own (draft display, the card in hand). */
export function cardSvg(cardId, { rot = 0 } = {}) {
  return drawCard(DATA.byId[cardId], { rot, id: cardId });
}

/** A card (`{id, cells, shops, star}` as the game data gives it) drawn on its own: the table's
 * cards and the card editor's (js/deckedit-cafe.js) are drawn by this one function. */
export function drawCard(card, { rot = 0, id = card && card.id } = {}) {
  const cardId = id;
  const size = 40;
  const tall = rot % 2 === 1;
  const w = (tall ? 2 : 3) * size;
  const hgt = (tall ? 3 : 2) * size;
  const svg = s("svg", { viewBox: `-2 -2 ${w + 4} ${hgt + 4}`, class: "card-svg", role: "img", "aria-label": titleOf(card, cardId), "data-card": cardId });
  tip(svg, "tip.cafe.card", wordsOf(card, cardId));
  if (!card) {
    svg.append(s("rect", { x: 0, y: 0, width: w, height: hgt, fill: "#ddd" }), s("text", { x: w / 2, y: hgt / 2, "text-anchor": "middle" }, cardId));
    return svg;
  }
  const shopCells = {};
  for (const f of footprint(0, 0, rot)) {
    const token = card.cells[f.r][f.c];
    const [y, x] = [f.at[0] * size, f.at[1] * size];
    svg.append(s("rect", { x, y, width: size, height: size, fill: cellFill(token), stroke: "#c9b59c" }));
    if (token.startsWith("shop-")) (shopCells[token.slice(5)] ||= []).push([f.at[0], f.at[1]]);
    else svg.append(cellIcon(token, x, y, size));
  }
  for (const [k, cellsOfShop] of Object.entries(shopCells)) {
    const shop = card.shops[k];
    svg.append(shopDrawing({ ...shop, cubes: "" }, cellsOfShop, 0, 0, size, false));
  }
  svg.append(s("rect", { x: 0, y: 0, width: w, height: hgt, fill: "none", stroke: "#6b4a2e", "stroke-width": 2, rx: 3 }));
  return svg;
}

/** A shop in words: "Porto 1909 — 2 VP, needs yellow, brown" (and lost, when it is). */
function shopWords(shop, lost = false) {
  return `${shopLabel(shop)} — ${t("cafe.shop_tooltip", { vp: shop.vp, requires: [...shop.requires].map(colourName).join(", ") })}${lost ? ` — ${t("cafe.shop_lost")}` : ""}`;
}

/** A card in words: its shops (or "plan card"), for its tooltip. */
function cardWords(cardId) {
  return wordsOf(DATA && DATA.byId[cardId], cardId);
}

function wordsOf(card, cardId) {
  if (!card) return cardId;
  const shops = Object.values(card.shops || {}).map((shop) => shopWords(shop));
  return `${shops.length ? shops.join(" / ") : t("cafe.plan_card")}${card.star ? " ★" : ""}`;
}

/** The legend key and the words of a cell of an area, for its tooltip. */
function cellTip(cell, info) {
  const kind = cell.cell.split("-")[0];
  const cubes = cell.cubes ? ` — ${tn("cafe.cubes_n", cell.cubes.length, colourParams(cell.cubes[0]))}` : "";
  if (kind === "shop") {
    const shop = info.shops[cell.shop];
    if (!shop) return ["help.cafe.legend.shop", cellName("shop")];
    const done = !shop.lost && shop.cubes.length === shop.requires.length && shop.requires.length > 0;
    const key = shop.lost ? "help.cafe.legend.shop_lost" : done ? "help.cafe.legend.shop_done" : "help.cafe.legend.shop";
    const have = shop.cubes ? ` — ${t("access.shop_has", { cubes: [...shop.cubes].map(colourName).join(", ") })}` : "";
    return [key, `${shopWords(shop, shop.lost)}${have}`];
  }
  const legend = {
    bean: cell.cubes ? "bean_cube" : "bean", dry: "dry", roast: "roast", cup: "cup", ship: "ship", empty: "empty",
    espresso: "espresso", supply: "supply", bonus: "bonus", cake: "cake",
  }[kind];
  return [legend ? `help.cafe.legend.${legend}` : "tip.cafe.cell", `${cellName(cell.cell)}${cubes}`];
}

export function cardTitle(cardId) {
  return titleOf(DATA && DATA.byId[cardId], cardId);
}

function titleOf(card, cardId) {
  if (!card) return cardId;
  const shops = Object.values(card.shops || {}).map(shopLabel);
  return shops.length ? shops.join(" / ") : t("cafe.plan_card");
}

/** A shop drawn over its visible cells: city, year, VP, required cubes (delivered ones filled). */
function shopDrawing(shop, positions, minR, minC, size, lost, pad = 0) {
  const rs = positions.map((p) => p[0]);
  const cs = positions.map((p) => p[1]);
  const x = (Math.min(...cs) - minC) * size + pad;
  const y = (Math.min(...rs) - minR) * size + pad;
  const w = (Math.max(...cs) - Math.min(...cs) + 1) * size;
  const hh = (Math.max(...rs) - Math.min(...rs) + 1) * size;
  const done = !lost && shop.cubes.length === shop.requires.length && shop.requires.length > 0;
  const g = s("g", { class: "shop" });
  g.append(s("rect", { x: x + 2, y: y + 2, width: w - 4, height: hh - 4, rx: 5, class: ["shop-box", done && "complete", lost && "lost"] }));
  const scale = size / 54;
  const city = shop.name || cityName(shop.city);
  const wide = w > size * 1.5;
  // the whole name, squeezed to the shop's width when it may be longer (at most ~0.65 em a letter)
  const room = w - 6 * scale;
  const squeeze = city.length * 9.5 * scale * 0.65 > room ? { textLength: room, lengthAdjust: "spacingAndGlyphs" } : {};
  g.append(s("text", { x: x + w / 2, y: y + 12 * scale, class: "shop-city", style: { "font-size": `${9.5 * scale}px` }, ...squeeze }, city));
  g.append(s("text", { x: x + w / 2, y: y + 21 * scale, class: "shop-year", style: { "font-size": `${8.5 * scale}px` } }, shop.year ? String(shop.year) : ""));
  // VP badge
  g.append(s("circle", { cx: x + w - 10 * scale, cy: y + hh - 10 * scale, r: 8 * scale, fill: lost ? "#9c8c7c" : "#8a5a2b" }));
  g.append(s("text", { x: x + w - 10 * scale, y: y + hh - 6.5 * scale, class: "shop-vp", style: { "font-size": `${10 * scale}px` } }, String(shop.vp)));
  // required cubes: filled when delivered
  const have = [...(shop.cubes || "")];
  const k = 9 * scale;
  const req = [...shop.requires];
  const perRow = wide ? 6 : 3;
  req.forEach((colour, i) => {
    const idx = have.indexOf(colour);
    const filled = idx >= 0;
    if (filled) have.splice(idx, 1);
    const cx = x + 5 * scale + (i % perRow) * (k + 2.5 * scale);
    const cy = y + 26 * scale + Math.floor(i / perRow) * (k + 2 * scale);
    g.append(s("rect", {
      x: cx, y: cy, width: k, height: k, rx: 2,
      fill: filled ? CUBE_COLOURS[colour] : "#fff", stroke: CUBE_COLOURS[colour], "stroke-width": filled ? 1 : 2,
      class: ["req", filled && "filled"], "data-req": colour,
    }), cubeMark(colour, cx, cy, k, filled ? CUBE_MARK_INK[colour] : CUBE_COLOURS[colour]));
  });
  if (lost) {
    g.append(s("line", { x1: x + 6, y1: y + 6, x2: x + w - 6, y2: y + hh - 6, class: "lost-x" }));
  }
  return g;
}

// ---- legal actions ---------------------------------------------------------------------------------
function parseAction(a) {
  let m;
  if ((m = /^take (\S+)(?: (pay) ([YBGR])| (discard))?$/.exec(a))) return { kind: "take", card: m[1], pay: m[3] || null, discard: !!m[4] };
  if ((m = /^place (-?\d+),(-?\d+) rot(\d+)$/.exec(a))) return { kind: "place", r: +m[1], c: +m[2], rot: +m[3] / 90 };
  if ((m = /^produce (-?\d+,-?\d+)$/.exec(a))) return { kind: "produce", cell: m[1] };
  if ((m = /^fill (-?\d+,-?\d+)(?: ([YBGR]))?$/.exec(a))) return { kind: "fill", cell: m[1], colour: m[2] || null };
  if ((m = /^(dry|roast) (-?\d+,-?\d+) ([YBGR])(?: from (-?\d+,-?\d+))?$/.exec(a))) return { kind: m[1], cell: m[2], colour: m[3], from: m[4] || null };
  if ((m = /^deliver (-?\d+,-?\d+) > (wh|-?\d+,-?\d+)$/.exec(a))) return { kind: "deliver", cell: m[1], to: m[2] };
  if ((m = /^clear (-?\d+,-?\d+)$/.exec(a))) return { kind: "clear", cell: m[1] };
  if (a === "end") return { kind: "end" };
  if ((m = /^bid ([YBGR])(?: ship (-?\d+,-?\d+))?$/.exec(a))) return { kind: "bid", colour: m[1], ship: m[2] || null };
  if (a === "bid done") return { kind: "bid-done" };
  if (a === "pass") return { kind: "pass" };
  return { kind: "other" };
}

export function createRenderer({ act, interactive = true, barExtras = null, boardTools = null }) {
  const el = h("div", { class: "cafe", id: "cafe" });
  const ui = { rot: 0, hover: null, locked: null, menu: null, pick: null, highlight: new Set(), hinted: null, handFor: null };
  let model = null;
  let parsed = [];
  let legalSet = new Set();
  let mine = null; // my area's analysis
  let areaSvg = null;
  let previewLayer = null;
  let placeInfo = null;
  let menuEl = null;
  let pendingFocus = null; // where the keyboard was when a move left (the menu's cell), for the redraw

  function send(action) {
    if (menuEl && menuEl.contains(document.activeElement) && ui.menu) pendingFocus = { selector: `[data-area="${model.seat}"] [data-cell="${ui.menu}"]` };
    else pendingFocus = focusIdentity(el) || pendingFocus;
    closeMenu();
    ui.locked = null;
    ui.hinted = null;
    return act(action);
  }

  const myView = () => (model && model.seat !== null ? model.view.seats[model.seat] : null);
  const myTurnToAct = () => interactive && model && model.legal.length > 0;

  // ---- placement -----------------------------------------------------------------------------
  function anchorFor(pr, pc, rot) {
    const tall = rot % 2 === 1;
    return [pr - (tall ? 1 : 0), pc - (tall ? 0 : 1)];
  }

  function placementAt(pr, pc) {
    const [R, C] = anchorFor(pr, pc, ui.rot);
    const action = `place ${R},${C} rot${ui.rot * 90}`;
    const cells = footprint(R, C, ui.rot);
    const covered = cells.filter((f) => mine.cells.has(key(...f.at))).length;
    const card = DATA.byId[myView().hand];
    let cupsLeft = 0;
    for (const [k, cell] of mine.cells) if (cell.cell === "cup" && !cells.some((f) => key(...f.at) === k)) cupsLeft++;
    const ok = legalSet.has(action);
    // what the card would take away: shops with a covered cell are lost, cubes go back
    const coveredKeys = new Set(cells.map((f) => key(...f.at)).filter((k) => mine.cells.has(k)));
    const lostShops = mine.shops.filter((sh) => !sh.lost && sh.visible.some(([r, c]) => coveredKeys.has(key(r, c))));
    const returned = [];
    for (const k of coveredKeys) {
      const cell = mine.cells.get(k);
      if (cell.cubes) returned.push(...cell.cubes);
    }
    for (const sh of lostShops) returned.push(...(sh.cubes || ""));
    let reason = null;
    if (!ok) {
      if (covered < 2 || covered > 4) reason = t("cafe.place_bad_cover", { n: covered });
      else if (!(card && card.cup) && cupsLeft === 0) reason = t("cafe.place_bad_cup");
      else reason = t("cafe.place_bad");
    }
    return { R, C, action, cells, covered, ok, reason, lostShops, returned };
  }

  function drawPreview() {
    if (!previewLayer) return;
    previewLayer.replaceChildren();
    const pos = ui.locked || ui.hover;
    const view = myView();
    if (!pos || !view || !view.hand) {
      updatePlaceInfo(null);
      return;
    }
    const p = placementAt(pos[0], pos[1]);
    const card = DATA.byId[view.hand];
    const { minR, minC, pad } = areaSvg.geometry;
    const shopCells = {};
    for (const f of p.cells) {
      const x = (f.at[1] - minC) * CS + pad;
      const y = (f.at[0] - minR) * CS + pad;
      const token = card.cells[f.r][f.c];
      const g = s("g", { class: "preview-cell", opacity: 0.88 });
      g.append(s("rect", { x, y, width: CS, height: CS, fill: cellFill(token), stroke: "#c9b59c" }));
      if (!token.startsWith("shop-")) g.append(cellIcon(token, x, y, CS));
      else (shopCells[token.slice(5)] ||= []).push(f.at);
      if (mine.cells.has(key(...f.at))) g.append(s("rect", { x: x + 3, y: y + 3, width: CS - 6, height: CS - 6, fill: "none", stroke: p.ok ? "rgba(31,157,85,.6)" : "rgba(208,52,44,.7)", "stroke-width": 2, "stroke-dasharray": "3 3" }));
      previewLayer.append(g);
    }
    for (const [k, positions] of Object.entries(shopCells)) {
      const drawing = shopDrawing({ ...card.shops[k], cubes: "" }, positions, minR, minC, CS, false, pad);
      drawing.setAttribute("opacity", "0.9");
      drawing.setAttribute("pointer-events", "none");
      previewLayer.append(drawing);
    }
    const xs = p.cells.map((f) => f.at[1]);
    const ys = p.cells.map((f) => f.at[0]);
    const x0 = (Math.min(...xs) - minC) * CS + pad;
    const y0 = (Math.min(...ys) - minR) * CS + pad;
    const w = (Math.max(...xs) - Math.min(...xs) + 1) * CS;
    const hh = (Math.max(...ys) - Math.min(...ys) + 1) * CS;
    previewLayer.append(s("rect", { x: x0, y: y0, width: w, height: hh, rx: 4, class: ["preview-frame", p.ok ? "ok" : "bad"], "data-legal": p.ok ? "yes" : "no" }));
    for (const sh of p.lostShops) {
      // the shop this placement would cost, outlined in the warning colour
      const rs = sh.visible.map(([r]) => r);
      const cs = sh.visible.map(([, c]) => c);
      previewLayer.append(s("rect", {
        x: (Math.min(...cs) - minC) * CS + pad - 2, y: (Math.min(...rs) - minR) * CS + pad - 2,
        width: (Math.max(...cs) - Math.min(...cs) + 1) * CS + 4, height: (Math.max(...rs) - Math.min(...rs) + 1) * CS + 4,
        rx: 6, class: "shop-warn", "data-shop-warn": sh.index,
      }));
    }
    if (!p.ok) {
      previewLayer.append(s("path", { d: `M${x0 + 8} ${y0 + 8}L${x0 + w - 8} ${y0 + hh - 8}M${x0 + w - 8} ${y0 + 8}L${x0 + 8} ${y0 + hh - 8}`, stroke: "rgba(208,52,44,.55)", "stroke-width": 4 }));
    }
    updatePlaceInfo(p);
  }

  function updatePlaceInfo(p) {
    if (!placeInfo) return;
    if (!p) {
      mount(placeInfo, t("cafe.place_move_pointer"));
      placeInfo.className = "place-info muted";
      return;
    }
    placeInfo.className = `place-info ${p.ok ? "ok" : "bad"}`;
    const costs = [];
    for (const sh of p.lostShops) costs.push(h("span", { class: "cost-line" }, tn("cafe.place_loses_shop", sh.vp, { shop: shopLabel(sh) })));
    if (p.returned.length) {
      const counts = COLOURS.map((c) => [c, p.returned.filter((x) => x === c).length]).filter(([, n]) => n);
      costs.push(h("span", { class: "cost-line" }, tn("cafe.place_returns", p.returned.length), " ",
        counts.map(([c, n]) => h("span", { class: "cube-count", title: colourName(c) }, cubeSvg(c, 12), `×${n} `))));
    }
    mount(placeInfo, tn("cafe.covers", p.covered), " — ", p.ok ? t(ui.locked ? "cafe.place_confirm_now" : "cafe.place_ok") : p.reason,
      p.ok && costs.length ? h("span", { class: "place-warning", id: "place-warning", role: "alert" }, costs) : null);
  }

  function pointerCell(event) {
    const pt = areaSvg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    const ctm = areaSvg.getScreenCTM();
    if (!ctm) return null;
    const loc = pt.matrixTransform(ctm.inverse());
    const { minR, minC, pad } = areaSvg.geometry;
    return [Math.floor((loc.y - pad) / CS) + minR, Math.floor((loc.x - pad) / CS) + minC];
  }

  function placementClick(cell) {
    const p = placementAt(cell[0], cell[1]);
    if (!p.ok) {
      ui.locked = null;
      ui.hover = cell;
      drawPreview();
      import("./shell.js").then((m) => m.toast(`${t("cafe.place_refused")} ${p.reason}`, "warn"));
      return;
    }
    ui.locked = cell;
    drawPreview();
    renderBar();
  }

  /** The pointer cell of the first good spot for the card as it is turned now (keyboard start). */
  function firstSpot() {
    const p = parsed.find((x) => x.kind === "place" && x.rot === ui.rot) || parsed.find((x) => x.kind === "place");
    if (!p) return [0, 0];
    const tall = ui.rot % 2 === 1;
    return [p.r + (tall ? 1 : 0), p.c + (tall ? 0 : 1)];
  }

  /** Arrow keys between the cells that can be clicked: the nearest one in the arrow's way. */
  function cellArrows(event) {
    const step = arrowStep(event);
    if (!step) return;
    const svg = event.currentTarget.ownerSVGElement;
    const [r0, c0] = parsePos(event.currentTarget.dataset.cell);
    let best = null;
    for (const node of svg.querySelectorAll(".cell[tabindex='0']")) {
      const [r, c] = parsePos(node.dataset.cell);
      const along = (r - r0) * step[0] + (c - c0) * step[1];
      if (along <= 0) continue;
      const across = Math.abs((r - r0) * step[1]) + Math.abs((c - c0) * step[0]);
      const score = along + 2 * across;
      if (!best || score < best[0]) best = [score, node];
    }
    event.preventDefault();
    if (best) best[1].focus();
  }

  function rotate() {
    ui.rot = (ui.rot + 1) % 4;
    if (ui.locked && !placementAt(...ui.locked).ok) ui.locked = null;
    render();
  }

  // ---- cell options (actions stage, auction ships) ---------------------------------------------
  function isFree(p) {
    const me = myView();
    const open = me && me.open;
    if (me && me.pending) return true;
    if (!open) return false;
    if (p.kind === "deliver") return open.kind === "deliver";
    if ((p.kind === "dry" || p.kind === "roast") && open.kind === p.kind) {
      const inGroup = open.group.some(([r, c]) => key(r, c) === p.cell);
      if (!inGroup) return false;
      const filled = open.cells.some(([r, c]) => key(r, c) === p.cell);
      if (filled) {
        const cell = mine.cells.get(p.cell);
        return !!(cell && cell.cubes && cell.cubes[0] === p.colour);
      }
      return !open.colours.includes(p.colour);
    }
    return false;
  }

  function optionLabel(p) {
    const view = myView();
    const cell = (k) => mine.cells.get(k);
    switch (p.kind) {
      case "produce": return t("cafe.opt_produce");
      case "fill": return p.colour ? t("cafe.opt_fill_colour", colourParams(p.colour)) : t("cafe.opt_fill");
      case "dry":
      case "roast": {
        const verb = p.kind === "dry" ? "dry" : "roast";
        if (p.from) {
          const src = cell(p.from);
          const n = src && src.cubes ? src.cubes.length : 1;
          return tn(`cafe.opt_${verb}_from`, n, colourParams(p.colour));
        }
        return t(`cafe.opt_${verb}_all`, colourParams(p.colour));
      }
      case "deliver": {
        const src = cell(p.cell);
        const c = colourParams(src && src.cubes ? src.cubes[0] : "");
        if (p.to === "wh") return t("cafe.opt_deliver_wh", c);
        const dest = cell(p.to);
        if (dest && dest.cell === "shop") {
          const shop = view.area.shops[dest.shop];
          return t("cafe.opt_deliver_shop", { ...c, shop: shopLabel(shop) });
        }
        return t("cafe.opt_deliver_espresso", c);
      }
      case "clear": return t("cafe.opt_clear");
      case "bid": return p.ship ? t("cafe.opt_bid_ship", colourParams(p.colour)) : t("cafe.opt_bid", colourParams(p.colour));
      default: return "";
    }
  }

  /** The cells an option is about, and where it is offered. */
  function optionCells(p) {
    switch (p.kind) {
      case "produce": {
        const group = mine.groupOf.get(p.cell);
        return { offer: group ? [...group] : [p.cell], marks: group ? [...group] : [p.cell] };
      }
      case "fill":
      case "clear":
        return { offer: [p.cell], marks: [p.cell] };
      case "dry":
      case "roast": {
        // offered on the cell that receives the cubes (the dry or roast group clicked)
        const sources = p.from ? [p.from] : [...mine.cells].filter(([, c]) => c.cubes && c.cubes[0] === p.colour && family(c.cell) === (p.kind === "dry" ? 1 : 2)).map(([k]) => k);
        return { offer: [p.cell], marks: [p.cell, ...sources] };
      }
      case "deliver": {
        // offered on the roast cell the cube comes from, with its destinations
        let dest = [];
        if (p.to !== "wh") {
          const d = mine.cells.get(p.to);
          dest = d && d.cell === "shop" ? mine.shops[d.shop].visible.map(([r, c]) => key(r, c)) : [p.to];
        }
        return { offer: [p.cell], marks: [p.cell, ...dest] };
      }
      case "bid":
        return p.ship ? { offer: [p.ship], marks: [p.ship] } : { offer: [], marks: [] };
      default:
        return { offer: [], marks: [] };
    }
  }

  /** The menu items of a cell: one per legal notation, except that several "dry/roast
   * T C from S" become one item whose source is then picked by clicking it. */
  function optionsFor(cellKey) {
    const out = [];
    const picks = new Map(); // "dry Y" -> item
    for (const p of parsed) {
      if (!["produce", "fill", "dry", "roast", "deliver", "clear", "bid"].includes(p.kind)) continue;
      const { offer, marks } = optionCells(p);
      if (!offer.includes(cellKey)) continue;
      const item = { ...p, marks, free: isFree(p) || p.kind === "clear" };
      if ((p.kind === "dry" || p.kind === "roast") && p.from) {
        const k = `${p.kind} ${p.colour}`;
        if (!picks.has(k)) {
          const group = { ...item, notation: null, sources: new Map(), marks: [p.cell] };
          picks.set(k, group);
          out.push(group);
        }
        const group = picks.get(k);
        group.sources.set(p.from, p.notation);
        group.marks.push(p.from);
        continue;
      }
      out.push(item);
    }
    for (const group of picks.values()) {
      if (group.sources.size === 1) {
        const [[from, notation]] = [...group.sources];
        Object.assign(group, { from, notation, sources: null });
      }
    }
    const order = { fill: 0, deliver: 1, produce: 2, dry: 3, roast: 4, bid: 5, clear: 9 };
    return out.sort((a, b) => order[a.kind] - order[b.kind]);
  }

  /** Pick mode: the player clicks one of the highlighted source cells. */
  function startPick(item) {
    pendingFocus = { selector: null }; // the keyboard goes on to the cells to pick from
    closeMenu();
    ui.pick = {
      targets: item.sources,
      marks: [item.cell],
      prompt: t(item.kind === "dry" ? "cafe.pick_bean" : "cafe.pick_dry", colourParams(item.colour)),
    };
    render();
  }

  function cancelPick() {
    pendingFocus = focusIdentity(el) || { selector: null };
    ui.pick = null;
    render();
  }

  function closeMenu() {
    if (menuEl) menuEl.remove();
    menuEl = null;
    ui.menu = null;
    setMarks([]);
  }

  function setMarks(list) {
    ui.highlight = new Set(list);
    if (!areaSvg) return;
    for (const g of areaSvg.querySelectorAll(".cell")) g.classList.toggle("selected", ui.highlight.has(g.dataset.cell));
  }

  function openMenu(cellKey, event) {
    const options = optionsFor(cellKey);
    closeMenu();
    if (!options.length) return;
    ui.menu = cellKey;
    const cell = mine.cells.get(cellKey);
    const box = el.closest(".board-box") || el;
    const rect = box.getBoundingClientRect();
    // beside my area when there is room, so that the marked cells stay in sight
    const area = areaSvg ? areaSvg.getBoundingClientRect() : null;
    let x = event ? event.clientX - rect.left + 8 : 20;
    let y = event ? event.clientY - rect.top + 8 : 20;
    if (area && area.right - rect.left + 250 < rect.width) {
      x = area.right - rect.left + 10;
      y = Math.max(0, (event ? event.clientY : area.top) - rect.top - 20);
    }
    menuEl = h("div", { class: "menu", role: "menu", id: "action-menu", style: { left: `${Math.max(0, Math.min(x, rect.width - 240))}px`, top: `${y}px` } },
      h("h3", {}, cell ? cellName(cell.cell === "shop" ? "shop" : cell.cell) : ""),
      options.map((o) => {
        const label = o.sources ? t(`cafe.opt_${o.kind}_pick`, colourParams(o.colour)) : optionLabel(o);
        const b = button(label, () => (o.sources ? startPick(o) : send(o.notation)), {
          role: "menuitem", class: ["cost", o.free && "free"], "data-action": o.notation || `${o.kind} ${o.cell} ${o.colour} from ?`,
          "data-cost": o.free ? t("cafe.free") : t("cafe.one_ap"),
        });
        b.addEventListener("mouseenter", () => setMarks(o.marks));
        b.addEventListener("focus", () => setMarks(o.marks));
        return b;
      }),
      button(t("cafe.cancel"), closeMenu, { class: "cancel", id: "menu-cancel" }));
    menuEl.addEventListener("keydown", (event) => {
      // up and down go through the menu's items, Escape closes it and goes back to the cell
      const items = [...menuEl.querySelectorAll("button")];
      const at = items.indexOf(document.activeElement);
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const next = (at + (event.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
        items[next].focus();
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        closeMenu();
        el.querySelector(`[data-area="${model.seat}"] [data-cell="${cellKey}"]`)?.focus();
      }
    });
    box.appendChild(menuEl);
    setMarks([cellKey]);
    const first = menuEl.querySelector("button");
    if (first) first.focus({ preventScroll: true });
  }

  // ---- drawing an area -------------------------------------------------------------------------
  function areaDrawing(seat, { interactive: live, scale = 1 }) {
    const view = model.view.seats[seat];
    const info = analyse(view.area);
    const placing = live && view.stage === "place" && view.hand && parsed.some((p) => p.kind === "place");
    const margin = placing ? 2 : 0;
    const pad = 6;
    const minR = info.rows[0] - margin;
    const minC = info.cols[0] - margin;
    const rowsN = info.rows[1] - info.rows[0] + 1 + 2 * margin;
    const colsN = info.cols[1] - info.cols[0] + 1 + 2 * margin;
    const W = colsN * CS + 2 * pad;
    const H = rowsN * CS + 2 * pad;
    const svg = s("svg", {
      viewBox: `0 0 ${W} ${H}`, class: "area-svg", "data-area": seat,
      width: Math.round(W * scale), height: Math.round(H * scale),
      style: { width: `calc(${Math.round(W * scale)}px * var(--zoom))`, height: `calc(${Math.round(H * scale)}px * var(--zoom))` },
      // my area holds cells that can be clicked (buttons): a group, not a picture
      role: live ? "group" : "img", "aria-label": t("cafe.area_of", { name: seatName(model.table.seats[seat], seat) }),
    });
    svg.geometry = { minR, minC, pad };
    if (placing) {
      for (let r = 0; r < rowsN; r++) {
        for (let c = 0; c < colsN; c++) {
          svg.append(s("rect", { x: pad + c * CS, y: pad + r * CS, width: CS, height: CS, fill: "none", stroke: "#e0d2bf", "stroke-dasharray": "2 3" }));
        }
      }
    }
    const offered = new Set();
    const pick = live && ui.pick ? ui.pick : null;
    if (pick) {
      for (const k of pick.targets.keys()) offered.add(k);
    } else if (live) {
      for (const p of parsed) for (const k of optionCells(p).offer) offered.add(k);
    }
    const me = view;
    const openCells = new Set((me.open ? me.open.group : []).map(([r, c]) => key(r, c)));
    const hintCells = new Set();
    if (live && ui.hinted) {
      const p = parseAction(ui.hinted);
      for (const k of optionCells({ ...p, notation: ui.hinted }).marks || []) hintCells.add(k);
    }
    for (const [k, cell] of info.cells) {
      const [r, c] = parsePos(k);
      const x = (c - minC) * CS + pad;
      const y = (r - minR) * CS + pad;
      const clickable = live && offered.has(k) && !placing;
      const [tipKey, words] = cellTip(cell, info);
      const g = s("g", {
        class: ["cell", `cell-${cell.cell.split("-")[0]}`, clickable && "clickable", pick && clickable && "pick", openCells.has(k) && "open-action", (ui.highlight.has(k) || (pick && pick.marks.includes(k))) && "selected", hintCells.has(k) && "hinted"],
        "data-cell": k, "data-kind": cell.cell, tabindex: clickable ? 0 : null, role: clickable ? "button" : null,
        "aria-label": clickable ? words : null, "aria-haspopup": clickable && !pick ? "menu" : null,
      });
      tip(g, tipKey, words);
      g.append(s("rect", { x, y, width: CS, height: CS, fill: cellFill(cell.cell), class: "cell-bg" }));
      if (cell.cell !== "shop") g.append(cellIcon(cell.cell, x, y, CS));
      g.append(cubesOn(cell.cubes, x, y, CS));
      if (clickable) g.addEventListener("keydown", cellArrows);
      if (clickable && pick) {
        const choose = (event) => {
          event.stopPropagation();
          const notation = pick.targets.get(k);
          ui.pick = null;
          send(notation);
        };
        g.addEventListener("click", choose);
        onActivate(g, choose);
      } else if (clickable) {
        g.addEventListener("click", (event) => { event.stopPropagation(); openMenu(k, event); });
        g.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            const rect = g.getBoundingClientRect();
            openMenu(k, { clientX: rect.right, clientY: rect.top });
          }
        });
      }
      svg.append(g);
    }
    // shops over their cells
    for (const shop of info.shops) {
      if (!shop.visible.length) continue;
      const drawing = shopDrawing(shop, shop.visible, minR, minC, CS, shop.lost, pad);
      drawing.setAttribute("pointer-events", "none");
      svg.append(drawing);
    }
    // card edges: between cells of different cards
    const edges = [];
    for (const [k] of info.cells) {
      const [r, c] = parsePos(k);
      const o = info.owner.get(k);
      const x = (c - minC) * CS + pad;
      const y = (r - minR) * CS + pad;
      const sides = [[-1, 0, x, y, x + CS, y], [1, 0, x, y + CS, x + CS, y + CS], [0, -1, x, y, x, y + CS], [0, 1, x + CS, y, x + CS, y + CS]];
      for (const [dr, dc, x1, y1, x2, y2] of sides) {
        const nk = key(r + dr, c + dc);
        if (!info.cells.has(nk) || info.owner.get(nk) !== o) edges.push(`M${x1} ${y1}L${x2} ${y2}`);
      }
    }
    svg.append(s("path", { d: edges.join(""), class: "card-edge" }));
    if (placing) {
      const spots = s("g", { class: "spots" });
      for (let r = minR; r < minR + rowsN; r++) {
        for (let c = minC; c < minC + colsN; c++) {
          const [R, C] = anchorFor(r, c, ui.rot);
          if (legalSet.has(`place ${R},${C} rot${ui.rot * 90}`)) {
            spots.append(s("circle", { cx: (c - minC) * CS + pad + CS / 2, cy: (r - minR) * CS + pad + CS / 2, r: 5, class: "spot", "data-spot": key(r, c) }));
          }
        }
      }
      svg.append(spots);
      previewLayer = s("g", { class: "preview" });
      svg.append(previewLayer);
      svg.addEventListener("pointermove", (event) => {
        if (ui.locked || svg !== areaSvg) return;
        const cell = pointerCell(event);
        if (!cell || (ui.hover && cell[0] === ui.hover[0] && cell[1] === ui.hover[1])) return;
        ui.hover = cell;
        drawPreview();
      });
      svg.addEventListener("pointerleave", (event) => {
        // a drawing replaced by a newer one (another seat moved) is not where the pointer
        // went, and redrawing the preview under the pointer is no leaving either
        if (svg !== areaSvg || !svg.isConnected) return;
        const rect = svg.getBoundingClientRect();
        if (event.clientX > rect.left && event.clientX < rect.right && event.clientY > rect.top && event.clientY < rect.bottom) return;
        if (!ui.locked) {
          ui.hover = null;
          drawPreview();
        }
      });
      svg.addEventListener("click", (event) => {
        const cell = pointerCell(event);
        if (cell) placementClick(cell);
      });
      // the keyboard: arrows move the card, R turns it, Enter fixes the spot, Enter again confirms
      svg.classList.add("placing");
      svg.setAttribute("tabindex", "0");
      svg.setAttribute("role", "application");
      svg.setAttribute("aria-roledescription", t("access.placing_role"));
      svg.setAttribute("aria-label", `${t("cafe.area_of", { name: seatName(model.table.seats[seat], seat) })} — ${t("access.place_keys")}`);
      svg.addEventListener("focus", () => {
        if (!ui.hover && !ui.locked) {
          ui.hover = firstSpot();
          drawPreview();
        }
      });
      svg.addEventListener("keydown", (event) => {
        const step = arrowStep(event);
        if (step) {
          event.preventDefault();
          const from = ui.locked || ui.hover || firstSpot();
          if (ui.locked) {
            ui.locked = null;
            renderBar();
          }
          const r = Math.min(minR + rowsN - 1, Math.max(minR, from[0] + step[0]));
          const c = Math.min(minC + colsN - 1, Math.max(minC, from[1] + step[1]));
          ui.hover = [r, c];
          drawPreview();
        } else if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          if (ui.locked) {
            const p = placementAt(...ui.locked);
            if (p.ok) send(p.action);
          } else {
            placementClick(ui.hover || firstSpot());
          }
        }
      });
      svg.style.cursor = "crosshair";
    }
    return svg;
  }

  // ---- panels ------------------------------------------------------------------------------------
  function warehouseBox(seat) {
    const v = model.view.seats[seat];
    const cups = countCells(v.area, "cup");
    const ships = countCells(v.area, "ship");
    return h("div", { class: "warehouse", "data-warehouse": seat },
      tip(h("div", { class: "row" }, h("strong", {}, t("cafe.warehouse"))), "tip.cafe.warehouse"),
      h("div", { class: "wh-cubes" }, COLOURS.map((c) => tip(
        h("span", { "data-colour": c, role: "img", "aria-label": `${t("cafe.warehouse")}: ${tn("cafe.cubes_n", v.warehouse[c], colourParams(c))}` }, cubeSvg(c, 14), String(v.warehouse[c])),
        "tip.cafe.warehouse", `${t("cafe.warehouse")}: ${tn("cafe.cubes_n", v.warehouse[c], colourParams(c))}`))),
      tip(h("div", { class: "row" }, h("span", {}, t("cafe.ap")), h("span", { class: "ap", "data-ap": seat }, String(v.ap)),
        h("span", { class: "ap-dots", "aria-hidden": "true" }, Array.from({ length: 8 }, (_, i) => h("i", { class: i < v.ap ? "on" : null })))),
      "tip.cafe.ap", t("cafe.ap_n", { n: v.ap })),
      tip(h("div", { class: "row muted" }, tn("cafe.cups_visible", cups)), "help.cafe.legend.cup", tn("cafe.cups_visible", cups)),
      tip(h("div", { class: "row muted" }, tn("cafe.ships_visible", ships)), "help.cafe.legend.ship", tn("cafe.ships_visible", ships)));
  }

  function countCells(area, kind) {
    return area.cells.filter((c) => c.cell === kind).length;
  }

  function areaCard(seat) {
    const v = model.view.seats[seat];
    const live = interactive && seat === model.seat;
    const isMaster = model.view.master === seat;
    const stageKey = model.view.phase === "turns" ? `cafe.stage_${v.stage}` : null;
    const score = model.view.scores[seat];
    const lostShops = analyse(v.area).shops.filter((x) => x.lost).length;
    return h("section", { class: ["area-card", seat === model.seat && "mine"], "data-seat": seat, style: { "--seat": SEAT_COLOURS[seat % 4] } },
      h("header", {},
        h("span", { class: "dot", style: { background: SEAT_COLOURS[seat % 4] } }),
        h("strong", { class: "seat-name" }, seatName(model.table.seats[seat], seat)),
        h("span", { class: "company" }, companyName(v.company)),
        isMaster ? tip(h("span", { class: "tag master-tag" }, t("cafe.master")), "help.cafe.legend.master", t("cafe.master_help")) : null,
        stageKey ? tip(h("span", { class: ["stage", v.stage] }, t(stageKey)), "tip.cafe.stage", t(stageKey)) : null,
        v.hand ? tip(h("span", { class: "tag" }, t("cafe.holds", { card: cardTitle(v.hand) })), "tip.cafe.card", cardWords(v.hand)) : null,
        lostShops ? tip(h("span", { class: "muted" }, tn("cafe.lost_shops", lostShops)), "help.cafe.legend.shop_lost", tn("cafe.lost_shops", lostShops)) : null,
        tip(h("span", { class: "muted score-now" }, t("cafe.score_now", { n: score.total })), "tip.cafe.score",
          `${t("cafe.score_now", { n: score.total })}${Object.keys(score.parts).length ? ` (${Object.entries(score.parts).map(([k, n]) => `${partName(k)}: ${n}`).join(", ")})` : ""}`),
        boardTools ? boardTools(seat) : null),
      h("div", { class: "area-body" },
        h("div", { class: "area-scroll" }, (() => {
          const svg = areaDrawing(seat, { interactive: live, scale: seat === model.seat ? 1.15 : 0.72 });
          if (live) areaSvg = svg;
          return svg;
        })()),
        warehouseBox(seat)));
  }

  function draftPanel() {
    const view = model.view;
    if (view.phase !== "draft" && view.phase !== "auction") return null;
    const takes = parsed.filter((p) => p.kind === "take");
    const me = myView();
    return h("section", { class: "card draft-panel", id: "draft" },
      h("h2", {}, t(view.phase === "auction" ? "cafe.display_auction" : "cafe.display")),
      view.phase === "draft" ? h("p", { class: "muted", id: "draft-order" }, t("cafe.draft_order"), " ",
        view.draft_order.map((i, k) => [k ? " → " : "", h("span", { class: "seat-name" }, seatName(model.table.seats[i], i))])) : null,
      h("div", { class: "draft" }, view.display.map((id) => {
        const card = DATA.byId[id];
        const options = takes.filter((p) => p.card === id);
        const free = card && !card.cup;
        let cost;
        if (view.variant === "advanced" || view.options.variant === "advanced") cost = t("cafe.cost_free_advanced");
        else if (free) cost = t("cafe.cost_free");
        else if (me && countCells(me.area, "ship") >= 2) cost = t("cafe.cost_ships");
        else cost = t("cafe.cost_cube");
        return h("div", { class: ["draft-card", options.length && "can-take"], "data-card": id },
          cardSvg(id),
          h("span", { class: "card-title" }, cardTitle(id), card && card.star ? tip(h("span", { class: "card-star", role: "img", "aria-label": "★" }, " ★"), "help.cafe.legend.star") : null),
          tip(h("span", { class: "cost" }, cost), "tip.cafe.cost", cost),
          options.length ? h("div", { class: "takes" }, options.map((p) => button(
            p.discard ? t("cafe.take_discard") : p.pay ? [t("cafe.pay"), " ", cubeSvg(p.pay, 12), " ", colourName(p.pay)] : t("cafe.take"),
            () => send(p.notation), {
              class: ["small", !p.discard && "primary"], "data-action": p.notation, title: p.discard ? t("cafe.take_discard_help") : null,
              // several cards have a "Take" button: the name says which card (and keeps the visible words first)
              "aria-label": `${p.discard ? t("cafe.take_discard") : p.pay ? `${t("cafe.pay")} ${colourName(p.pay)}` : t("cafe.take")} — ${cardTitle(id)}`,
            }))) : null);
      })));
  }

  function auctionPanel() {
    const view = model.view;
    if (view.phase !== "auction" || !view.auction) return null;
    const a = view.auction;
    const bids = parsed.filter((p) => p.kind === "bid" && !p.ship);
    const shipBids = parsed.filter((p) => p.kind === "bid" && p.ship);
    const done = parsed.find((p) => p.kind === "bid-done");
    const pass = parsed.find((p) => p.kind === "pass");
    return h("section", { class: "card auction-panel", id: "auction" },
      h("h2", {}, t("cafe.auction")),
      h("p", { class: "muted" }, t("cafe.auction_help")),
      h("div", { class: "auction" }, model.table.seats.map((seat, i) => h("span", { class: ["stake", a.passed[i] && "passed"], "data-stake": i },
        h("span", { class: "seat-name" }, seatName(seat, i)), ": ", tn("cafe.stake", a.stakes[i]),
        a.bidder === i ? h("strong", {}, ` ← ${t("cafe.bidding")}`) : null))),
      a.bid_open ? h("p", {}, tn("cafe.bid_open", a.bid_open)) : null,
      parsed.length ? h("div", { class: "takes" },
        bids.map((p) => button([t("cafe.bid"), " ", cubeSvg(p.colour, 12), " ", colourName(p.colour)], () => send(p.notation), { class: "small", "data-action": p.notation })),
        shipBids.map((p) => button([t("cafe.bid_ship"), " ", cubeSvg(p.colour, 12), " ", colourName(p.colour)], () => send(p.notation), {
          class: "small", "data-action": p.notation,
          onmouseenter: () => setMarks([p.ship]), onmouseleave: () => setMarks([]),
          onfocus: () => setMarks([p.ship]), onblur: () => setMarks([]),
        })),
        done ? button(t("cafe.bid_done"), () => send(done.notation), { class: "small primary", "data-action": "bid done" }) : null,
        pass ? button(t("cafe.pass"), () => send(pass.notation), { class: "small", "data-action": "pass" }) : null) : null);
  }

  function instruction() {
    const view = model.view;
    const me = myView();
    const names = (list) => list.map((i) => seatName(model.table.seats[i], i)).join(", ");
    if (view.over) return t("table.game_over");
    if (!interactive) return t("replay.to_move", { names: names(view.current_seats) }); // a replay waits for nobody
    if (view.phase === "auction") {
      return myTurnToAct() ? t("cafe.do_bid") : t("cafe.they_bid", { name: names([view.auction.bidder]) });
    }
    if (view.phase === "draft") {
      return myTurnToAct() ? t("cafe.do_take") : t("cafe.they_take", { name: names(view.draft_order.slice(0, 1)) });
    }
    if (!me || !myTurnToAct()) {
      const busy = view.current_seats.filter((i) => i !== model.seat);
      if (me && me.stage === "done") return t("cafe.you_done", { names: names(busy) });
      return t("cafe.they_act", { names: names(busy) });
    }
    if (me.stage === "place") return t("cafe.do_place");
    if (me.pending && me.pending.deliver) return t("cafe.do_pending_deliver");
    if (me.pending && me.pending.fill) return t("cafe.do_pending_fill", { cubes: [...me.pending.fill].map(colourName).join(", ") });
    if (me.pending && me.pending.supply) return t("cafe.do_pending_supply");
    return tn("cafe.do_act", me.ap);
  }

  let barEl = null;
  function renderBar() {
    if (!barEl) return;
    const me = myView();
    const placing = myTurnToAct() && me && me.stage === "place" && parsed.some((p) => p.kind === "place");
    const end = parsed.find((p) => p.kind === "end");
    placeInfo = placing ? h("span", { class: "place-info muted", id: "place-info" }) : null;
    if (ui.pick) {
      mount(barEl,
        h("p", { class: ["instruction", "mine"], id: "instruction" }, ui.pick.prompt),
        button(t("cafe.cancel"), cancelPick, { id: "cancel-pick" }),
        barExtras);
      return;
    }
    mount(barEl,
      h("p", { class: ["instruction", myTurnToAct() && "mine"], id: "instruction" }, instruction()),
      placing ? tip(h("span", { class: "hand-card" }, cardSvg(me.hand, { rot: ui.rot })), "tip.cafe.hand", cardWords(me.hand)) : null,
      placing ? button(t("cafe.rotate"), rotate, { id: "rotate", title: t("cafe.rotate_help") }) : null,
      placeInfo,
      placing && ui.locked ? button(t("cafe.confirm_place"), () => {
        if (!ui.locked) return null; // a second click: the first one sent it already
        const p = placementAt(...ui.locked);
        return p.ok ? send(p.action) : null;
      }, { class: "primary", id: "confirm-place" }) : null,
      placing && ui.locked ? button(t("cafe.cancel"), () => { ui.locked = null; renderBar(); drawPreview(); }, { id: "cancel-place" }) : null,
      end ? button(tn("cafe.end_turn", me ? me.ap : 0), () => {
        if (me && me.ap > 0 && !confirm(tn("cafe.end_confirm", me.ap))) return null;
        return send("end");
      }, { id: "end-turn", class: me && me.ap === 0 ? "primary" : "" }) : null,
      barExtras);
    if (placing) drawPreview();
  }

  function roundInfo() {
    const view = model.view;
    return h("div", { class: "round-info status-bar" },
      tip(h("strong", { id: "round" }, t("cafe.round", { n: view.round, total: view.rounds ?? 8 })), "tip.cafe.round", t("cafe.round", { n: view.round, total: view.rounds ?? 8 })),
      tip(h("span", {}, t(`cafe.phase_${view.phase}`)), "tip.cafe.phase", t(`cafe.phase_${view.phase}`)),
      tip(h("span", {}, t("cafe.master_is", { name: seatName(model.table.seats[view.master], view.master) })), "help.cafe.legend.master"),
      tip(h("span", { id: "deck-size" }, tn("cafe.deck", view.deck_size)), "tip.cafe.deck", tn("cafe.deck", view.deck_size)),
      h("span", { class: "supply-cubes" }, t("cafe.supply"), ": ",
        COLOURS.map((c) => tip(h("span", { "data-supply": c, role: "img", "aria-label": `${t("cafe.supply")}: ${tn("cafe.cubes_n", view.supply[c], colourParams(c))}` }, cubeSvg(c, 12), String(view.supply[c])),
          "tip.cafe.supply", `${t("cafe.supply")}: ${tn("cafe.cubes_n", view.supply[c], colourParams(c))}`))));
  }

  function legend() {
    const kinds = ["bean-Y", "dry", "roast", "cup", "ship", "shop"];
    if (model.view.options.espresso) kinds.push("espresso", "supply", "bonus-R", "cake-2");
    return h("details", { class: "legend-box" }, h("summary", {}, t("cafe.legend")),
      h("div", { class: "legend" }, kinds.map((k) => h("span", {},
        s("svg", { width: 22, height: 22, viewBox: "0 0 54 54" }, s("rect", { x: 0, y: 0, width: 54, height: 54, fill: cellFill(k) }), k === "shop" ? s("g") : cellIcon(k, 0, 0, 54)),
        k.startsWith("bean") ? t("cell.bean_any") : k.startsWith("bonus") ? t("cell.bonus_any") : k.startsWith("cake") ? t("cell.cake_any") : cellName(k)))));
  }

  function render() {
    if (!model || !DATA) return;
    closeMenu();
    areaSvg = null;
    previewLayer = null;
    const view = model.view;
    const me = myView();
    if (!me || me.stage !== "place") {
      ui.locked = null;
      ui.hover = null;
    } else if (ui.handFor !== me.hand) {
      ui.handFor = me.hand;
      ui.rot = 0;
      ui.locked = null;
    }
    if (ui.locked && !placementAt(...ui.locked).ok) ui.locked = null;
    const order = view.seats.map((_, i) => i);
    const seats = model.seat !== null ? [model.seat, ...order.filter((i) => i !== model.seat)] : order;
    barEl = h("div", { class: "action-bar", id: "action-bar" });
    const focus = focusIdentity(el) || pendingFocus; // a keyboard player's place, kept across the redraw
    pendingFocus = null;
    mount(el,
      roundInfo(),
      barEl,
      auctionPanel(),
      draftPanel(),
      h("div", { class: "cafe-areas" }, seats.map(areaCard)),
      legend());
    renderBar();
    restoreFocus(el, focus, NEXT_STEPS);
  }

  // where the keyboard goes after a move: the next thing to do
  const NEXT_STEPS = ["#draft [data-action]", "#auction [data-action]", ".area-svg.placing", "#confirm-place", ".cell.pick", ".cell.clickable", "#end-turn"];

  function onKey(event) {
    if (!model || event.target.closest("input, select, textarea")) return;
    const me = myView();
    if ((event.key === "r" || event.key === "R") && me && me.stage === "place" && myTurnToAct()) {
      event.preventDefault();
      rotate();
    } else if (event.key === "Escape") {
      const cellKey = ui.menu;
      closeMenu();
      if (cellKey && model.seat !== null) el.querySelector(`[data-area="${model.seat}"] [data-cell="${cellKey}"]`)?.focus();
      if (ui.pick) cancelPick();
      if (ui.locked) {
        ui.locked = null;
        renderBar();
      }
    }
  }
  document.addEventListener("keydown", onKey);
  const onDocClick = (event) => {
    if (menuEl && !menuEl.contains(event.target)) closeMenu();
  };
  document.addEventListener("click", onDocClick);

  return {
    el,
    async update(next) {
      const reopen = ui.menu;
      if (!model || model.version !== next.version) ui.hinted = null; // a hint is for one position
      model = next;
      legalSet = new Set(interactive ? next.legal : []);
      parsed = (interactive ? next.legal : []).map((a) => ({ ...parseAction(a), notation: a }));
      await loadCafeData(next.table && next.table.deck);
      const me = myView();
      mine = me ? analyse(me.area) : null;
      if (ui.pick) {
        for (const [k, notation] of [...ui.pick.targets]) if (!legalSet.has(notation)) ui.pick.targets.delete(k);
        if (!ui.pick.targets.size) ui.pick = null;
      }
      render();
      if (reopen && mine && optionsFor(reopen).length) {
        const g = el.querySelector(`[data-cell="${reopen}"]`);
        const rect = g ? g.getBoundingClientRect() : null;
        openMenu(reopen, rect ? { clientX: rect.right, clientY: rect.top } : null);
      }
    },
    /** Point at the cells that log lines name (their actions, played by `seat`); null: none. */
    pointAt(seat, actions = []) {
      for (const n of el.querySelectorAll(".log-marked")) n.classList.remove("log-marked");
      const area = seat === null ? null : el.querySelector(`[data-area="${seat}"]`);
      if (!area) return;
      for (const a of actions) {
        const p = parseAction(a);
        const cells = p.kind === "place"
          ? footprint(p.r, p.c, p.rot).map((f) => key(...f.at))
          : [p.cell, p.from, p.to, p.ship].filter((x) => x && x !== "wh");
        for (const k of cells) area.querySelector(`[data-cell="${k}"]`)?.classList.add("log-marked");
      }
    },
    seatInfo(i) {
      if (!model) return null;
      const v = model.view.seats[i];
      if (model.view.phase !== "turns") return null;
      return `${t(`cafe.stage_${v.stage}`)} · ${t("cafe.ap_n", { n: v.ap })}`;
    },
    showHint(action) {
      ui.hinted = action;
      const p = parseAction(action);
      if (p.kind === "place") {
        ui.rot = p.rot;
        const tall = p.rot % 2 === 1;
        ui.locked = [p.r + (tall ? 1 : 0), p.c + (tall ? 0 : 1)];
      }
      render();
    },
    relabel: render,
    destroy() {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onDocClick);
      closeMenu();
    },
  };
}
