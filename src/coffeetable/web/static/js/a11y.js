// Accessibility helpers (docs/web.md, "Accessibility"):
//  - the colour-blind-safe palette (Okabe–Ito based), a setting in the header remembered in
//    localStorage: it changes the cube, ingredient and player colours in place and the page
//    redraws (shapes and marks stay: colour is never the only cue);
//  - keyboard play: Enter/Space on a focusable drawing, arrow keys between squares or cells,
//    and focus kept across redraws (a move redraws the board: the focus goes to the same
//    square or cell, else to the next thing the player can do).

import { SEAT_COLOURS } from "./common.js";
import { button, h } from "./dom.js";
import { t } from "./i18n.js";
import { CUBE_COLOURS, CUBE_MARK_INK, INGREDIENT_COLOURS } from "./icons.js";

const STORAGE_KEY = "coffeetable.palette";

/** The palettes. "safe" follows Okabe & Ito's colour-blind-safe set (orange, sky blue, bluish
 * green, yellow, blue, vermillion, reddish purple), keeping the games' colour names true
 * (yellow cubes stay yellow, green stays green) and apart in lightness. */
export const PALETTES = {
  standard: {
    cubes: { ...CUBE_COLOURS },
    marks: { ...CUBE_MARK_INK },
    ingredients: { ...INGREDIENT_COLOURS },
    seats: [...SEAT_COLOURS],
  },
  safe: {
    cubes: { Y: "#f0e442", B: "#5c3a17", G: "#009e73", R: "#d55e00" },
    marks: { Y: "#000", B: "#fff", G: "#fff", R: "#fff" },
    ingredients: {
      coffee: "#2e1a0b", milk: "#ffffff", steam: "#bbbbbb", ice: "#56b4e9",
      chocolate: "#a6612e", caramel: "#e69f00", tea: "#009e73", water: "#0072b2",
    },
    seats: ["#d55e00", "#0072b2", "#009e73", "#cc79a7"],
  },
};

let current = "standard";
const listeners = new Set();

export function palette() {
  return current;
}

export function onPaletteChange(fn) {
  listeners.add(fn);
}

/** Use a palette: the shared colour objects change in place, the seat colours' CSS variables
 * with them; listeners redraw. */
export function setPalette(name, { quiet = false } = {}) {
  if (!PALETTES[name]) name = "standard";
  const p = PALETTES[name];
  current = name;
  Object.assign(CUBE_COLOURS, p.cubes);
  Object.assign(CUBE_MARK_INK, p.marks);
  Object.assign(INGREDIENT_COLOURS, p.ingredients);
  p.seats.forEach((c, i) => { SEAT_COLOURS[i] = c; });
  const root = document.documentElement;
  p.seats.forEach((c, i) => root.style.setProperty(`--seat-${i}`, c));
  root.dataset.palette = name;
  if (!quiet) {
    localStorage.setItem(STORAGE_KEY, name);
    for (const fn of listeners) fn(name);
  }
}

export function initPalette() {
  setPalette(localStorage.getItem(STORAGE_KEY) || "standard", { quiet: true });
}

/** The header's switch between the standard and the colour-blind-safe colours. */
export function paletteControl() {
  const on = current === "safe";
  return button([PALETTE_ICON(), h("span", { class: "palette-label" }, t("access.palette_safe"))], () => setPalette(on ? "standard" : "safe"), {
    class: ["small", "palette-toggle", on && "on"], id: "palette-toggle", "aria-pressed": String(on),
    title: t("access.palette_help"),
  });
}

function PALETTE_ICON() {
  // four dots, one per cube colour, drawn with the palette in use
  const box = document.createElement("span");
  box.className = "palette-dots";
  box.setAttribute("aria-hidden", "true");
  for (const c of ["Y", "B", "G", "R"]) {
    const dot = document.createElement("i");
    dot.style.setProperty("background", CUBE_COLOURS[c]);
    box.append(dot);
  }
  return box;
}

// ---- keyboard ----------------------------------------------------------------------------------
/** Enter or Space on `el` does `fn` (for drawings and spans that act like buttons). */
export function onActivate(el, fn) {
  el.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      event.stopPropagation();
      fn(event);
    }
  });
  return el;
}

/** The arrow keys as a step [dr, dc], or null. */
export function arrowStep(event) {
  return { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key] || null;
}

const IDENTITY = ["data-square", "data-cell", "data-hand", "data-serve", "data-empty", "data-upgrade", "data-action", "data-cup", "data-area"];

/** What the focus is on inside `root` (a selector that finds it again after a redraw), or null. */
export function focusIdentity(root) {
  const active = document.activeElement;
  if (!active || active === document.body || !root.contains(active)) return null;
  if (active === root) return { selector: null };
  for (const name of IDENTITY) {
    const value = active.getAttribute(name);
    if (value !== null) {
      const scope = active.parentElement ? active.parentElement.closest("[data-area], [data-player]") : null;
      const prefix = scope ? (scope.dataset.area !== undefined ? `[data-area="${CSS.escape(scope.dataset.area)}"] ` : `[data-player="${CSS.escape(scope.dataset.player)}"] `) : "";
      return { selector: `${prefix}[${name}="${CSS.escape(value)}"]` };
    }
  }
  if (active.id) return { selector: `#${CSS.escape(active.id)}` };
  return { selector: null };
}

function focusable(node) {
  return node && node.isConnected && !node.disabled && (node.tabIndex >= 0 || node.matches("button, a[href], input, select"));
}

/** After a redraw: focus what had the focus (found again by its identity), else the first of
 * `next` (selectors of what the player can do now), else the root itself, so that the
 * keyboard stays on the board. Nothing happens when the focus was elsewhere. */
export function restoreFocus(root, identity, next = []) {
  if (!identity) return;
  const active = document.activeElement;
  if (active && active !== document.body && active !== root && root.contains(active)) return; // still there
  if (active && active !== document.body && !root.contains(active)) return; // the player went elsewhere
  const again = identity.selector ? root.querySelector(identity.selector) : null;
  if (focusable(again)) {
    again.focus({ preventScroll: true });
    return;
  }
  for (const selector of next) {
    const node = [...root.querySelectorAll(selector)].find(focusable);
    if (node) {
      node.focus({ preventScroll: true });
      return;
    }
  }
  if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "-1");
  root.focus({ preventScroll: true });
}
