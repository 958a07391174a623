// Drawn icons (SVG), no fonts or images needed: Coffee Rush ingredients, Café cells, cubes.
// Each function returns an SVG <g> drawn in a box of `size` at (x, y) (top-left).
//
// Colour is never the only cue (docs/web.md, "Accessibility"): every cube and bean carries the
// mark of its colour (yellow a dot, brown a bar, green a triangle, red a cross), every
// ingredient has its own shape. The colour objects below are changed in place by the
// colour-blind-safe palette (js/a11y.js), and the page redraws.

import { s } from "./dom.js";

export const INGREDIENT_COLOURS = {
  coffee: "#5b3a1e",
  milk: "#f7f3e8",
  steam: "#b8c4cc",
  ice: "#a9dff2",
  chocolate: "#7b4226",
  caramel: "#d9962e",
  tea: "#6e9f4a",
  water: "#3f8fd0",
};

export const CUBE_COLOURS = { Y: "#e8c22a", B: "#7a4a21", G: "#3f9a3a", R: "#c8372d" };
/** The ink of a cube's mark on a filled cube (dark on the light yellow). */
export const CUBE_MARK_INK = { Y: "#2b1d12", B: "#fff", G: "#fff", R: "#fff" };

/** The mark of a cube colour, centred in the box of `size` at (x, y): a dot (yellow), a bar
 * (brown), a triangle (green), a cross (red). `ink` is its colour (default: the contrast of a
 * filled cube). */
export function cubeMark(colour, x, y, size, ink = null) {
  const cx = x + size / 2;
  const cy = y + size / 2;
  const k = size;
  const attrs = { class: `cube-mark mark-${colour}`, fill: ink || CUBE_MARK_INK[colour] || "#fff", "pointer-events": "none" };
  switch (colour) {
    case "Y": return s("circle", { cx, cy, r: k * 0.2, ...attrs });
    case "B": return s("rect", { x: cx - k * 0.3, y: cy - k * 0.11, width: k * 0.6, height: k * 0.22, ...attrs });
    case "G": return s("path", { d: `M${cx} ${cy - k * 0.27}L${cx + k * 0.28} ${cy + k * 0.22}H${cx - k * 0.28}Z`, ...attrs });
    case "R": {
      const a = k * 0.28;
      const b = k * 0.09;
      return s("path", { d: `M${cx - b} ${cy - a}h${2 * b}v${a - b}h${a - b}v${2 * b}h-${a - b}v${a - b}h-${2 * b}v-${a - b}h-${a - b}v-${2 * b}h${a - b}z`, ...attrs });
    }
    default: return s("g");
  }
}

/** An ingredient icon. */
export function ingredientIcon(name, x, y, size) {
  const k = size / 24;
  const g = s("g", { transform: `translate(${x},${y}) scale(${k})`, class: `ing ing-${name}` });
  const c = INGREDIENT_COLOURS[name] || "#999";
  const line = { fill: "none", stroke: "#3b2a1e", "stroke-width": 1.4, "stroke-linecap": "round" };
  switch (name) {
    case "coffee":
      g.append(
        s("ellipse", { cx: 12, cy: 12, rx: 7, ry: 9.5, fill: c, transform: "rotate(25 12 12)" }),
        s("path", { d: "M9 4 C14 9 10 15 15 20", ...line, stroke: "#d8b48a" }),
      );
      break;
    case "milk":
      g.append(
        s("path", { d: "M9 3h6v4l3 4v10H6V11l3-4z", fill: c, stroke: "#8a8070", "stroke-width": 1.2 }),
        s("rect", { x: 6, y: 13, width: 12, height: 4, fill: "#5a8fd8" }),
      );
      break;
    case "steam":
      for (const dx of [6, 12, 18]) {
        g.append(s("path", { d: `M${dx} 21c-3-3 3-5 0-8s3-5 0-9`, ...line, stroke: "#607d8b", "stroke-width": 2 }));
      }
      break;
    case "ice":
      g.append(
        s("rect", { x: 5, y: 5, width: 14, height: 14, rx: 3, fill: c, stroke: "#4a9bbd", "stroke-width": 1.3 }),
        s("path", { d: "M8 9l3-2", ...line, stroke: "#fff", "stroke-width": 2 }),
      );
      break;
    case "chocolate":
      g.append(s("rect", { x: 5, y: 3, width: 14, height: 18, rx: 1.5, fill: c }));
      for (const yy of [9, 15]) g.append(s("line", { x1: 5, y1: yy, x2: 19, y2: yy, stroke: "#4a2412", "stroke-width": 1.2 }));
      g.append(s("line", { x1: 12, y1: 3, x2: 12, y2: 21, stroke: "#4a2412", "stroke-width": 1.2 }));
      break;
    case "caramel":
      g.append(
        s("path", { d: "M4 9h16v3c0 6-3 9-8 9s-8-3-8-9z", fill: c }),
        s("path", { d: "M4 9c2 3 4 0 6 3s4-2 6 1 3-2 4-4", fill: c, stroke: "#a86a12", "stroke-width": 1 }),
      );
      break;
    case "tea":
      g.append(
        s("path", { d: "M5 19C5 9 11 4 20 4c0 9-5 15-15 15z", fill: c }),
        s("path", { d: "M5 19L15 9", ...line, stroke: "#dfeccf" }),
      );
      break;
    case "water":
      g.append(s("path", { d: "M12 3c4 6 7 9 7 12a7 7 0 0 1-14 0c0-3 3-6 7-12z", fill: c }));
      g.append(s("path", { d: "M9 15a3 3 0 0 0 3 3", ...line, stroke: "#d6ecfb" }));
      break;
    default:
      g.append(s("circle", { cx: 12, cy: 12, r: 9, fill: c }));
  }
  return g;
}

/** A stand-alone inline SVG of an ingredient (for chips and recipes). */
export function ingredientSvg(name, size = 18) {
  return s("svg", { width: size, height: size, viewBox: `0 0 ${size} ${size}`, class: "ing-svg", "aria-hidden": "true" },
    ingredientIcon(name, 0, 0, size));
}

/** A cube (Café) drawn as a small rounded square with the mark of its colour. */
export function cube(colour, x, y, size, attrs = {}) {
  return s("g", { class: `cube cube-${colour}`, "data-cube": colour, ...attrs },
    s("rect", {
      x, y, width: size, height: size, rx: size * 0.18,
      fill: CUBE_COLOURS[colour] || "#999", stroke: "#2b1d12", "stroke-width": Math.max(0.8, size / 12),
    }),
    cubeMark(colour, x, y, size));
}

/** A stand-alone inline SVG of a cube (filled, or hollow: a cube still wanted), with its mark. */
export function cubeSvg(colour, size = 14, hollow = false) {
  return s("svg", { width: size, height: size, viewBox: `0 0 ${size} ${size}`, class: "cube-svg", "data-cube": colour, "aria-hidden": "true" },
    s("rect", {
      x: 1, y: 1, width: size - 2, height: size - 2, rx: size * 0.2,
      fill: hollow ? "none" : CUBE_COLOURS[colour], stroke: hollow ? CUBE_COLOURS[colour] : "#2b1d12", "stroke-width": hollow ? 2 : 0.8,
    }),
    cubeMark(colour, 1, 1, size - 2, hollow ? CUBE_COLOURS[colour] : null));
}

// ---- Café cells -----------------------------------------------------------------------------------
const ink = { fill: "none", stroke: "#3b2a1e", "stroke-width": 1.6, "stroke-linecap": "round", "stroke-linejoin": "round" };

export function beanIcon(colour, cx, cy, r, extra = {}) {
  return s("g", { class: "bean", "data-bean": colour, ...extra },
    s("ellipse", { cx, cy, rx: r * 0.72, ry: r, fill: CUBE_COLOURS[colour] || "#bbb", transform: `rotate(30 ${cx} ${cy})`, stroke: "#2b1d12", "stroke-width": 1 }),
    s("path", { d: `M${cx - r * 0.25} ${cy - r * 0.8} C${cx + r * 0.35} ${cy - r * 0.2} ${cx - r * 0.35} ${cy + r * 0.2} ${cx + r * 0.25} ${cy + r * 0.8}`, ...ink, stroke: "rgba(255,255,255,.7)", "stroke-width": 1.2 }),
    CUBE_COLOURS[colour] ? cubeMark(colour, cx - r * 0.5, cy - r * 0.5, r) : null);
}

export function cupIcon(cx, cy, r) {
  return s("g", { class: "cup-icon" },
    s("path", { d: `M${cx - r} ${cy - r * 0.4}h${r * 1.6}v${r * 0.6}a${r * 0.8} ${r * 0.8} 0 0 1 -${r * 1.6} 0z`, fill: "#fff", stroke: "#3b2a1e", "stroke-width": 1.4 }),
    s("path", { d: `M${cx + r * 0.6} ${cy - r * 0.2}h${r * 0.25}a${r * 0.3} ${r * 0.3} 0 0 1 0 ${r * 0.6}h-${r * 0.3}`, ...ink }),
    s("path", { d: `M${cx - r * 0.5} ${cy - r * 0.75}c-${r * 0.2} -${r * 0.2} ${r * 0.2} -${r * 0.35} 0 -${r * 0.55}M${cx} ${cy - r * 0.75}c-${r * 0.2} -${r * 0.2} ${r * 0.2} -${r * 0.35} 0 -${r * 0.55}`, ...ink, "stroke-width": 1.1 }));
}

export function shipIcon(cx, cy, r) {
  return s("g", { class: "ship-icon" },
    s("path", { d: `M${cx - r} ${cy + r * 0.2}h${r * 2}l-${r * 0.4} ${r * 0.6}h-${r * 1.2}z`, fill: "#6b4a2e", stroke: "#3b2a1e", "stroke-width": 1 }),
    s("line", { x1: cx, y1: cy + r * 0.2, x2: cx, y2: cy - r, stroke: "#3b2a1e", "stroke-width": 1.4 }),
    s("path", { d: `M${cx + 2} ${cy - r * 0.9}l${r * 0.7} ${r * 0.9}h-${r * 0.7}z`, fill: "#fff", stroke: "#3b2a1e", "stroke-width": 1 }),
    s("path", { d: `M${cx - 2} ${cy - r * 0.7}l-${r * 0.6} ${r * 0.75}h${r * 0.6}z`, fill: "#fff", stroke: "#3b2a1e", "stroke-width": 1 }));
}

export function dryIcon(cx, cy, r) {
  // a drying tray: the sun above a rack
  const g = s("g", { class: "dry-icon" }, s("circle", { cx, cy: cy - r * 0.15, r: r * 0.35, fill: "#f2c14e", stroke: "#b07d12", "stroke-width": 1 }));
  for (let i = 0; i < 8; i++) {
    const a = (i * Math.PI) / 4;
    g.append(s("line", {
      x1: cx + Math.cos(a) * r * 0.48, y1: cy - r * 0.15 + Math.sin(a) * r * 0.48,
      x2: cx + Math.cos(a) * r * 0.68, y2: cy - r * 0.15 + Math.sin(a) * r * 0.68, stroke: "#b07d12", "stroke-width": 1.2,
    }));
  }
  g.append(s("line", { x1: cx - r * 0.8, y1: cy + r * 0.75, x2: cx + r * 0.8, y2: cy + r * 0.75, ...ink }));
  return g;
}

export function roastIcon(cx, cy, r) {
  return s("g", { class: "roast-icon" },
    s("path", { d: `M${cx} ${cy - r}c${r * 0.3} ${r * 0.5} ${r * 0.8} ${r * 0.7} ${r * 0.8} ${r * 1.2}a${r * 0.8} ${r * 0.8} 0 0 1 -${r * 1.6} 0c0 -${r * 0.4} ${r * 0.3} -${r * 0.6} ${r * 0.45} -${r * 0.9}c${r * 0.1} ${r * 0.3} ${r * 0.25} ${r * 0.4} ${r * 0.35} ${r * 0.45}c0 -${r * 0.35} 0 -${r * 0.5} 0 -${r * 0.75}z`, fill: "#e0612b", stroke: "#8c2f0c", "stroke-width": 1 }),
    s("path", { d: `M${cx} ${cy + r * 0.05}c${r * 0.15} ${r * 0.2} ${r * 0.35} ${r * 0.35} ${r * 0.35} ${r * 0.55}a${r * 0.35} ${r * 0.35} 0 0 1 -${r * 0.7} 0c0 -${r * 0.25} ${r * 0.2} -${r * 0.35} ${r * 0.35} -${r * 0.55}z`, fill: "#f7c948" }));
}

export function espressoIcon(cx, cy, r) {
  return s("g", { class: "espresso-icon" },
    s("path", { d: `M${cx - r * 0.6} ${cy - r * 0.2}h${r * 1.1}v${r * 0.35}a${r * 0.55} ${r * 0.55} 0 0 1 -${r * 1.1} 0z`, fill: "#3b2a1e" }),
    s("path", { d: `M${cx + r * 0.5} ${cy - r * 0.05}h${r * 0.2}a${r * 0.2} ${r * 0.2} 0 0 1 0 ${r * 0.4}h-${r * 0.25}`, ...ink }),
    s("ellipse", { cx: cx - r * 0.05, cy: cy + r * 0.55, rx: r * 0.8, ry: r * 0.15, fill: "none", stroke: "#3b2a1e", "stroke-width": 1.2 }));
}

export function cakeIcon(cx, cy, r, value) {
  return s("g", { class: "cake-icon" },
    s("path", { d: `M${cx - r * 0.8} ${cy + r * 0.5}h${r * 1.6}v-${r * 0.7}h-${r * 1.6}z`, fill: "#f3d6b3", stroke: "#8a5a2b", "stroke-width": 1 }),
    s("path", { d: `M${cx - r * 0.8} ${cy - r * 0.2}q${r * 0.8} -${r * 0.5} ${r * 1.6} 0`, fill: "#fff", stroke: "#8a5a2b", "stroke-width": 1 }),
    s("circle", { cx, cy: cy - r * 0.5, r: r * 0.15, fill: "#c8372d" }),
    s("text", { x: cx, y: cy + r * 0.35, "text-anchor": "middle", "font-size": r * 0.6, "font-weight": 700, fill: "#5a3a1e" }, `+${value}`));
}

export function supplyIcon(cx, cy, r) {
  const g = s("g", { class: "supply-icon" });
  const colours = ["Y", "B", "G", "R"];
  colours.forEach((c, i) => {
    const a = (i * Math.PI) / 2 + Math.PI / 4;
    g.append(beanIcon(c, cx + Math.cos(a) * r * 0.45, cy + Math.sin(a) * r * 0.45, r * 0.38));
  });
  return g;
}
