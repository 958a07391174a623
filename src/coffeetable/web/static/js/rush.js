// Coffee Rush: the ingredient board with the meeples, every player's cups, order counters,
// piles, upgrades and rush tokens. A turn is played step by step: every click sends one of
// the server's `legal` steps, and the next possible steps are highlighted.

import { arrowStep, focusIdentity, onActivate, restoreFocus } from "./a11y.js";
import { SEAT_COLOURS, seatName } from "./common.js";
import { button, h, mount, s } from "./dom.js";
import { INGREDIENT_COLOURS, ingredientIcon, ingredientSvg } from "./icons.js";
import { has, t, tn } from "./i18n.js";
import { deckData } from "./gamedata.js";
import { tip } from "./tips.js";

const UPGRADES = ["double-meeples", "diagonal", "double-corners", "double-specialties"];
const COLUMNS = "abcd";
const decks = deckData("coffee-rush", prepareRushData);
let DATA = null; // the card file shown now (the default file, or a table's own file)

/** The game data made ready to draw with: drinks by name. */
export function prepareRushData(data) {
  return { ...data, byName: Object.fromEntries(data.drinks.map((d) => [d.name, d])) };
}

/** The board and drinks of a card file (`{sha256, ...}` as tables name it; none: the
 * default file), which the drawings use from then on. */
export async function loadRushData(deck = null) {
  DATA = await decks.load(deck);
  return DATA;
}

export function ingredientName(name) {
  return has(`ing.${name}`) ? t(`ing.${name}`) : name;
}

export function squareOf(r, c) {
  return `${COLUMNS[c]}${r + 1}`;
}

/** The steps in `legal`, sorted by kind. */
function parseLegal(legal) {
  const out = { place: new Set(), steps: [], stop: false, end: false, upgrades: new Set(), pours: [], empties: new Set(), serves: [] };
  for (const a of legal) {
    let m;
    if ((m = /^place ([a-d][1-4])$/.exec(a))) out.place.add(m[1]);
    else if ((m = /^([a-d][1-4])-([a-d][1-4])$/.exec(a))) out.steps.push({ from: m[1], to: m[2], action: a });
    else if (a === "stop") out.stop = true;
    else if (a === "end") out.end = true;
    else if ((m = /^upgrade (\S+)$/.exec(a))) out.upgrades.add(m[1]);
    else if ((m = /^pour (\S+) (\d)$/.exec(a))) out.pours.push({ ing: m[1], cup: Number(m[2]), action: a });
    else if ((m = /^empty (\d)$/.exec(a))) out.empties.add(Number(m[1]));
    else if ((m = /^serve (\d) (\d) (.+)$/.exec(a))) out.serves.push({ cup: Number(m[1]), counter: Number(m[2]), drink: m[3], action: a });
  }
  return out;
}

function chip(ing, attrs = {}) {
  return tip(h("span", { class: "chip", "data-ing": ing, ...attrs }, ingredientSvg(ing, 18), h("span", { class: "chip-label" }, ingredientName(ing))),
    "help.rush.legend.hand", ingredientName(ing));
}

function recipe(list) {
  // the icons' shapes say which ingredient; their names are the list's accessible name
  return h("span", { class: "recipe", role: "img", "aria-label": list.map(ingredientName).join(", ") },
    list.map((ing) => h("span", { class: "recipe-ing" }, ingredientSvg(ing, 16))));
}

/** What an order card shows: the drink's name (★ for the Special Menu) and its recipe. The
 * table's orders and the card editor's (js/deckedit-rush.js) are drawn by this function. */
export function orderFace(drink) {
  return [
    h("span", { class: "order-name" }, drink.special ? h("span", { class: "star", "aria-label": t("rush.special") }, "★ ") : null, drink.name),
    recipe(drink.recipe),
  ];
}

function tint(ing) {
  const c = INGREDIENT_COLOURS[ing] || "#ccc";
  return `color-mix(in srgb, ${c} 28%, #fbf6ee)`;
}

/** A board square's printing (ingredient, corner mark, specialty ribbon, name) into `g`, in
 * the box at (x, y); `crowded`: meeples stand on it (the icon moves aside). */
export function squareFace(g, data, sq, ing, x, y, size, crowded = false) {
  g.append(s("rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, rx: 10, fill: tint(ing), class: "sq-bg" }));
  if (data.corners.includes(sq)) g.append(s("path", { d: `M${x + 3} ${y + 22}V${y + 13}a10 10 0 0 1 10 -10H${x + 22}`, class: "corner-mark" }));
  if (data.specialties.includes(ing)) g.append(s("path", { d: `M${x + size - 24} ${y + 3}h14v20l-7 -5l-7 5z`, class: "ribbon" }));
  const iconX = crowded ? x + 10 : x + size / 2 - 17;
  g.append(ingredientIcon(ing, iconX, y + 12, crowded ? 30 : 34));
  const label = ingredientName(ing);
  g.append(s("text", {
    x: x + size / 2, y: y + size - 10, class: "sq-label",
    // a long name is squeezed to fit its square
    ...(label.length > 10 ? { textLength: size - 12, lengthAdjust: "spacingAndGlyphs" } : {}),
  }, label));
  return g;
}

/** The board's frame with its column letters and row numbers; squares go at (pad + c * size, pad + r * size). */
export function boardFrame(attrs, size = 88, pad = 18) {
  const svg = s("svg", { class: "rush-board", viewBox: `0 0 ${size * 4 + pad * 2} ${size * 4 + pad * 2}`, ...attrs });
  svg.append(s("rect", { x: 0, y: 0, width: size * 4 + pad * 2, height: size * 4 + pad * 2, rx: 14, fill: "#5a3d2b" }));
  for (let c = 0; c < 4; c++) svg.append(s("text", { x: pad + c * size + size / 2, y: 13, class: "coord" }, COLUMNS[c]));
  for (let r = 0; r < 4; r++) svg.append(s("text", { x: 8, y: pad + r * size + size / 2 + 4, class: "coord" }, String(r + 1)));
  return svg;
}

/** Keys of the keyboard on the board: the focus goes to the next square in the arrow's way. */
function boardArrows(event) {
  const step = arrowStep(event);
  const from = event.currentTarget.dataset.square;
  if (!step || !from) return;
  const c = COLUMNS.indexOf(from[0]) + step[1];
  const r = Number(from[1]) - 1 + step[0];
  if (r < 0 || r > 3 || c < 0 || c > 3) return;
  event.preventDefault();
  event.currentTarget.ownerSVGElement.querySelector(`[data-square="${squareOf(r, c)}"]`)?.focus();
}

export function createRenderer({ act, interactive = true, barExtras = null, boardTools = null }) {
  const el = h("div", { class: "rush", id: "rush" });
  const ui = { meeple: null, token: null };
  let model = null;
  let legal = parseLegal([]);
  let hinted = null;

  function send(action) {
    ui.token = null;
    ui.meeple = null;
    hinted = null;
    return act(action);
  }

  // ---- the board ------------------------------------------------------------------------------
  function board() {
    const view = model.view;
    const size = 88;
    const pad = 18;
    const svg = boardFrame({ role: "group", "aria-label": `${t("rush.board")} — ${t("access.board_keys")}`, id: "rush-board" }, size, pad);
    const occupied = new Map(); // square -> [{seat, index}]
    view.players.forEach((p, seat) => p.meeples.forEach((sq, index) => {
      if (sq) occupied.set(sq, [...(occupied.get(sq) || []), { seat, index }]);
    }));
    const movers = new Set(legal.steps.map((st) => st.from));
    const targets = new Map(legal.steps.filter((st) => st.from === ui.meeple).map((st) => [st.to, st.action]));
    // the meeple moving this turn (an index when both of the seat's meeples share a square)
    const turn = view.turn || {};
    let movingSquare = typeof turn.moving === "string" ? turn.moving : null;
    if (typeof turn.moving === "number" && view.to_move !== null) movingSquare = view.players[view.to_move].meeples[turn.moving];
    const hintSquares = new Set();
    if (hinted) {
      const m = /^(?:place )?([a-d][1-4])(?:-([a-d][1-4]))?$/.exec(hinted);
      if (m) { hintSquares.add(m[2] || m[1]); }
    }
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        const sq = squareOf(r, c);
        const ing = DATA.board[r][c];
        const x = pad + c * size;
        const y = pad + r * size;
        const placeable = legal.place.has(sq);
        const target = targets.get(sq);
        const mover = movers.has(sq);
        const classes = ["square", placeable && "legal", target && "legal", mover && "mover", ui.meeple === sq && "selected", hintSquares.has(sq) && "hinted"];
        const here = occupied.get(sq) || [];
        const who = here.length ? ` — ${here.map((m) => seatName(model.table.seats[m.seat], m.seat)).join(", ")}` : "";
        const acts = interactive && (placeable || target || mover);
        const what = placeable || target ? t("access.square_go") : mover ? t("access.square_pick") : "";
        const g = s("g", {
          class: classes, "data-square": sq, "data-ing": ing, tabindex: acts ? 0 : -1, role: acts ? "button" : "img",
          "aria-label": `${sq}: ${ingredientName(ing)}${who}${what ? ` — ${what}` : ""}`,
          "aria-pressed": mover && interactive ? String(ui.meeple === sq) : null,
        });
        const kind = DATA.corners.includes(sq) ? "help.rush.legend.corner" : DATA.specialties.includes(ing) ? "help.rush.legend.ribbon" : "tip.rush.square";
        tip(g, kind, `${sq} · ${ingredientName(ing)}${who}`);
        g.addEventListener("keydown", boardArrows);
        squareFace(g, DATA, sq, ing, x, y, size, here.length > 0);
        here.forEach((m, k) => g.append(meeple(x + size - 22 - (here.length > 1 ? (1 - k) * 20 : 0), y + 36, m.seat)));
        if (placeable || target) g.append(s("rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, rx: 10, class: "sq-ring" }));
        if (movingSquare === sq) g.append(s("rect", { x: x + 7, y: y + 7, width: size - 14, height: size - 14, rx: 8, class: "moving-ring" }));
        if (acts) {
          const click = () => {
            if (placeable) send(`place ${sq}`);
            else if (target) send(target);
            else if (mover) { ui.meeple = sq; render(); }
          };
          g.addEventListener("click", click);
          onActivate(g, () => {
            click();
            // by keyboard: a meeple picked, the focus goes on to a square it may walk to
            if (mover && !placeable && !target) el.querySelector("#rush-board .square.legal")?.focus();
          });
        }
        svg.append(g);
      }
    }
    return svg;
  }

  function meeple(cx, cy, seat) {
    const colour = SEAT_COLOURS[seat % 4];
    // the seat's number on the meeple: its colour is not the only cue
    return tip(s("g", { class: "meeple", "data-meeple-seat": seat },
      s("path", { d: `M${cx - 10} ${cy + 14}c0-8 3-11 6-13a6.5 6.5 0 1 1 8 0c3 2 6 5 6 13z`, fill: colour, stroke: "#1d130c", "stroke-width": 1.6 }),
      s("text", { x: cx, y: cy + 11.5, class: "meeple-no" }, String(seat + 1))),
    "help.rush.legend.meeple", seatName(model.table.seats[seat], seat));
  }

  // ---- a player's area -------------------------------------------------------------------------
  function cupBox(p, seat, i, mine) {
    const n = i + 1;
    const pourable = mine && ui.token && legal.pours.some((x) => x.ing === ui.token && x.cup === n);
    const serves = mine ? legal.serves.filter((x) => x.cup === n) : [];
    const hintedCup = mine && hinted && new RegExp(`^(pour \\S+|serve) ${n}\\b`).test(hinted);
    const inside = p.cups[i].length ? p.cups[i].map(ingredientName).join(", ") : t("rush.empty_cup");
    const box = h("div", {
      class: ["cup", pourable && "legal", serves.length && "ready", hintedCup && "hinted"], "data-cup": n, "data-seat": seat,
      role: pourable ? "button" : null, tabindex: pourable ? 0 : null,
      "aria-label": pourable ? `${t("rush.pour_here", { ing: ingredientName(ui.token), n })} (${inside})` : null,
      onclick: pourable ? () => send(`pour ${ui.token} ${n}`) : null,
    },
    h("span", { class: "cup-no" }, t("rush.cup_n", { n })),
    h("span", { class: "cup-tokens", role: p.cups[i].length ? "img" : null, "aria-label": p.cups[i].length ? inside : null },
      p.cups[i].length ? p.cups[i].map((ing) => ingredientSvg(ing, 20)) : h("span", { class: "muted" }, t("rush.empty_cup"))));
    tip(box, "help.rush.legend.cup", `${t("rush.cup_n", { n })}: ${inside}`);
    if (pourable) onActivate(box, () => send(`pour ${ui.token} ${n}`));
    // emptying throws tokens away: its button lies below the cup, outside the cup's tap area
    // (tapping the cup pours), and asks first
    const empty = mine && legal.empties.has(n) && p.cups[i].length
      ? button(t("rush.empty"), () => (confirm(t("rush.empty_confirm", { n })) ? send(`empty ${n}`) : null),
        { class: "tiny empty-cup", "data-empty": n, title: t("rush.empty_help") }) : null;
    return h("div", { class: "cup-slot" }, box, empty);
  }

  function orderCard(name, seat, counter, mine) {
    const drink = DATA.byName[name] || { recipe: [], special: false };
    const serves = mine ? legal.serves.filter((x) => x.counter === counter && x.drink === name) : [];
    // on our turn, an order on counter 4 is a penalty card when the turn ends (unless served)
    const doomed = mine && counter === 4 && model.view.phase === "turn";
    const head = `${name}: ${drink.recipe.map(ingredientName).join(", ")}${doomed ? ` — ${t("rush.doomed")}` : ""}`;
    return tip(h("div", {
      class: ["order", drink.special && "special", serves.length && "servable", doomed && "doomed"], "data-drink": name, "data-counter": counter,
    },
      orderFace({ ...drink, name }),
      serves.map((x) => button(t("rush.serve_from", { n: x.cup }), () => send(x.action), { class: "tiny primary", "data-serve": x.action }))),
    drink.special ? "help.rush.legend.special" : "help.rush.legend.order", head);
  }

  function upgradeTiles(p, mine) {
    return h("div", { class: "upgrades" }, UPGRADES.map((u) => {
      const flipped = p.upgrades.includes(u);
      const can = mine && legal.upgrades.has(u);
      return tip(h(can ? "button" : "span", {
        type: can ? "button" : null,
        class: ["upgrade", flipped && "flipped", can && "legal"], "data-upgrade": u,
        onclick: can ? () => { if (confirm(t("rush.upgrade_confirm", { name: t(`rush.upgrade_${u}`) }))) send(`upgrade ${u}`); } : null,
      }, t(`rush.upgrade_${u}`)),
      flipped ? "help.rush.legend.upgrade_flipped" : "help.rush.legend.upgrade", `${t(`rush.upgrade_${u}`)}: ${t(`rush.upgrade_${u}_help`)}`);
    }));
  }

  function playerPanel(p, seat) {
    const view = model.view;
    const mine = interactive && seat === model.seat && model.legal.length > 0;
    const toMove = view.to_move === seat;
    const handTokens = toMove && view.turn ? view.turn.hand : [];
    const pourableTokens = new Set(legal.pours.map((x) => x.ing));
    const hand = toMove && handTokens.length
      ? h("div", { class: "hand", id: seat === model.seat ? "my-hand" : null },
        h("span", { class: "label" }, t(view.phase === "setup_pour" ? "rush.hand_setup" : "rush.hand")),
        handTokens.map((ing, k) => {
          const can = mine && pourableTokens.has(ing);
          const node = chip(ing, {
            class: ["chip", can && "legal", ui.token === ing && "selected"],
            role: can ? "button" : null, tabindex: can ? 0 : null, "data-hand": k,
            "aria-pressed": can ? String(ui.token === ing) : null,
            onclick: can ? () => { ui.token = ing; render(); } : null,
          });
          // by keyboard: the token is taken, and the focus goes on to a cup it may go into
          if (can) onActivate(node, () => { ui.token = ing; render(); el.querySelector(".cup.legal")?.focus(); });
          return node;
        }))
      : null;
    const stat = (name, key, legend, sign, n, extra = null) => tip(h("span", {
      class: ["stat", extra], "data-stat": name, role: "img", "aria-label": `${t(key)}: ${n}`,
    }, `${sign} `, String(n)), legend, `${t(key)}: ${n}`);
    return h("section", { class: ["rush-player", seat === model.seat && "mine", toMove && "to-move"], "data-player": seat, style: { "--seat": SEAT_COLOURS[seat % 4] } },
      h("header", {},
        h("span", { class: "dot", style: { background: SEAT_COLOURS[seat % 4] } }),
        h("strong", { class: "seat-name" }, seatName(model.table.seats[seat], seat)),
        stat("rush", "rush.rush_tokens", "help.rush.legend.rush", "⚡", p.rush),
        stat("completed", "rush.completed", "help.rush.legend.completed", "✓", p.completed.length),
        stat("penalties", "rush.penalties", "help.rush.legend.penalties", "✗", p.penalties.length, p.penalties.length >= 4 && "danger"),
        tip(h("span", { class: "stat score" }, t("rush.score_short", { n: view.scores[seat].total })), "tip.rush.score", `${t("score.total")}: ${view.scores[seat].total}`),
        boardTools ? boardTools(seat) : null),
      hand,
      h("div", { class: "cups" }, [0, 1, 2].map((i) => cupBox(p, seat, i, mine))),
      h("div", { class: "counters" }, [0, 1, 2, 3].map((i) => h("div", { class: ["counter", i === 3 && "last"], "data-counter-col": i + 1 },
        tip(h("span", { class: "counter-no" }, t("rush.counter_n", { n: i + 1 })),
          i === 3 ? "help.rush.legend.counter4" : "help.rush.legend.counter", t("rush.counter_n", { n: i + 1 })),
        p.counters[i].map((name) => orderCard(name, seat, i + 1, mine))))),
      upgradeTiles(p, mine),
      h("div", { class: "piles muted" },
        tip(h("span", {}, tn("rush.completed_pile", p.completed.length)), "help.rush.legend.completed", tn("rush.completed_pile", p.completed.length)),
        tip(h("span", {}, tn("rush.penalty_pile", p.penalties.length)), "help.rush.legend.penalties", tn("rush.penalty_pile", p.penalties.length))));
  }

  // ---- status and buttons ----------------------------------------------------------------------
  function instruction() {
    const view = model.view;
    const mine = interactive && model.seat !== null && model.legal.length > 0;
    if (view.over) return t("table.game_over");
    const who = seatName(model.table.seats[view.to_move], view.to_move);
    if (!interactive) return t("replay.to_move", { names: who }); // a replay waits for nobody
    if (!mine) {
      if (view.phase === "place") return t("rush.they_place", { name: who });
      return t("rush.their_turn", { name: who });
    }
    if (view.phase === "place") return t("rush.do_place");
    if (view.phase === "setup_pour") return ui.token ? t("rush.do_pour_cup", { ing: ingredientName(ui.token) }) : t("rush.do_setup_pour");
    const turn = view.turn || {};
    if (turn.stage === "move") {
      if (legal.steps.length) {
        const left = Math.max(0, 3 - turn.steps);
        return ui.meeple
          ? tn("rush.do_step", left, { step: turn.steps + 1 })
          : t("rush.do_pick_meeple");
      }
      return t("rush.do_stop");
    }
    if (legal.pours.length) return ui.token ? t("rush.do_pour_cup", { ing: ingredientName(ui.token) }) : t("rush.do_pour");
    if (legal.serves.length) return t("rush.do_serve");
    return t("rush.do_end");
  }

  function actionBar() {
    const mine = interactive && model.seat !== null && model.legal.length > 0;
    const view = model.view;
    const turn = view.turn || {};
    const info = [];
    if (view.phase === "turn" && turn.stage === "move" && view.to_move !== null) {
      const extra = turn.steps >= 3 ? t("rush.rush_step") : "";
      info.push(h("span", { class: "muted", id: "steps-taken" }, t("rush.steps_taken", { n: turn.steps }), extra ? ` ${extra}` : ""));
    }
    // what ending the turn now costs, before the click: orders on counter 4 become penalties
    const me = model.seat !== null ? view.players[model.seat] : null;
    const doomed = mine && legal.end && me ? me.counters[3].length : 0;
    const warning = doomed ? h("p", { class: "end-warning", id: "end-warning", role: "status" },
      tn("rush.end_penalty", doomed),
      !view.closed && me.penalties.length + doomed >= 5 ? ` ${t("rush.end_closes")}` : "") : null;
    return h("div", { class: "action-bar" },
      h("p", { class: ["instruction", mine && "mine"], id: "instruction" }, instruction()),
      info,
      warning,
      mine && legal.stop ? button(t("rush.stop"), () => send("stop"), { class: "primary", id: "rush-stop" }) : null,
      mine && legal.end ? button(t("rush.end_turn"), () => {
        const leftover = (view.turn?.hand || []).length;
        if (leftover && !confirm(tn("rush.end_confirm", leftover))) return null;
        return send("end");
      }, { class: doomed ? "warn" : legal.pours.length || legal.serves.length ? "" : "primary", id: "rush-end", "aria-describedby": doomed ? "end-warning" : null }) : null,
      barExtras);
  }

  function statusBar() {
    const view = model.view;
    const word = t(view.closed ? "rush.token_closed" : "rush.token_open");
    return h("div", { class: "status-bar" },
      tip(h("span", { class: ["token", view.closed ? "closed" : "open"], id: "start-token" }, word),
        view.closed ? "help.rush.legend.closed" : "help.rush.legend.open", `${word} — ${t("rush.token_help")}`),
      tip(h("span", { id: "deck-size" }, tn("rush.deck", view.deck_size)), "tip.rush.deck", tn("rush.deck", view.deck_size)),
      tip(h("span", { id: "rush-supply" }, "⚡ ", t("rush.rush_supply_n", { n: view.rush_supply })), "help.rush.legend.rush", `${t("rush.rush_supply")}: ${view.rush_supply}`),
      h("span", { class: "supply", role: "group", "aria-label": t("access.supply") }, Object.entries(view.supply).map(([ing, n]) => tip(
        h("span", { class: ["supply-item", n === 0 && "out"], "data-supply": ing, role: "img", "aria-label": `${ingredientName(ing)}: ${n}` }, ingredientSvg(ing, 16), String(n)),
        "tip.rush.supply", `${ingredientName(ing)}: ${n}`))));
  }

  /** Keep the selections valid for the new legal steps; pick the only choice. */
  function syncSelection() {
    const movers = new Set(legal.steps.map((st) => st.from));
    if (movers.size === 1) ui.meeple = [...movers][0];
    if (ui.meeple && !movers.has(ui.meeple)) ui.meeple = null;
    const pourable = new Set(legal.pours.map((x) => x.ing));
    if (ui.token && !pourable.has(ui.token)) ui.token = null;
    if (!ui.token && pourable.size === 1) ui.token = [...pourable][0];
  }

  function render() {
    if (!model || !DATA) return;
    syncSelection();
    const view = model.view;
    const order = view.players.map((_, i) => i);
    const mineFirst = model.seat !== null ? [model.seat, ...order.filter((i) => i !== model.seat)] : order;
    const focus = focusIdentity(el); // a keyboard player's place, kept across the redraw
    mount(el,
      statusBar(),
      actionBar(),
      h("div", { class: "rush-main" },
        h("div", { class: "board-wrap" }, boardTools ? boardTools("board") : null, board()),
        h("div", { class: "rush-players" }, mineFirst.map((i) => playerPanel(view.players[i], i)))));
    restoreFocus(el, focus, NEXT_STEPS);
  }

  // where the keyboard goes after a move: the next thing to do
  const NEXT_STEPS = ["#rush-board .square.legal", "#rush-board .square.mover", "#my-hand .chip.legal", ".cup.legal", "[data-serve]", "#rush-stop", "button.upgrade.legal", "#rush-end"];

  return {
    el,
    async update(next) {
      if (!model || model.version !== next.version) hinted = null; // a hint is for one position
      model = next;
      legal = parseLegal(interactive ? next.legal : []);
      await loadRushData(next.table && next.table.deck);
      render();
    },
    /** Point at the squares and cups that log lines name (their actions, by `seat`). */
    pointAt(seat, actions = []) {
      for (const n of el.querySelectorAll(".log-marked")) n.classList.remove("log-marked");
      if (seat === null) return;
      for (const a of actions) {
        let m;
        for (const sq of a.match(/\b[a-d][1-4]\b/g) || []) el.querySelector(`[data-square="${sq}"]`)?.classList.add("log-marked");
        if ((m = /^(?:pour \S+|empty|serve) (\d)/.exec(a))) el.querySelector(`[data-player="${seat}"] [data-cup="${m[1]}"]`)?.classList.add("log-marked");
        if ((m = /^serve \d (\d)/.exec(a))) el.querySelector(`[data-player="${seat}"] [data-counter-col="${m[1]}"]`)?.classList.add("log-marked");
      }
    },
    seatInfo(i) {
      if (!model || !model.view) return null;
      const p = model.view.players[i];
      return `⚡${p.rush} ✓${p.completed.length} ✗${p.penalties.length}`;
    },
    showHint(action) {
      hinted = action;
      const m = /^pour (\S+) \d$/.exec(action);
      if (m) ui.token = m[1];
      render();
    },
    relabel: render,
    destroy() {},
  };
}
