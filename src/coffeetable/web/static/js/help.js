// How to play (#/help/cafe, #/help/coffee-rush): the goal, a turn step by step, scoring and
// a legend of every icon, with pictures drawn by the table's own renderers (cafe.js, rush.js)
// on small example positions. The words are in static/help/{lang}.json.

import { h, mount } from "./dom.js";
import { hasHt, ht, loadLearnText, rich } from "./learn-text.js";
import { GAMES } from "./intro.js";

// ---- example positions (views in the format of docs/views.md) ------------------------------------
const YOU = { kind: "human", user: "Ana" };
const BOT = { kind: "bot", bot: "greedy" };
const CAFE_OPTIONS = { variant: "base", espresso: false, promos: [] };

/** A Café business area: São Tomé's start card with a plan card on top, cubes on the way
 * from the beans to the shops. */
function cafeExampleArea() {
  return {
    cards: [{ card: "S-ST", at: [0, 0], rot: 0 }, { card: "P23", at: [-1, 1], rot: 0 }],
    cells: [
      { at: [-1, 1], cell: "cup" }, { at: [-1, 2], cell: "shop", shop: 1 }, { at: [-1, 3], cell: "bean-B" },
      { at: [0, 0], cell: "shop", shop: 0 }, { at: [0, 1], cell: "bean-Y", cubes: "Y" }, { at: [0, 2], cell: "bean-Y", cubes: "Y" },
      { at: [0, 3], cell: "dry", cubes: "B" },
      { at: [1, 0], cell: "roast", cubes: "YY" }, { at: [1, 1], cell: "dry" }, { at: [1, 2], cell: "cup" },
    ],
    shops: [
      { city: "Porto", year: 1909, requires: "YB", vp: 2, cells: [[0, 0]], cubes: "B", card: "S-ST", available: true },
      { city: "Porto", year: 1947, requires: "BG", vp: 2, cells: [[-1, 2]], cubes: "", card: "P23", available: true },
    ],
  };
}

/** One row of every kind of cell, for the legend (cell i sits at 0,i). */
const CAFE_LEGEND = [
  ["bean", "bean-Y"], ["bean_cube", "bean-R"], ["dry", "dry"], ["roast", "roast"], ["cup", "cup"], ["ship", "ship"],
  ["shop", "shop"], ["shop_done", "shop"], ["shop_lost", "shop"], ["empty", "empty"],
  ["espresso", "espresso"], ["supply", "supply"], ["bonus", "bonus-G"], ["cake", "cake-2"],
];

function cafeLegendArea() {
  const cells = [];
  const shops = [];
  CAFE_LEGEND.forEach(([name, cell], i) => {
    const c = { at: [0, i], cell };
    if (name === "bean_cube") c.cubes = "R";
    if (cell === "shop") {
      c.shop = shops.length;
      shops.push({
        city: "Lisbon", year: 1868, requires: "GR", vp: 2, cells: [[0, i]],
        cubes: name === "shop_done" ? "GR" : name === "shop_lost" ? "" : "G", card: "P00", available: name !== "shop_lost",
      });
    }
    cells.push(c);
  });
  return { cards: [], cells, shops };
}

function cafeExampleView() {
  const seat = (company, area, warehouse, ap) => ({ company, warehouse, stage: "act", hand: null, ap, area });
  const score = (total) => ({ total, parts: { shops: 0 } });
  return {
    format: "coffeetable.view/1", game: "cafe", options: CAFE_OPTIONS, seat: 0, current_seats: [], over: false,
    scores: [score(3), score(0)], round: 2, phase: "draft", master: 1,
    display: ["P23", "P20", "P39"], draft_order: [0, 1], deck_size: 26, removed_by_rule: [], removed_unseen: 8, discard: [],
    supply: { Y: 31, B: 33, G: 34, R: 34 },
    seats: [
      seat("São Tomé and Príncipe", cafeExampleArea(), { Y: 1, B: 0, G: 2, R: 1 }, 2),
      seat("Brazil", cafeLegendArea(), { Y: 0, B: 0, G: 0, R: 0 }, 0),
    ],
  };
}

function rushExampleView(closed) {
  const p = (over) => ({ meeples: [], cups: [[], [], []], counters: [[], [], [], []], completed: [], penalties: [], upgrades: [], rush: 0, ...over });
  return {
    format: "coffeetable.view/1", game: "coffee-rush", options: { less_luck: false }, seat: 0, current_seats: [0], over: false,
    scores: [{ total: 4, parts: {} }, { total: 1, parts: {} }],
    phase: "turn", to_move: 0, closed, deck_size: 61, discarded: [], removed: [],
    players: [
      p({
        meeples: ["c2", "d1"], cups: [["coffee", "caramel", "ice"], ["milk"], []],
        counters: [["Caramel Caffe Freddo"], ["Caffe Latte", "Caramel Macchiato"], [], ["Espresso"]],
        completed: ["Milk Tea", "Green Tea"], penalties: [], upgrades: ["double-corners"], rush: 1,
      }),
      p({ meeples: ["a1", "c1"], cups: [["steam"], ["ice"], []], counters: [["Iced Americano"], [], ["Cocoa"], []], penalties: ["Black Tea"], rush: 1 }),
    ],
    supply: { coffee: 16, milk: 10, steam: 11, ice: 10, chocolate: 12, caramel: 11, tea: 12, water: 12 },
    rush_supply: 13,
    turn: { stage: "pour", moving: 0, steps: 2, hand: ["milk"], served: 0, upgraded: false },
  };
}

async function renderExample(game, view) {
  const module = game === "cafe" ? await import("./cafe.js") : await import("./rush.js");
  if (module.loadCafeData) await module.loadCafeData();
  if (module.loadRushData) await module.loadRushData();
  const renderer = module.createRenderer({ act: () => false, interactive: false });
  const holder = h("div", { class: "help-render" });
  holder.append(renderer.el);
  document.body.append(holder); // laid out once, so that drawings measure themselves
  await renderer.update({ view, legal: [], seat: 0, table: { seats: [YOU, BOT] }, version: 1, over: false });
  holder.remove();
  renderer.destroy();
  return renderer.el;
}

/** A copy of an SVG drawing showing only the box (x, y, w, h) of its viewBox. */
function crop(svg, x, y, w, hh, px = 64) {
  const copy = svg.cloneNode(true);
  copy.setAttribute("viewBox", `${x} ${y} ${w} ${hh}`);
  copy.removeAttribute("style");
  copy.removeAttribute("id");
  copy.setAttribute("width", String(Math.round((px * w) / Math.max(w, hh))));
  copy.setAttribute("height", String(Math.round((px * hh) / Math.max(w, hh))));
  copy.setAttribute("aria-hidden", "true");
  copy.classList.add("help-crop");
  return copy;
}

function figure(node, caption, name) {
  return h("figure", { class: "help-figure", "data-figure": name }, node, caption ? h("figcaption", {}, caption) : null);
}

function legendItem(picture, name, key) {
  return h("li", { class: "legend-item", "data-legend": name }, h("span", { class: "legend-pic" }, picture),
    h("span", { class: "legend-text" }, h("strong", {}, ht(`${key}.title`)), " ", ht(`${key}.text`)));
}

function steps(prefix, n) {
  return h("ol", { class: "help-steps" }, Array.from({ length: n }, (_, i) => h("li", {}, rich(ht(`${prefix}.${i + 1}`), h))));
}

function count(prefix) {
  let n = 0;
  while (hasHt(`${prefix}.${n + 1}`)) n++;
  return n;
}

// ---- Café ------------------------------------------------------------------------------------------
async function cafeHelp() {
  const el = await renderExample("cafe", cafeExampleView());
  const areaOf = (seat) => el.querySelector(`[data-area="${seat}"]`);
  const mine = el.querySelector('.area-card[data-seat="0"]');
  mine.querySelector("header").remove();
  const draft = el.querySelector("#draft");
  draft.removeAttribute("id");
  const legendSvg = areaOf(1);
  const CS = 54;
  const PAD = 6;
  const cellPic = (i) => crop(legendSvg, PAD + i * CS, PAD, CS, CS);
  return [
    section("cafe", "goal", [rich(ht("help.cafe.goal.text"), h)]),
    section("cafe", "area", [h("p", {}, rich(ht("help.cafe.area.text"), h)), figure(mine, ht("help.cafe.area.caption"), "cafe-area")]),
    section("cafe", "round", [h("p", {}, ht("help.cafe.round.intro")), steps("help.cafe.round", count("help.cafe.round")),
      figure(draft, ht("help.cafe.round.caption"), "cafe-draft")]),
    section("cafe", "actions", [h("p", {}, ht("help.cafe.actions.intro")), steps("help.cafe.actions", count("help.cafe.actions"))]),
    section("cafe", "scoring", [steps("help.cafe.scoring", count("help.cafe.scoring"))]),
    section("cafe", "legend", [h("ul", { class: "legend-list" },
      CAFE_LEGEND.map(([name], i) => legendItem(cellPic(i), name, `help.cafe.legend.${name}`)),
      legendItem(h("span", { class: "legend-star" }, "★"), "star", "help.cafe.legend.star"),
      legendItem(h("span", { class: "legend-master tag" }, "M"), "master", "help.cafe.legend.master"))]),
    section("cafe", "keys", [steps("help.cafe.keys", count("help.cafe.keys"))]),
  ];
}

// ---- Coffee Rush ---------------------------------------------------------------------------------
async function rushHelp() {
  const open = await renderExample("coffee-rush", rushExampleView(false));
  const closed = await renderExample("coffee-rush", rushExampleView(true));
  const board = open.querySelector(".rush-board");
  board.removeAttribute("id");
  const player = open.querySelector('.rush-player[data-player="0"]');
  const status = open.querySelector(".status-bar");
  const SIZE = 88;
  const PAD = 18;
  const square = (sq) => crop(board, PAD + "abcd".indexOf(sq[0]) * SIZE, PAD + (Number(sq[1]) - 1) * SIZE, SIZE, SIZE);
  const piece = (node) => {
    const copy = node.cloneNode(true);
    copy.removeAttribute("id");
    return h("span", { class: "legend-piece" }, copy);
  };
  const q = (root, sel) => root.querySelector(sel);
  return [
    section("rush", "goal", [rich(ht("help.rush.goal.text"), h)]),
    section("rush", "board", [h("p", {}, rich(ht("help.rush.board.text"), h)), figure(board, ht("help.rush.board.caption"), "rush-board")]),
    section("rush", "player", [h("p", {}, rich(ht("help.rush.player.text"), h)), figure(player, ht("help.rush.player.caption"), "rush-player")]),
    section("rush", "turn", [h("p", {}, ht("help.rush.turn.intro")), steps("help.rush.turn", count("help.rush.turn"))]),
    section("rush", "end", [steps("help.rush.end", count("help.rush.end")), figure(status, ht("help.rush.end.caption"), "rush-status")]),
    section("rush", "scoring", [steps("help.rush.scoring", count("help.rush.scoring"))]),
    section("rush", "legend", [h("ul", { class: "legend-list" },
      legendItem(square("d1"), "corner", "help.rush.legend.corner"),
      legendItem(square("b1"), "ribbon", "help.rush.legend.ribbon"),
      legendItem(square("c2"), "meeple", "help.rush.legend.meeple"),
      legendItem(piece(q(player, '[data-stat="rush"]')), "rush", "help.rush.legend.rush"),
      legendItem(piece(q(player, '[data-stat="completed"]')), "completed", "help.rush.legend.completed"),
      legendItem(piece(q(player, '[data-stat="penalties"]')), "penalties", "help.rush.legend.penalties"),
      legendItem(piece(q(player, ".counter")), "counter", "help.rush.legend.counter"),
      legendItem(piece(q(player, ".counter.last")), "counter4", "help.rush.legend.counter4"),
      legendItem(piece(q(player, ".order")), "order", "help.rush.legend.order"),
      legendItem(piece(q(player, ".order.special")), "special", "help.rush.legend.special"),
      legendItem(piece(q(player, ".cup")), "cup", "help.rush.legend.cup"),
      legendItem(piece(q(player, ".hand") || q(player, ".cup")), "hand", "help.rush.legend.hand"),
      legendItem(piece(q(player, ".upgrade.flipped")), "upgrade_flipped", "help.rush.legend.upgrade_flipped"),
      legendItem(piece(q(player, '.upgrade:not(.flipped)')), "upgrade", "help.rush.legend.upgrade"),
      legendItem(piece(q(status, "#start-token")), "open", "help.rush.legend.open"),
      legendItem(piece(q(closed, "#start-token")), "closed", "help.rush.legend.closed"))]),
    section("rush", "upgrades", [h("ul", { class: "help-upgrades" },
      ["double-meeples", "diagonal", "double-corners", "double-specialties"].map((u) => h("li", {}, h("strong", {}, ht(`help.rush.upgrade.${u}.title`)), " ", ht(`help.rush.upgrade.${u}.text`))))]),
    section("rush", "keys", [steps("help.rush.keys", count("help.rush.keys"))]),
  ];
}

function section(game, name, body) {
  return h("section", { class: "help-section card", id: `help-${name}`, "data-section": name },
    h("h2", {}, ht(`help.${game}.${name}.title`)), body.map((b) => (typeof b === "string" || Array.isArray(b) ? h("p", {}, b) : b)));
}

export function helpView(game) {
  if (!GAMES.includes(game)) game = "cafe";
  const el = h("article", { class: "help-page", id: "help-page", "data-game": game }, h("p", { class: "loading" }, "…"));
  async function render() {
    await loadLearnText();
    const short = game === "cafe" ? "cafe" : "rush";
    const body = [...await (game === "cafe" ? cafeHelp() : rushHelp()),
      // playing your own printed cards: the card editor (js/deckedit.js)
      section(short, "own_cards", [ht(`help.${short}.own_cards.text`),
        h("p", {}, h("a", { href: `#/decks/edit/${game}`, class: "button small", id: "help-editor-link" }, ht("help.own_cards.link")))])];
    mount(el,
      h("nav", { class: "help-tabs" }, GAMES.map((g) => h("a", { href: `#/help/${g}`, class: g === game ? "active" : null, "data-help-tab": g }, ht(`intro.${g}.name`)))),
      h("header", { class: "help-head" },
        h("h1", {}, ht("help.title", { game: ht(`intro.${game}.name`) })),
        h("p", { class: "muted" }, ht(`help.${short}.summary`)),
        h("p", { class: "help-source muted" }, ht("help.source"))),
      h("nav", { class: "help-toc" }, body.map((sec) => h("a", { href: `#/help/${game}`, onclick: (e) => { e.preventDefault(); sec.scrollIntoView({ behavior: "smooth" }); } }, sec.querySelector("h2").textContent))),
      body);
  }
  return { el, mounted: render, relabel: render };
}
