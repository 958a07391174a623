// Game review beside the replay: ask for it, wait for it, then a graph of the bot's estimate
// before each move of one seat (SVG), the mistakes marked on it, where the points went, and a
// mistake opened: the board after the move made and after the bot's move, side by side.
// The review is made on the server (bots/review.py); this only shows it (docs/web.md).

import { api, errorText } from "./api.js";
import { seatName, soloLabel } from "./common.js";
import { button, h, mount, s, stext } from "./dom.js";
import { t } from "./i18n.js";
import { sayOnBoard } from "./logview.js";
import { logText } from "./say.js";

const POLL_MS = 1500;
const GRADES = ["blunder", "mistake", "inaccuracy"];
const W = 560;
const H = 180;
const PAD = { left: 44, right: 10, top: 12, bottom: 26 };

function reviewUrl(tableId, budget) {
  return `/api/tables/${encodeURIComponent(tableId)}/review?budget=${encodeURIComponent(budget)}`;
}

/** The loss of a move in the player's words: VP solo, winning chance otherwise. */
export function lossText(loss, unit) {
  return unit === "VP"
    ? t("review.loss_vp", { loss: loss.toFixed(1) })
    : t("review.loss_win", { loss: Math.round(100 * loss) });
}

/** When a move was made: Café's round, otherwise the seat's turn. */
function whenText(move) {
  return move.round ? t("review.when_round", { round: move.round }) : t("review.when_turn", { turn: move.turn });
}

/**
 * The review panel of a finished table. `jump(n)` shows the replay after `n` moves;
 * `renderers()` loads the game's board renderer module (for the boards side by side);
 * `viewAt(n)` answers the public view after `n` moves (the replay's, cached there), so that
 * a Café move's positions are said in rows and columns of the board it was made on.
 */
export function createReview({ table, jump, renderers, viewAt = null, budget = "quick" }) {
  const el = h("section", { class: "card review", id: "review", "aria-live": "polite" });
  let review = null;
  let seat = 0;
  let timer = null;
  let opened = null; // the boards of the mistake shown
  let closed = false;
  let openings = 0; // mistakes opened so far: only the last one opened is drawn

  const name = (i) => seatName(table.seats[i], i);

  /** A move in words; with `view` (the board before it) Café positions as rows and columns. */
  function say(move, which, view = null) {
    const said = sayOnBoard(table.game, move[`${which}_say`], view, move.seat);
    return logText({ say: said, text: move[`${which}_text`] }, name(move.seat));
  }

  /** The list's Café moves reworded once the boards they were made on are known. */
  async function wordMistakes(list, mistakes) {
    if (!viewAt || table.game !== "cafe") return;
    for (const move of mistakes) {
      let view;
      try {
        view = await viewAt(move.index);
      } catch {
        continue; // the engine's words stay
      }
      const link = list.isConnected && list.querySelector(`a[data-index="${move.index}"]`);
      if (!link) return;
      link.textContent = `${whenText(move)}: ${say(move, "played", view)}`;
    }
  }

  function showStatus(answer) {
    if (closed) return; // the page was left while the answer came
    if (answer.status === "done") {
      review = answer.review;
      seat = review.reviewed.includes(seat) ? seat : review.reviewed[0];
      render();
      return;
    }
    if (answer.status === "failed") {
      mount(el, h("h2", {}, t("review.title")),
        h("p", { class: "error", id: "review-failed" }, t("review.failed")),
        button(t("review.retry"), ask, { id: "review-retry" }));
      return;
    }
    const progress = answer.progress;
    mount(el, h("h2", {}, t("review.title")),
      h("p", { id: "review-progress" }, progress
        ? t("review.running", { done: progress.done, total: progress.total })
        : t("review.queued")),
      progress ? h("progress", { max: progress.total, value: progress.done }) : null);
    clearTimeout(timer);
    timer = setTimeout(poll, POLL_MS);
  }

  async function poll() {
    if (closed) return;
    try {
      showStatus(await api.get(reviewUrl(table.id, budget)));
    } catch (err) {
      mount(el, h("h2", {}, t("review.title")), h("p", { class: "error" }, errorText(err)));
    }
  }

  async function ask() {
    if (closed) return;
    try {
      showStatus(await api.post(`/api/tables/${encodeURIComponent(table.id)}/review`, { budget }));
    } catch (err) {
      mount(el, h("h2", {}, t("review.title")), h("p", { class: "error", id: "review-error" }, errorText(err)),
        button(t("review.retry"), ask, { id: "review-retry" }));
    }
  }

  /** The estimate before each move of the seat, and the mistakes marked. */
  function graph(moves, unit) {
    const values = moves.map((m) => m.estimate_before);
    let lo = unit === "VP" ? Math.min(...values, ...moves.map((m) => m.played_estimate)) : 0;
    let hi = unit === "VP" ? Math.max(...values, ...moves.map((m) => m.played_estimate)) : 1;
    if (hi - lo < 1e-9) { hi += 1; lo -= 1; }
    const x = (i) => PAD.left + (moves.length > 1 ? (i * (W - PAD.left - PAD.right)) / (moves.length - 1) : 0);
    const y = (v) => PAD.top + ((hi - v) * (H - PAD.top - PAD.bottom)) / (hi - lo);
    const fmt = (v) => (unit === "VP" ? v.toFixed(0) : `${Math.round(100 * v)}%`);
    const points = moves.map((m, i) => `${x(i).toFixed(1)},${y(m.estimate_before).toFixed(1)}`).join(" ");
    const marks = [];
    moves.forEach((m, i) => {
      if (!m.grade || m.grade === "inaccuracy") return;
      const label = `${whenText(m)}: ${say(m, "played")} (${lossText(m.loss, unit)})`;
      marks.push(s("line", { x1: x(i), x2: x(i), y1: y(m.estimate_before), y2: y(m.played_estimate), class: `drop ${m.grade}` }));
      marks.push(s("circle", {
        cx: x(i), cy: y(m.played_estimate), r: m.grade === "blunder" ? 6 : 4.5,
        class: ["mark", m.grade], tabindex: 0, role: "button", "aria-label": label,
        "data-index": m.index,
        onclick: () => openMove(m),
        onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openMove(m); } },
      }, s("title", {}, label)));
    });
    return s("svg", {
      class: "review-graph", id: "review-graph", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": t("review.graph", { name: name(seat) }),
    },
    s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(hi), y2: y(hi), class: "grid" }),
    s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(lo), y2: y(lo), class: "grid" }),
    stext(PAD.left - 6, y(hi) + 4, fmt(hi), { "text-anchor": "end", class: "axis" }),
    stext(PAD.left - 6, y(lo) + 4, fmt(lo), { "text-anchor": "end", class: "axis" }),
    stext(W / 2, H - 6, t(unit === "VP" ? "review.axis_vp" : "review.axis_win"), { "text-anchor": "middle", class: "axis" }),
    s("polyline", { points, class: "estimate" }),
    marks);
  }

  function summaryOf(summary) {
    const unit = summary.unit;
    const phases = Object.entries(summary.phases);
    return h("div", { class: "review-summary", id: "review-summary" },
      h("p", { id: "review-total" }, unit === "VP"
        ? t("review.total_vp", { loss: summary.total_loss.toFixed(1) })
        : t("review.total_win", { loss: Math.round(100 * summary.total_loss) })),
      h("p", {}, GRADES.map((g) => `${t(`review.grade.${g}`)}: ${summary.grades[g] ?? 0}`).join(" · ")),
      h("h3", {}, t("review.phases")),
      h("ul", { class: "review-phases" }, phases.map(([phase, loss]) =>
        h("li", { "data-phase": phase }, `${t(`review.phase.${phase}`)}: ${lossText(loss, unit)}`))),
      summary.rating ? h("p", { id: "review-rating" }, t("review.rating", {
        band: soloLabel(summary.rating), score: summary.score_with_suggestions.toFixed(1),
        better: soloLabel(summary.rating_with_suggestions),
      })) : null);
  }

  function render() {
    if (!review) return;
    const moves = review.moves.filter((m) => m.seat === seat);
    const summary = review.summaries.find((x) => x.seat === seat);
    const unit = summary ? summary.unit : "VP";
    const mistakes = moves.filter((m) => m.grade === "mistake" || m.grade === "blunder")
      .sort((a, b) => b.loss - a.loss);
    mount(el,
      h("h2", {}, t("review.title")),
      review.reviewed.length > 1 ? h("label", { class: "review-seat" }, t("review.seat"), " ",
        h("select", { id: "review-seat", onchange: (e) => { seat = Number(e.target.value); opened = null; render(); } },
          review.reviewed.map((i) => h("option", { value: i, selected: i === seat }, name(i))))) : null,
      moves.length ? graph(moves, unit) : h("p", {}, t("review.no_moves")),
      summary ? summaryOf(summary) : null,
      h("h3", {}, t("review.mistakes")),
      mistakes.length
        ? h("ol", { class: "review-mistakes", id: "review-mistakes" }, mistakes.map((m) =>
          h("li", { class: m.grade },
            h("a", { href: "#", "data-index": m.index, onclick: (e) => { e.preventDefault(); openMove(m); } },
              `${whenText(m)}: ${say(m, "played")}`),
            ` (${t(`review.kind.${m.grade}`)}, ${lossText(m.loss, unit)})`)))
        : h("p", { id: "review-no-mistakes" }, t("review.no_mistakes")),
      h("div", { class: "review-compare", id: "review-compare" }));
    const list = el.querySelector("#review-mistakes");
    if (list) wordMistakes(list, mistakes);
  }

  /** A mistake opened: the replay jumps to it, and the two boards are shown side by side.
   * Only the last one opened is drawn: one opened before it, or the page left, while its
   * boards were on their way stops there (and destroys the renderers it made). */
  async function openMove(move) {
    const mine = ++openings;
    const stale = () => closed || mine !== openings;
    jump(move.index + 1);
    const box = el.querySelector("#review-compare");
    if (!box) return;
    mount(box, h("p", {}, t("review.loading")));
    if (opened) opened.forEach((r) => r.destroy());
    opened = null;
    let data;
    try {
      data = await api.get(`/api/tables/${encodeURIComponent(table.id)}/review/moves/${move.index}?budget=${encodeURIComponent(budget)}`);
    } catch (err) {
      if (!stale()) mount(box, h("p", { class: "error" }, errorText(err)));
      return;
    }
    const module = await renderers();
    if (stale()) return;
    const unit = review.summaries.find((x) => x.seat === move.seat)?.unit || "VP";
    const sides = [
      ["played", t("review.played"), say(move, "played", data.before)],
      ["suggested", t("review.suggested"), say(move, "suggested", data.before)],
    ];
    const made = [];
    const columns = [];
    for (const [which, title, words] of sides) {
      const board = h("div", { class: "board-box board-readonly review-board" });
      const view = data[which] || data.before;
      if (view) {
        const renderer = module.createRenderer({ act: () => false, interactive: false });
        made.push(renderer);
        board.appendChild(renderer.el);
        await renderer.update({ table, view, legal: [], seat: null, clock: null, over: false });
        if (stale()) {
          made.forEach((r) => r.destroy());
          return;
        }
      }
      columns.push(h("figure", { class: "review-side", id: `review-${which}` },
        h("figcaption", {}, h("strong", {}, title), ": ", words), board));
    }
    opened = made;
    mount(box,
      h("div", { class: "review-head" },
        h("h3", {}, `${whenText(move)} · ${lossText(move.loss, unit)}`),
        button(t("review.close"), () => { opened.forEach((r) => r.destroy()); opened = null; mount(box); }, { class: "small", id: "review-close" })),
      h("div", { class: "review-sides" }, columns));
  }

  return {
    el,
    /** Show the stored review; with none, ask for one (`askNow`) or show the button that does. */
    async start({ askNow = false } = {}) {
      try {
        showStatus(await api.get(reviewUrl(table.id, budget)));
      } catch (err) {
        if (closed) return; // nobody is looking: no review is asked for
        if (err.status === 404 && err.code === "no_review" && askNow) {
          await ask();
        } else if (err.status === 404 && err.code === "no_review") {
          mount(el, h("h2", {}, t("review.title")), h("p", {}, t("review.explain")),
            button(t("review.open"), ask, { id: "review-ask" }));
        } else {
          mount(el, h("p", { class: "error" }, errorText(err)));
        }
      }
    },
    ask,
    relabel: render,
    destroy() {
      closed = true;
      clearTimeout(timer);
      if (opened) opened.forEach((r) => r.destroy());
    },
  };
}
