// Any board enlarged (docs/web.md, "Boards"): each player's board (a Café business area, a
// Coffee Rush player's cups and counters) and Coffee Rush's ingredient board has an Enlarge
// button; it opens the board large in a dialog, drawn again after every update while it is
// open, and Escape, the Close button or a tap outside the board closes it. The large board is
// a copy to look at: moves are made on the table itself.

import { button, h, mount } from "./dom.js";
import { t } from "./i18n.js";

/** `root`: the element the renderer draws into; `title(which)`: the dialog's title for a
 * seat number or "board". */
export function createBoards({ root, title }) {
  let open = null; // the seat (or "board") shown large
  let opener = null; // the button that opened it (focus goes back to it)
  const body = h("div", { class: "board-zoom-body", id: "board-zoom-body" });
  const heading = h("h2", { id: "board-zoom-title" });
  const dialog = h("dialog", { class: "board-zoom", id: "board-zoom", "aria-labelledby": "board-zoom-title" },
    h("div", { class: "board-zoom-frame" },
      h("div", { class: "board-zoom-head" }, heading,
        button(t("boards.close"), () => close(), { class: "small", id: "board-zoom-close", "aria-label": t("boards.close") })),
      body));
  dialog.addEventListener("close", () => {
    const was = open;
    open = null;
    body.replaceChildren();
    // focus goes back to the Enlarge button (drawn again meanwhile if the board changed)
    const back = opener && opener.isConnected ? opener : root.querySelector(`[data-enlarge="${was}"]`);
    if (back) back.focus({ preventScroll: true });
  });
  // a tap on the backdrop (outside the frame) closes it
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) close();
  });

  function source(which) {
    if (which === "board") return root.querySelector("#rush-board");
    return root.querySelector(`.area-card[data-seat="${which}"], .rush-player[data-player="${which}"]`);
  }

  /** A copy of the board without ids, focus stops or working buttons. */
  function copy(el) {
    const out = el.cloneNode(true);
    out.removeAttribute("id");
    for (const n of out.querySelectorAll("[id]")) n.removeAttribute("id");
    for (const n of out.querySelectorAll(".board-tools")) n.remove();
    for (const n of out.querySelectorAll("[tabindex]")) n.removeAttribute("tabindex");
    for (const n of out.querySelectorAll("button")) n.disabled = true;
    for (const n of out.querySelectorAll("[role=button]")) n.removeAttribute("role");
    out.classList.add("enlarged");
    return out;
  }

  function draw() {
    if (open === null) return;
    const el = source(open);
    if (!el) {
      close();
      return;
    }
    heading.textContent = title(open);
    mount(body, copy(el));
    body.dataset.which = String(open);
  }

  function show(which, from) {
    open = which;
    opener = from || null;
    if (!dialog.isConnected) document.body.append(dialog);
    draw();
    if (!dialog.open) dialog.showModal();
    dialog.querySelector("#board-zoom-close").focus({ preventScroll: true });
  }

  function close() {
    if (dialog.open) dialog.close();
  }

  return {
    /** The Enlarge button for a seat's board (or "board"), for the renderer's headers. */
    tools(which) {
      const label = t("boards.enlarge_label", { name: title(which) });
      const b = button("⤢", (event) => show(which, event.currentTarget), {
        class: "icon small board-enlarge", title: label, "aria-label": label, "data-enlarge": String(which),
        "aria-haspopup": "dialog",
      });
      return h("span", { class: "board-tools" }, b);
    },
    /** After every redraw: the open dialog shows the board as it is now. */
    refresh: draw,
    isOpen: () => open !== null,
    close,
    destroy() {
      close();
      dialog.remove();
    },
  };
}
