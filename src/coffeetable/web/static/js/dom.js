// DOM helpers. Text always goes in through text nodes (textContent), never parsed as HTML,
// so names and other data from the server can never become markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(el, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(el, c);
  } else if (child instanceof Node) {
    el.appendChild(child);
  } else {
    el.appendChild(document.createTextNode(String(child)));
  }
}

function setAttrs(el, attrs, svg) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class" && Array.isArray(value)) {
      const names = value.filter(Boolean).join(" ");
      if (names) el.setAttribute("class", names);
    } else if (key === "style" && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) el.style.setProperty(k, v);
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = v;
    } else if (!svg && (key === "value" || key === "checked" || key === "disabled" || key === "selected")) {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

/** h("div", {class: "x", onclick: fn}, "text", child, [more]) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs, false);
  append(el, children);
  return el;
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs, true);
  append(el, children);
  return el;
}

/** An SVG <text> element. */
export function stext(x, y, text, attrs = {}) {
  return s("text", { x, y, ...attrs }, String(text));
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** A button. When its handler returns a promise (a request to the server), the button is
 * disabled until the promise settles, so that a double click sends one request; it stays
 * disabled when the promise gives `true` (done: the page redraws itself). */
export function button(label, onClick, attrs = {}) {
  const el = h("button", { type: "button", ...attrs }, label);
  if (!onClick) return el;
  el.addEventListener("click", (event) => {
    if (el.dataset.busy) return;
    const result = onClick(event);
    if (!result || typeof result.then !== "function") return;
    el.dataset.busy = "1";
    el.disabled = true;
    el.setAttribute("aria-busy", "true");
    const release = (value) => {
      el.removeAttribute("aria-busy");
      if (value === true) return;
      delete el.dataset.busy;
      el.disabled = !!attrs.disabled;
    };
    result.then(release, () => release(false));
  });
  return el;
}

/** A made-up id for one request that creates something (the server's `request_id`): a
 * repeated request with it gets the same answer instead of a second table. */
export function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) return "∞";
  const total = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const pad = (n) => String(n).padStart(2, "0");
  if (hours >= 24) return `${Math.floor(hours / 24)}d ${hours % 24}h`;
  if (hours) return `${hours}:${pad(minutes)}:${pad(secs)}`;
  return `${minutes}:${pad(secs)}`;
}
