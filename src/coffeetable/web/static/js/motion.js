// Motion: another player's move (a bot's or a person's) is shown moving for a moment — Café's
// cubes travelling (produce, dry, roast, deliver, fill, clear), cards coming from the display
// and landing on an area, new cards dealt; Coffee Rush's meeples walking their path step by
// step, ingredients taken and poured into cups, orders served, moving along the counters and
// arriving (docs/web.md, "Motion").
//
// Motion is a layer on top of the state, never a delay of it: the table applies every update
// at once, as before, and then hands the move to `play()`. The moving things are either
// copies ("ghosts") in an overlay of their own (#motion-layer, which takes no pointer events),
// or Web Animations on the new elements (they change no attribute, and end where the DOM
// already is). So the page is always exactly the state the server sent, and input is never
// held up. Moves that come while one is shown wait in a queue, which speeds up as it grows;
// a click, a tap or a key skips to the end; `prefers-reduced-motion: reduce` shows nothing
// moving at all.

const BASE_MS = 520; // one move, all its pieces at once (at most ~600 ms with the stagger)
const MIN_MS = 140; // the fastest a move is shown when many wait
export const MAX_QUEUE = 8; // moves waiting beyond this are not shown (their state is there already)
const MAX_GHOSTS = 14; // cubes shown travelling in one move

import { cubeSvg, ingredientSvg } from "./icons.js";

let layer = null;

function overlay() {
  if (layer && layer.isConnected) return layer;
  layer = document.createElement("div");
  layer.id = "motion-layer";
  layer.setAttribute("aria-hidden", "true");
  layer.dataset.played = "0";
  layer.dataset.skipped = "0";
  layer.dataset.running = "0";
  document.body.append(layer);
  return layer;
}

export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// ---- geometry: rectangles in page coordinates (they stay right when the page scrolls) -------
function pageRect(el) {
  if (!el || !el.isConnected) return null;
  const r = el.getBoundingClientRect();
  if (!r.width && !r.height) return null;
  return { x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height };
}

function union(rects) {
  const list = rects.filter(Boolean);
  if (!list.length) return null;
  const x = Math.min(...list.map((r) => r.x));
  const y = Math.min(...list.map((r) => r.y));
  return { x, y, w: Math.max(...list.map((r) => r.x + r.w)) - x, h: Math.max(...list.map((r) => r.y + r.h)) - y };
}

const centre = (r) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });

/** A box of size w×h centred in `r`. */
function box(r, w, h = w) {
  const c = centre(r);
  return { x: c.x - w / 2, y: c.y - h / 2, w, h };
}

// ---- the pieces of an animation --------------------------------------------------------------
function animate(el, keyframes, options, out, name) {
  if (!el || typeof el.animate !== "function") return null;
  const anim = el.animate(keyframes, { fill: "none", ...options });
  anim.id = `motion-${name}`;
  out.push(anim);
  return anim;
}

/** A copy of `node` that travels from rectangle `from` to `to` and goes. The copy is laid
 * out at the larger of the two sizes and scaled, so that its text and drawing stay whole. */
function fly(node, from, to, ms, out, { delay = 0, fade = false, name = "fly" } = {}) {
  if (!node || !from || !to) return;
  const frame = from.w * from.h >= to.w * to.h ? from : to;
  const ghost = document.createElement("div");
  ghost.className = "motion-ghost";
  for (const [k, v] of Object.entries({ left: `${frame.x}px`, top: `${frame.y}px`, width: `${frame.w}px`, height: `${frame.h}px` })) ghost.style.setProperty(k, v);
  ghost.append(node);
  overlay().append(ghost);
  const at = (r) => `translate(${r.x - frame.x}px, ${r.y - frame.y}px) scale(${r.w / (frame.w || 1)}, ${r.h / (frame.h || 1)})`;
  const anim = animate(ghost, [
    { transform: at(from), opacity: delay ? 0 : 1, offset: 0 },
    ...(delay ? [{ transform: at(from), opacity: 1, offset: Math.min(0.5, delay / (ms + delay)) }] : []),
    { transform: at(to), opacity: fade ? 0.15 : 1, offset: 1 },
  ], { duration: ms + delay, easing: "cubic-bezier(.35,.1,.25,1)" }, out, name);
  const remove = () => ghost.remove();
  if (anim) {
    anim.finished.then(remove, remove);
    anim.addEventListener("cancel", remove);
  } else {
    remove();
  }
}

/** Keep a real element out of sight while its ghost travels, then show it. */
function hideUntilLanded(el, ms, out) {
  animate(el, [{ opacity: 0 }, { opacity: 0, offset: 0.9 }, { opacity: 1 }], { duration: ms }, out, "wait");
}

/** A new element comes in (dropped onto its place). */
function arrive(el, ms, out, { delay = 0, from = null } = {}) {
  if (!el) return;
  let start = "translateY(-14px) scale(0.85)";
  if (from) {
    const to = pageRect(el);
    if (to) start = `translate(${from.x - to.x}px, ${from.y - to.y}px) scale(0.6)`;
  }
  animate(el, [{ transform: start, opacity: 0 }, { transform: "none", opacity: 1 }], { duration: ms, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" }, out, "arrive");
}

/** A short glow on something that changed (a score, a stake, an upgrade). */
function glow(el, ms, out) {
  if (!el) return;
  animate(el, [
    { filter: "drop-shadow(0 0 0 rgba(242,193,78,0))" },
    { filter: "drop-shadow(0 0 6px rgba(242,160,30,.95))", offset: 0.35 },
    { filter: "drop-shadow(0 0 0 rgba(242,193,78,0))" },
  ], { duration: ms }, out, "glow");
}

/** An HTML element slides from where it was (`from`) to where it is now. */
function slide(el, from, ms, out) {
  const to = pageRect(el);
  if (!to || !from || (Math.abs(from.x - to.x) < 1 && Math.abs(from.y - to.y) < 1)) return;
  animate(el, [{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px)` }, { transform: "none" }], { duration: ms, easing: "ease-in-out" }, out, "slide");
}

/** An SVG element slides between two points given in page coordinates (translated into the
 * drawing's own units, in which CSS transforms of SVG elements are written). */
function slideSvg(el, from, to, ms, out, keyframesFrom = null) {
  const svg = el && el.ownerSVGElement;
  const ctm = svg && svg.getScreenCTM();
  if (!ctm || !ctm.a) return;
  const k = 1 / ctm.a;
  const t = (p) => `translate(${p.x * k}px, ${p.y * k}px)`;
  animate(el, [{ transform: t(keyframesFrom || from) }, { transform: t(to) }], { duration: ms, easing: "ease-in-out" }, out, "walk");
}

function clone(el) {
  const copy = el.cloneNode(true);
  if (copy.removeAttribute) copy.removeAttribute("id");
  for (const n of copy.querySelectorAll ? copy.querySelectorAll("[id]") : []) n.removeAttribute("id");
  return copy;
}

// ---- what the page showed just before an update ---------------------------------------------
/** The rectangles (and elements) of what an update may take away or move: draft cards, hand
 * tokens, orders, cups. Call before the renderer redraws. */
export function capture(root) {
  const out = { draft: new Map(), hand: [], orders: new Map(), cups: new Map() };
  if (!root) return out;
  for (const el of root.querySelectorAll("#draft .draft-card[data-card]")) out.draft.set(el.dataset.card, { el, rect: pageRect(el) });
  for (const el of root.querySelectorAll("[data-player] [data-hand]")) {
    out.hand.push({ el, seat: Number(el.closest("[data-player]").dataset.player), ing: el.dataset.ing, rect: pageRect(el) });
  }
  for (const [key, el] of orderKeys(root)) out.orders.set(key, { el, rect: pageRect(el) });
  for (const el of root.querySelectorAll("[data-player] .cup[data-cup]")) {
    out.cups.set(`${el.dataset.seat}/${el.dataset.cup}`, { el: el.querySelector(".cup-tokens"), rect: pageRect(el.querySelector(".cup-tokens")) });
  }
  return out;
}

/** Coffee Rush orders by seat, drink and how many of that drink came before it in the area. */
function orderKeys(root) {
  const seen = new Map();
  const out = [];
  for (const el of root.querySelectorAll("[data-player] .order[data-drink]")) {
    const seat = el.closest("[data-player]").dataset.player;
    const base = `${seat}/${el.dataset.drink}`;
    const k = seen.get(base) || 0;
    seen.set(base, k + 1);
    out.push([`${base}/${k}`, el]);
  }
  return out;
}

// ---- Café -------------------------------------------------------------------------------------
const COLOURS = ["Y", "B", "G", "R"];

function cubeCounts(text) {
  const n = { Y: 0, B: 0, G: 0, R: 0 };
  for (const c of text || "") if (c in n) n[c]++;
  return n;
}

/** Where cubes went in `seat`'s part of the table between two views: [{colour, from, to}],
 * each end {kind: "cell"|"shop"|"warehouse"|"supply", ...}. */
export function cafeCubeMoves(before, after, seat) {
  const a = before.seats[seat];
  const b = after.seats[seat];
  if (!a || !b) return [];
  const lost = [];
  const gained = [];
  const cellsA = new Map(a.area.cells.map((c) => [c.at.join(","), c.cubes || ""]));
  const cellsB = new Map(b.area.cells.map((c) => [c.at.join(","), c.cubes || ""]));
  for (const key of new Set([...cellsA.keys(), ...cellsB.keys()])) {
    const x = cubeCounts(cellsA.get(key));
    const y = cubeCounts(cellsB.get(key));
    for (const c of COLOURS) {
      for (let i = y[c]; i < x[c]; i++) lost.push({ colour: c, end: { kind: "cell", key } });
      for (let i = x[c]; i < y[c]; i++) gained.push({ colour: c, end: { kind: "cell", key } });
    }
  }
  b.area.shops.forEach((shop, index) => {
    const x = cubeCounts(a.area.shops[index]?.cubes);
    const y = cubeCounts(shop.cubes);
    for (const c of COLOURS) for (let i = x[c]; i < y[c]; i++) gained.push({ colour: c, end: { kind: "shop", index } });
  });
  for (const c of COLOURS) {
    const d = (b.warehouse[c] || 0) - (a.warehouse[c] || 0);
    for (let i = 0; i < d; i++) gained.push({ colour: c, end: { kind: "warehouse" } });
    for (let i = 0; i < -d; i++) lost.push({ colour: c, end: { kind: "warehouse" } });
  }
  const moves = [];
  for (const g of gained) {
    const i = lost.findIndex((l) => l.colour === g.colour);
    const from = i >= 0 ? lost.splice(i, 1)[0].end : { kind: "supply" };
    moves.push({ colour: g.colour, from, to: g.end });
  }
  for (const l of lost) moves.push({ colour: l.colour, from: l.end, to: { kind: "supply" } });
  return moves;
}

function cafeEnd(root, seat, end, view) {
  if (end.kind === "cell") return pageRect(root.querySelector(`[data-area="${seat}"] [data-cell="${end.key}"]`));
  if (end.kind === "warehouse") return pageRect(root.querySelector(`[data-warehouse="${seat}"] .wh-cubes`));
  if (end.kind === "supply") return pageRect(root.querySelector(".supply-cubes"));
  if (end.kind === "shop") {
    const shop = view.seats[seat].area.shops[end.index];
    return union((shop?.cells || []).map(([r, c]) => pageRect(root.querySelector(`[data-area="${seat}"] [data-cell="${r},${c}"]`))));
  }
  return null;
}

function cafePlan({ root, before, after, move, old, module }) {
  const seat = move.seat;
  const steps = [];
  const action = move.action;
  let m;
  if ((m = /^take (\S+)/.exec(action))) {
    const card = m[1];
    const was = old.draft.get(card);
    steps.push((ms, out) => {
      const header = pageRect(root.querySelector(`.area-card[data-seat="${seat}"] header`));
      if (was && was.rect && header) fly(clone(was.el), was.rect, box(header, was.rect.w * 0.45, was.rect.h * 0.45), ms, out, { fade: true, name: "card" });
      for (const [id, item] of old.draft) {
        if (id !== card) slide(root.querySelector(`#draft .draft-card[data-card="${id}"]`), item.rect, ms, out);
      }
    });
  }
  if ((m = /^place (-?\d+),(-?\d+) rot(\d+)$/.exec(action)) && module && module.footprint) {
    const card = before.seats[seat]?.hand;
    const [R, C, rot] = [Number(m[1]), Number(m[2]), Number(m[3]) / 90];
    steps.push((ms, out) => {
      const cells = module.footprint(R, C, rot).map((f) => root.querySelector(`[data-area="${seat}"] [data-cell="${f.at[0]},${f.at[1]}"]`));
      const to = union(cells.map(pageRect));
      const header = pageRect(root.querySelector(`.area-card[data-seat="${seat}"] header`));
      if (card && to && header && module.cardSvg) {
        fly(module.cardSvg(card, { rot }), box(header, to.w * 0.5, to.h * 0.5), to, ms, out, { name: "card" });
        for (const cell of cells) hideUntilLanded(cell, ms, out);
      }
    });
  }
  // cubes: whatever moved in the seat's area, warehouse and shops
  const moves = cafeCubeMoves(before, after, seat).slice(0, MAX_GHOSTS);
  if (moves.length) {
    steps.push((ms, out) => {
      const landing = new Set();
      moves.forEach((mv, i) => {
        const from = cafeEnd(root, seat, mv.from, after) || cafeEnd(root, seat, mv.from, before);
        const to = cafeEnd(root, seat, mv.to, after);
        if (!from || !to) return;
        const size = Math.max(10, Math.min(22, (mv.to.kind === "cell" ? to.w : from.w) * 0.3));
        fly(cubeSvg(mv.colour, size), box(from, size), box(to, size), ms * 0.85, out, { delay: i * Math.min(40, ms * 0.08), name: "cube" });
        if (mv.to.kind === "cell") landing.add(mv.to.key);
      });
      for (const key of landing) hideUntilLanded(root.querySelector(`[data-area="${seat}"] [data-cell="${key}"] .cubes`), ms, out);
    });
  }
  // new cards dealt to the display (a new round)
  const dealt = (after.display || []).filter((id) => !old.draft.has(id));
  if (dealt.length && after.display && (before.display || []).join() !== after.display.join()) {
    steps.push((ms, out) => {
      const deck = pageRect(root.querySelector("#deck-size"));
      dealt.forEach((id, i) => arrive(root.querySelector(`#draft .draft-card[data-card="${id}"]`), ms * 0.7, out, { delay: i * ms * 0.1, from: deck }));
    });
  }
  // what changed beside: action points, stakes, the master token, the score
  steps.push((ms, out) => {
    const a = before.seats[seat];
    const b = after.seats[seat];
    if (a && b && a.ap !== b.ap) glow(root.querySelector(`[data-ap="${seat}"]`), ms, out);
    if (/^(bid|pass)/.test(action)) glow(root.querySelector(`[data-stake="${seat}"]`), ms, out);
    if (before.master !== after.master) glow(root.querySelector(`.area-card[data-seat="${after.master}"] header .tag`), ms, out);
  });
  return steps;
}

// ---- Coffee Rush ------------------------------------------------------------------------------
function rushPlan({ root, before, after, move, old, queue }) {
  const seat = move.seat;
  const action = move.action;
  const steps = [];
  const square = (sq) => root.querySelector(`#rush-board [data-square="${sq}"]`);
  let m;
  if ((m = /^place ([a-d][1-4])$/.exec(action))) {
    steps.push((ms, out) => arrive(square(m[1])?.querySelector(`[data-meeple-seat="${seat}"]`), ms, out));
  } else if ((m = /^([a-d][1-4])-([a-d][1-4])$/.exec(action))) {
    const step = { seat, from: m[1], to: m[2] };
    queue.steps.push(step);
    steps.push((ms, out) => {
      // the meeple is drawn where it is now, which may be some steps further when several
      // steps came at once: it walks this step's part of its path
      let now = step.to;
      for (const later of queue.steps.slice(queue.steps.indexOf(step) + 1)) if (later.seat === seat && later.from === now) now = later.to;
      queue.steps.splice(queue.steps.indexOf(step), 1);
      const here = square(now);
      const meeple = here && here.querySelector(`[data-meeple-seat="${seat}"]`);
      const a = pageRect(square(step.from));
      const b = pageRect(square(step.to));
      const c = pageRect(here);
      if (!meeple || !a || !b || !c) return;
      const p = (r) => ({ x: centre(r).x - centre(c).x, y: centre(r).y - centre(c).y });
      slideSvg(meeple, p(a), p(b), ms, out);
    });
  } else if (action === "stop") {
    // the ingredients under the meeples go to the hand
    steps.push((ms, out) => {
      const chips = root.querySelectorAll(`[data-player="${seat}"] [data-hand]`);
      const squares = (after.players[seat]?.meeples || []).filter(Boolean).map(square);
      chips.forEach((chip, i) => {
        const from = squares.find((sq) => sq && sq.dataset.ing === chip.dataset.ing) || squares[0];
        const svg = chip.querySelector("svg");
        if (!from || !svg) return;
        const to = pageRect(svg);
        fly(clone(svg), box(pageRect(from), to.w * 1.4), to, ms, out, { delay: i * 50, name: "token" });
        hideUntilLanded(chip, ms, out);
      });
    });
  } else if ((m = /^pour (\S+) (\d)$/.exec(action))) {
    const [ing, cup] = [m[1], m[2]];
    const chip = old.hand.find((x) => x.seat === seat && x.ing === ing);
    steps.push((ms, out) => {
      const tokens = root.querySelector(`[data-player="${seat}"] [data-cup="${cup}"] .cup-tokens`);
      const last = tokens && tokens.lastElementChild;
      const to = pageRect(last);
      const from = chip?.rect || pageRect(root.querySelector(`[data-player="${seat}"] header`));
      if (!to || !from) return;
      fly(ingredientSvg(ing, to.w), box(from, to.w), to, ms, out, { name: "token" });
      hideUntilLanded(last, ms, out);
    });
  } else if ((m = /^empty (\d)$/.exec(action))) {
    const was = old.cups.get(`${seat}/${m[1]}`);
    steps.push((ms, out) => {
      if (!was || !was.rect) return;
      fly(clone(was.el), was.rect, { ...was.rect, y: was.rect.y + 30 }, ms, out, { fade: true, name: "empty" });
    });
  } else if ((m = /^serve (\d) (\d) (.+)$/.exec(action))) {
    const [cup, counter, drink] = [m[1], Number(m[2]), m[3]];
    const was = [...old.orders].find(([key, item]) => key.startsWith(`${seat}/${drink}/`) && item.el.dataset.counter === String(counter));
    steps.push((ms, out) => {
      const pile = pageRect(root.querySelector(`[data-player="${seat}"] .piles span`));
      const cupRect = pageRect(root.querySelector(`[data-player="${seat}"] [data-cup="${cup}"]`));
      if (was && was[1].rect && pile) fly(clone(was[1].el), was[1].rect, box(pile, was[1].rect.w * 0.5, was[1].rect.h * 0.5), ms, out, { fade: true, name: "order" });
      if (cupRect) glow(root.querySelector(`[data-player="${seat}"] [data-cup="${cup}"]`), ms, out);
    });
  } else if ((m = /^upgrade (\S+)$/.exec(action))) {
    steps.push((ms, out) => glow(root.querySelector(`[data-player="${seat}"] [data-upgrade="${m[1]}"]`), ms, out));
  }
  // orders: moved along the counters, arrived from the deck, or gone to the penalty pile
  steps.push((ms, out) => {
    const now = new Map(orderKeys(root));
    const deck = pageRect(root.querySelector("#deck-size"));
    let k = 0;
    for (const [key, el] of now) {
      const was = old.orders.get(key);
      if (was) slide(el, was.rect, ms, out);
      else arrive(el, ms * 0.8, out, { delay: (k++) * 60, from: deck });
    }
    for (const [key, item] of old.orders) {
      if (now.has(key) || !item.rect) continue;
      const owner = key.split("/")[0];
      if (action.startsWith("serve ") && owner === String(seat)) continue; // shown above
      const pile = pageRect(root.querySelector(`[data-player="${owner}"] .piles span:last-child`));
      if (pile) fly(clone(item.el), item.rect, box(pile, item.rect.w * 0.5, item.rect.h * 0.5), ms, out, { fade: true, name: "order" });
    }
    const a = before.scores?.[seat]?.total;
    const b = after.scores?.[seat]?.total;
    if (a !== b) glow(root.querySelector(`[data-player="${seat}"] .stat.score`), ms, out);
  });
  return steps;
}

// ---- the player ---------------------------------------------------------------------------------
/** The motion of one table or replay page: `play()` after each update that came with a move. */
export function createMotion() {
  const queue = { plans: [], steps: [] };
  let running = [];
  let busy = false;

  function skip() {
    if (!busy && !queue.plans.length) return;
    queue.plans.length = 0;
    queue.steps.length = 0;
    for (const anim of running) {
      try { anim.finish(); } catch { anim.cancel(); }
    }
    for (const ghost of overlay().querySelectorAll(".motion-ghost")) ghost.remove();
    overlay().dataset.skipped = String(Number(overlay().dataset.skipped) + 1);
  }

  const onInput = (event) => {
    if (event.type === "keydown" && ["Shift", "Control", "Alt", "Meta"].includes(event.key)) return;
    skip();
  };
  document.addEventListener("pointerdown", onInput, true);
  document.addEventListener("keydown", onInput, true);

  async function run() {
    if (busy) return;
    busy = true;
    const layerEl = overlay();
    layerEl.dataset.running = "1";
    while (queue.plans.length) {
      const plan = queue.plans.shift();
      // the more moves wait, the faster each is shown
      const ms = Math.max(MIN_MS, Math.round(BASE_MS / Math.max(1, queue.plans.length)));
      running = [];
      for (const step of plan) {
        try { step(ms, running); } catch (err) { console.error(err); }
      }
      layerEl.dataset.played = String(Number(layerEl.dataset.played) + 1);
      const mine = running;
      await Promise.all(mine.map((a) => a.finished.catch(() => null)));
    }
    running = [];
    queue.steps.length = 0;
    busy = false;
    layerEl.dataset.running = "0";
  }

  return {
    /** Show `move` (a log entry) going from view `before` to view `after`; `old` is what
     * capture() saw before the redraw, `root` the board now. */
    play({ game, root, before, after, move, old, module = null }) {
      if (!root || !before || !after || !move || reducedMotion() || document.hidden) {
        if (game === "coffee-rush") queue.steps.length = 0;
        return;
      }
      const context = { root, before, after, move, old: old || capture(null), module, queue };
      const plan = game === "cafe" ? cafePlan(context) : rushPlan(context);
      if (!plan.length) return;
      queue.plans.push(plan);
      while (queue.plans.length > MAX_QUEUE) queue.plans.shift();
      run();
    },
    skip,
    destroy() {
      skip();
      document.removeEventListener("pointerdown", onInput, true);
      document.removeEventListener("keydown", onInput, true);
    },
  };
}
