// Help where you stand: every icon and counter on the table explains itself, in the player's
// language, on hover (a mouse), on focus (the keyboard) and on tap (a phone).
//
//   tip(el, "help.rush.legend.corner", "d1 · Ice")   an icon with How to play's legend words
//   tip(el, "tip.cafe.ap", "3 AP")                    or the access part's words (i18n/access/)
//
// A key starting with "help." is read from How to play's texts (help/{lang}.json: KEY.title,
// KEY.text), so the legend and the tooltips never say the same thing twice; any other key from
// the strings (i18n/access/{lang}.json). `head` is what this one icon shows (already in the
// player's language); the tooltip says it first, then the kind of icon and what it means.
//
// One tooltip (#tip, role="tooltip") serves the page; it is built from text nodes only.
// On a touch screen a tap on an icon that does nothing by itself opens its tooltip, a second
// tap or a tap elsewhere closes it; on a square, cup or cell that plays a move a tap plays it
// as before and a long press (0.45 s) opens the tooltip instead, so a tap on an icon never
// plays a move by itself.

import { h, mount } from "./dom.js";
import { has, t } from "./i18n.js";
import { hasHt, ht, loadLearnText } from "./learn-text.js";

const LONG_PRESS_MS = 450;
const HOVER_DELAY_MS = 250;

/** Mark `el` as explaining itself (see above). Returns `el`. */
export function tip(el, key, head = null) {
  el.dataset.tip = key;
  if (head) el.dataset.tipHead = head;
  else delete el.dataset.tipHead;
  return el;
}

/** A tooltip's words: [title, text] of its key in the player's language. */
export function tipWords(key) {
  if (key.startsWith("help.")) {
    return [hasHt(`${key}.title`) ? ht(`${key}.title`) : "", hasHt(`${key}.text`) ? ht(`${key}.text`).replace(/\*\*/g, "") : ""];
  }
  return [has(`${key}.title`) ? t(`${key}.title`) : "", has(`${key}.text`) ? t(`${key}.text`) : ""];
}

let box = null; // the tooltip element
let target = null; // the element it explains
let pinned = false; // opened by a tap or a long press (stays until closed)
let hoverTimer = null;
let pressTimer = null;
let swallowClick = false; // the click that ends a long press plays nothing
let lastPointer = "mouse";
let watch = null;

function actsByItself(el) {
  // a square, cup, cell or button that plays a move (or opens a menu) when tapped
  return !!el.closest("button, a[href], input, select, [role=button], [role=menuitem]");
}

function tipTarget(node) {
  return node && node.closest ? node.closest("[data-tip]") : null;
}

/** The same icon, or its twin drawn again by a redraw (same key and words). */
function sameTip(a, b) {
  return !!a && !!b && (a === b || (a.dataset.tip === b.dataset.tip && (a.dataset.tipHead || "") === (b.dataset.tipHead || "")));
}

function ensureBox() {
  if (box && box.isConnected) return box;
  box = h("div", { class: "tip", id: "tip", role: "tooltip", hidden: true });
  document.body.append(box);
  return box;
}

function place() {
  if (!box || !target) return;
  const r = target.getBoundingClientRect();
  const b = box.getBoundingClientRect();
  const margin = 8;
  let x = r.left + r.width / 2 - b.width / 2;
  x = Math.max(margin, Math.min(x, window.innerWidth - b.width - margin));
  let y = r.bottom + margin;
  if (y + b.height > window.innerHeight - margin && r.top - b.height - margin > 0) y = r.top - b.height - margin;
  box.style.setProperty("left", `${Math.round(x)}px`);
  box.style.setProperty("top", `${Math.round(y)}px`);
}

/** The pointer's next step (a tooltip shown or hidden a moment later); one pending at a time. */
function later(fn, ms) {
  clearTimeout(hoverTimer);
  hoverTimer = setTimeout(fn, ms);
}

/** Hide unless a tap pinned the tooltip (the pointer's leaving does not close a pinned one). */
function unpinnedHide() {
  if (!pinned) hide();
}

async function show(el, { pin = false } = {}) {
  if (pinned && !pin && target) return; // a tapped tooltip stays until a tap closes it
  clearTimeout(hoverTimer);
  ensureBox();
  if (target && target !== el) target.removeAttribute("aria-describedby");
  target = el;
  pinned = pin;
  await loadLearnText(); // How to play's words in the player's language (cached)
  if (target !== el) return; // another icon meanwhile
  const [title, text] = tipWords(el.dataset.tip);
  const head = el.dataset.tipHead;
  mount(box,
    h("strong", { class: "tip-head" }, head || title),
    head && title && head !== title ? h("span", { class: "tip-kind" }, title) : null,
    text ? h("span", { class: "tip-text" }, text) : null);
  box.dataset.for = el.dataset.tip;
  box.classList.toggle("pinned", pin);
  box.hidden = false;
  el.setAttribute("aria-describedby", "tip");
  place();
  clearInterval(watch);
  watch = setInterval(follow, 300);
}

/** A redraw replaced the icon: follow its twin (same key and words), else close. */
function follow() {
  if (!target || box.hidden) return;
  if (target.isConnected) return;
  const key = CSS.escape(target.dataset.tip);
  const head = target.dataset.tipHead;
  const twin = [...document.querySelectorAll(`[data-tip="${key}"]`)].find((n) => (n.dataset.tipHead || "") === (head || ""));
  if (twin) {
    target = twin;
    twin.setAttribute("aria-describedby", "tip");
    place();
  } else {
    hide();
  }
}

export function hide() {
  clearTimeout(hoverTimer);
  clearInterval(watch);
  if (target) target.removeAttribute("aria-describedby");
  target = null;
  pinned = false;
  if (box) box.hidden = true;
}

/** The tooltip open now (for tests and the keyboard): its element, or null. */
export function shownFor() {
  return box && !box.hidden ? target : null;
}

function install() {
  document.addEventListener("pointerdown", (event) => {
    lastPointer = event.pointerType || "mouse";
    clearTimeout(pressTimer);
    if (lastPointer === "mouse") return;
    const el = tipTarget(event.target);
    if (!el || !actsByItself(el)) return;
    // a long press on a square or cup that plays a move: its tooltip, and no move
    pressTimer = setTimeout(() => {
      swallowClick = true;
      show(el, { pin: true });
    }, LONG_PRESS_MS);
  }, true);
  for (const type of ["pointerup", "pointercancel"]) {
    document.addEventListener(type, () => clearTimeout(pressTimer), true);
  }
  document.addEventListener("contextmenu", (event) => {
    if (lastPointer !== "mouse" && tipTarget(event.target)) event.preventDefault();
  }, true);
  // capture: runs before the element's own click handler
  document.addEventListener("click", (event) => {
    if (swallowClick) {
      swallowClick = false;
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    if (lastPointer === "mouse") {
      if (pinned && target && !target.contains(event.target) && !box.contains(event.target)) hide();
      return;
    }
    const el = tipTarget(event.target);
    const acting = event.target.closest && actsByItself(event.target);
    if (el && !acting) {
      // a tap on an icon: open (or, the second time, close) its tooltip; nothing else
      if (pinned && sameTip(target, el)) hide();
      else show(el, { pin: true });
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    if (target && !box.contains(event.target)) hide(); // a tap elsewhere closes it (and does what it does)
  }, true);
  document.addEventListener("pointerover", (event) => {
    if (event.pointerType !== "mouse") return;
    // placing a Café card: the pointer carries the card's preview, the cells stay quiet
    const el = event.target.closest && event.target.closest(".area-svg.placing") ? null : tipTarget(event.target);
    if (!el) {
      if (target && !pinned) later(unpinnedHide, 60);
      return;
    }
    if (el === target) {
      clearTimeout(hoverTimer);
      return;
    }
    if (pinned) return;
    later(() => show(el), HOVER_DELAY_MS);
  });
  document.addEventListener("pointerout", (event) => {
    if (event.pointerType !== "mouse" || pinned) return;
    const el = tipTarget(event.target);
    if (el && !el.contains(event.relatedTarget)) {
      clearTimeout(hoverTimer);
      if (target === el) later(unpinnedHide, 60);
    }
  });
  document.addEventListener("focusin", (event) => {
    // the keyboard's focus only (:focus-visible): a tap or a click that focuses a button shows nothing
    const el = event.target.matches && event.target.matches("[data-tip]:focus-visible") ? event.target : null;
    if (el) show(el);
    else if (target && !pinned) hide();
  });
  document.addEventListener("focusout", (event) => {
    if (target && event.target === target && !pinned) hide();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && target) hide();
  });
  window.addEventListener("scroll", () => { if (target) place(); }, { passive: true, capture: true });
  window.addEventListener("resize", () => { if (target) place(); });
  window.addEventListener("hashchange", hide);
}

if (typeof document !== "undefined") install();
