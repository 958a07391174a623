// The interactive tutorial: a script of steps played over a real tutorial table (the server
// deals a fixed deal against a bot, server/tutorial.py; the game follows the normal protocol).
// Each step says something (static/tutorial/GAME.LANG.json), points at what to click
// (`target`: CSS selectors; `cells`: the cells or squares of the legal moves it expects) and
// waits for one of:
//   next                 the Next button
//   expect: REGEX        the player's move (a notation from `legal`); `times` of them
//   until: CONDITION     a position: "legal:REGEX" (a legal move matches) or "mine" (our move)
// While a step expects a move, a move that matches neither `expect` nor `allow` is not sent:
// the page explains why instead (`wrong`: [{match, say}], else the step's ".wrong" text).
// `optional` steps are skipped when their `skip` condition holds and the move they expect is
// not possible. Other steps let
// every move through. Progress is kept in localStorage.

import { button, h, mount } from "./dom.js";
import { hasHt, ht, loadLearnText, rich } from "./learn-text.js";

const STORE = (id) => `coffeetable.tutorial.${id}`;

export function tutorialOf(tableId) {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE(tableId)) || "null");
    return saved && !saved.done ? saved : null;
  } catch {
    return null;
  }
}

export async function createTutorial({ tableId, game, root }) {
  const script = await (await fetch(`/tutorial/${game}.json`, { cache: "no-cache" })).json();
  await loadLearnText([game]);
  const saved = tutorialOf(tableId) || { game, step: 0 };
  let index = Math.min(saved.step || 0, script.steps.length - 1);
  let done = 0; // matching moves sent in this step
  let wrong = null; // the explanation of a refused move
  let folded = false;
  let model = null;
  let sent = null; // {action, version}: our last guided move, until the table shows it played
  const panel = h("aside", { class: "tut-panel", id: "tutorial", role: "region", "aria-live": "polite" });
  document.body.append(panel);

  const step = () => script.steps[index];
  const key = (id) => `tut.${game}.${id}`;
  const save = () => localStorage.setItem(STORE(tableId), JSON.stringify({ game, step: index }));
  const legal = () => (model && model.legal) || [];
  const matches = (pattern, action) => new RegExp(pattern).test(action);

  function holds(condition) {
    if (!condition || !model) return false;
    if (condition === "mine") return legal().length > 0;
    if (condition.startsWith("legal:")) return legal().some((a) => matches(condition.slice(6), a));
    if (condition === "over") return !!(model.view && model.view.over);
    return false;
  }

  function advance() {
    index = Math.min(index + 1, script.steps.length - 1);
    done = 0;
    wrong = null;
    save();
    settle();
  }

  /** Whether the position on screen comes after our last guided move. */
  function caughtUp() {
    if (!sent || !model) return !sent;
    const played = (model.log || []).some((e) => e.version > sent.version && e.seat === model.seat && e.action === sent.action);
    if (played) sent = null;
    return played;
  }

  /** Skip what the position already answers: waits that hold, optional moves now impossible. */
  function settle() {
    for (let guard = 0; guard < script.steps.length; guard++) {
      const st = step();
      if (st.until && holds(st.until)) {
        index++;
        continue;
      }
      // an optional move is skipped once the position shows it cannot come (`skip`: a
      // condition such as "legal:^(end|take )$"), not while an older position is on screen
      if (st.expect && st.optional && caughtUp() && holds(st.skip) && !legal().some((a) => matches(st.expect, a))) {
        index++;
        continue;
      }
      break;
    }
    index = Math.min(index, script.steps.length - 1);
    save();
    render();
  }

  /** Called by the table before a move is sent: true lets it through. */
  function allow(action) {
    const st = step();
    if (!st.expect) return true; // while the page explains, the player may play on
    if (matches(st.expect, action)) {
      sent = { action, version: model ? model.version : -1 };
      done++;
      wrong = null;
      if (done >= (st.times || 1)) advance();
      else render();
      return true;
    }
    if (st.allow && matches(st.allow, action)) return true;
    const specific = (st.wrong || []).find((w) => matches(w.match, action));
    const text = specific ? key(`${st.id}.${specific.say}`) : key(`${st.id}.wrong`);
    wrong = hasHt(text) ? ht(text) : ht(key("wrong"));
    folded = false;
    render();
    return false;
  }

  function targets() {
    const st = step();
    const out = [];
    if (st.target) out.push(...root.ownerDocument.querySelectorAll(st.target));
    if (st.cells && st.expect) {
      for (const a of legal().filter((x) => matches(st.expect, x))) {
        const cell = /(-?\d+,-?\d+)/.exec(a);
        const square = /^(?:place )?([a-d][1-4])(?:-([a-d][1-4]))?$/.exec(a);
        if (game === "cafe" && cell) out.push(...root.querySelectorAll(`.area-card.mine [data-cell="${cell[1]}"]`));
        if (square) out.push(...root.querySelectorAll(`[data-square="${square[2] || square[1]}"]`));
      }
    }
    return out;
  }

  function highlight() {
    for (const node of root.ownerDocument.querySelectorAll(".tut-target")) node.classList.remove("tut-target");
    if (folded) return;
    for (const node of targets()) node.classList.add("tut-target");
  }

  function render() {
    const st = step();
    if (folded) {
      panel.classList.add("folded");
      mount(panel, button(ht("tutorial.show"), () => { folded = false; render(); }, { class: "small", id: "tutorial-show" }));
      highlight();
      return;
    }
    panel.classList.remove("folded");
    const waiting = (st.expect && !legal().some((a) => matches(st.expect, a))) || (st.until && !holds(st.until));
    mount(panel,
      h("h2", {}, ht("tutorial.title"), h("span", { class: "muted", id: "tutorial-step" }, ht("tutorial.step", { n: index + 1, total: script.steps.length }))),
      h("p", { class: "tut-text", id: "tutorial-text", "data-step": st.id }, rich(ht(key(st.id)), h)),
      wrong ? h("p", { class: "tut-wrong", id: "tutorial-wrong", role: "alert" }, h("strong", {}, ht("tutorial.not_now")), " ", wrong) : null,
      waiting && !model?.view?.over ? h("p", { class: "tut-wait" }, ht("tutorial.waiting")) : null,
      h("div", { class: "tut-buttons" },
        h("a", { href: `#/help/${game}`, target: "_blank", rel: "noopener", class: "button small" }, ht("tutorial.help_link")),
        button(ht("tutorial.close"), () => { folded = true; render(); }, { class: "small", id: "tutorial-hide" }),
        st.next ? button(ht("tutorial.next"), advance, { class: "small primary", id: "tutorial-next" }) : null,
        st.finish ? button(ht("tutorial.finish"), finish, { class: "small primary", id: "tutorial-finish" }) : null));
    highlight();
  }

  function finish() {
    localStorage.setItem(STORE(tableId), JSON.stringify({ game, step: index, done: true }));
    mount(panel, h("p", { class: "tut-text", id: "tutorial-done" }, ht("tutorial.done")),
      h("div", { class: "tut-buttons" }, button(ht("tutorial.close"), destroy, { class: "small", id: "tutorial-close" })));
    highlight();
  }

  // the renderers redraw on every click: point again after each redraw
  let queued = false;
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; highlight(); });
  });
  observer.observe(root, { childList: true, subtree: true });

  function destroy() {
    observer.disconnect();
    for (const node of root.ownerDocument.querySelectorAll(".tut-target")) node.classList.remove("tut-target");
    panel.remove();
  }

  render();
  return {
    allow,
    update(next) {
      model = next;
      settle();
    },
    relabel: async () => { await loadLearnText([game]); render(); },
    destroy,
  };
}
