// The first page's introduction: what each game is, in two lines, with one-click buttons
// "Play a tutorial" (POST /api/tutorial/GAME) and "Play now against a bot" (a 2-seat table
// against greedy, started at once), and a link to How to play. A visitor who is not logged
// in plays as a guest: no form.

import { api, errorText } from "./api.js";
import { go, refreshSession, session, toast } from "./shell.js";
import { rememberHost } from "./common.js";
import { button, h, mount } from "./dom.js";
import { ht, loadLearnText } from "./learn-text.js";

export const GAMES = ["cafe", "coffee-rush"];
export const QUICK_BOT = "greedy";

async function ensureSession() {
  if (session.user) return;
  await api.guest();
  await refreshSession();
}

/** Run `fn` with every button of `box` disabled (one click, one request). */
async function busy(box, fn) {
  const buttons = [...box.querySelectorAll("button")];
  for (const b of buttons) b.disabled = true;
  try {
    await fn();
  } catch (err) {
    toast(errorText(err));
    for (const b of buttons) b.disabled = false;
  }
}

export async function startTutorial(game) {
  await ensureSession();
  const table = await api.post(`/api/tutorial/${encodeURIComponent(game)}`);
  rememberHost(table.id, session.user);
  if (table.invite) localStorage.setItem(`coffeetable.invite.${table.id}`, table.invite);
  localStorage.setItem(`coffeetable.tutorial.${table.id}`, JSON.stringify({ game, step: 0 }));
  go(`#/table/${table.id}`);
}

export async function playNow(game) {
  await ensureSession();
  const table = await api.createTable({
    game, options: {}, seats: [{ kind: "human" }, { kind: "bot", bot: QUICK_BOT }], clock: null, rated: false, private: false,
  });
  rememberHost(table.id, session.user);
  await api.start(table.id);
  go(`#/table/${table.id}`);
}

export function introBox() {
  const el = h("section", { class: "intro", id: "intro" });
  async function render() {
    await loadLearnText();
    mount(el, GAMES.map((game) => {
      const card = h("div", { class: "intro-game card", "data-intro": game });
      mount(card,
        h("h2", {}, ht(`intro.${game}.name`)),
        h("p", { class: "intro-line" }, ht(`intro.${game}.line1`)),
        h("p", { class: "intro-line" }, ht(`intro.${game}.line2`)),
        h("div", { class: "intro-actions" },
          button(ht("intro.tutorial"), () => busy(card, () => startTutorial(game)), { class: "primary", "data-tutorial": game }),
          button(ht("intro.play_now"), () => busy(card, () => playNow(game)), { "data-play-now": game }),
          h("a", { href: `#/help/${game}`, class: "intro-help", "data-help-link": game }, ht("intro.how_to_play"))));
      return card;
    }));
  }
  render();
  return { el, relabel: render };
}
