// My decks (#/decks; docs/web.md, "Decks"): upload a Café deck or Coffee Rush card file with
// who may use it, the decks the player may use (own, friends', public) with their provenance,
// and for each: download, open in the editor, a bot calibration run and its figures; the
// owner changes who may use it, or deletes it.

import { api, errorText, TextBody } from "./api.js";
import { requireLogin, session, toast } from "./shell.js";
import { gameTitle } from "./common.js";
import { VISIBILITIES, filePicker, fileText, problemList } from "./deckedit.js";
import { button, h, mount } from "./dom.js";
import { t, tn, tOr } from "./i18n.js";

const GAMES = ["cafe", "coffee-rush"];
const POLL_MS = 2000; // how often a calibration that runs is asked about

const CARD_COLUMNS = ["card", "offered", "picked", "rate", "takers_mean", "difference"];

function shown(value) {
  if (typeof value === "boolean") return t(value ? "decks.fig_yes" : "decks.fig_no");
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(value < 1 && value > -1 ? 3 : 2);
  if (value === null || value === undefined) return "—";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** The calibration figures (bots/calibrate.py; the design doc's "Calibration measurements"):
 * the deck's figures, then each card's, biggest score difference first. */
function figuresTable(figures) {
  const f = figures && typeof figures === "object" ? figures : {};
  const label = (key) => tOr(`decks.fig.${key}`, key);
  const rows = Object.entries(f).filter(([k]) => k !== "cards")
    .map(([k, v]) => h("tr", { "data-figure": k }, h("th", { scope: "row" }, label(k)), h("td", {}, shown(v))));
  const cards = Array.isArray(f.cards) ? f.cards : [];
  return h("div", { class: "figures-box" },
    rows.length ? h("table", { class: "figures" }, h("tbody", {}, rows)) : h("p", { class: "muted" }, t("decks.calibration_empty")),
    cards.length ? h("details", { class: "figure-cards" }, h("summary", {}, t("decks.fig_per_card")),
      h("table", { class: "figures" },
        h("thead", {}, h("tr", {}, CARD_COLUMNS.map((c) => h("th", { scope: "col" }, label(c))))),
        h("tbody", {}, cards.map((card) => h("tr", {}, CARD_COLUMNS.map((c) => h("td", {}, shown(card[c])))))))) : null);
}

export function decksView() {
  const el = h("section", { class: "decks-page", id: "decks-page" });
  if (!requireLogin()) return { el };
  let decks = []; // every deck the player may use, both games
  let loaded = false;
  let uploadGame = "cafe";
  let uploadVisibility = "private";
  let uploadProblems = [];
  const polls = new Map(); // sha -> timer of a calibration asked about
  const calibrations = new Map(); // sha -> the last answer
  let gone = false;

  const uploadBox = h("div", { class: "card upload-box", id: "upload-box" });
  const listBox = h("div", { class: "card deck-table", id: "deck-table" });

  async function load() {
    try {
      const lists = await Promise.all(GAMES.map((g) => api.decks(g)));
      decks = lists.flat();
    } catch (err) {
      toast(errorText(err));
    }
    loaded = true;
    if (!gone) renderList();
  }

  async function upload(file) {
    uploadProblems = [];
    const text = await fileText(file);
    if (text === null) return;
    try {
      const deck = await api.uploadDeck(uploadGame, uploadVisibility, new TextBody(text));
      toast(t("decks.saved", { name: deck.name }), "info");
      await load();
    } catch (err) {
      if (err.code === "invalid_deck") uploadProblems = err.problems || [];
      toast(err.code === "invalid_deck" ? t("decks.upload_invalid") : err.status === 413 ? t("decks.too_large") : errorText(err));
    }
    renderUpload();
  }

  function renderUpload() {
    mount(uploadBox,
      h("h2", {}, t("decks.upload")),
      h("p", { class: "hint" }, t("decks.upload_help")),
      h("div", { class: "inline" },
        h("label", { class: "field" }, t("decks.game"),
          h("select", { id: "upload-game", onchange: (e) => { uploadGame = e.target.value; } },
            GAMES.map((g) => h("option", { value: g, selected: g === uploadGame }, gameTitle(g))))),
        h("label", { class: "field" }, t("decks.visibility"),
          h("select", { id: "upload-visibility", onchange: (e) => { uploadVisibility = e.target.value; } },
            VISIBILITIES.map((v) => h("option", { value: v, selected: v === uploadVisibility }, t(`decks.visibility_${v}`))))),
        filePicker(t("decks.upload_file"), ".toml,text/plain,application/toml", upload, "upload-file")),
      uploadProblems.length ? problemList(uploadProblems, { id: "upload-problems" }, true) : null,
      h("p", {},
        h("a", { href: "#/decks/edit/cafe", class: "button small", id: "edit-cafe" }, t("decks.open_editor_card")), " ",
        h("a", { href: "#/decks/edit/coffee-rush", class: "button small", id: "edit-rush" }, t("decks.open_editor_drink"))));
  }

  async function setVisibility(deck, visibility) {
    try {
      const answer = await api.setDeckVisibility(deck.sha256, visibility);
      Object.assign(deck, answer && answer.visibility ? answer : { visibility });
      toast(t("decks.visibility_set", { name: deck.name, visibility: t(`decks.visibility_${visibility}`) }), "info");
    } catch (err) {
      toast(errorText(err));
    }
    renderList();
  }

  async function remove(deck) {
    if (!confirm(t("decks.delete_confirm", { name: deck.name }))) return;
    try {
      await api.deleteDeck(deck.sha256);
      decks = decks.filter((d) => d.sha256 !== deck.sha256);
      toast(t("decks.deleted", { name: deck.name }), "info");
    } catch (err) {
      toast(errorText(err));
    }
    renderList();
  }

  async function poll(sha) {
    clearTimeout(polls.get(sha));
    try {
      calibrations.set(sha, await api.calibration(sha));
    } catch (err) {
      calibrations.set(sha, { status: "failed", error: errorText(err) });
    }
    if (gone) return;
    const status = calibrations.get(sha).status;
    if (status === "queued" || status === "running") polls.set(sha, setTimeout(() => poll(sha), POLL_MS));
    renderCalibration(sha);
  }

  async function calibrate(deck) {
    try {
      await api.calibrate(deck.sha256);
    } catch (err) {
      if (err.status !== 409) { // 409: one runs already; its figures follow
        toast(errorText(err));
        return;
      }
    }
    calibrations.set(deck.sha256, { status: "queued" });
    renderCalibration(deck.sha256);
    poll(deck.sha256);
  }

  function calibrationBox(deck) {
    const answer = calibrations.get(deck.sha256);
    const status = answer ? answer.status : null;
    const busy = status === "queued" || status === "running";
    return h("div", { class: "calibration", "data-calibration": deck.sha256, "aria-live": "polite" },
      button(t("decks.calibrate"), () => calibrate(deck), { class: "small", "data-calibrate": deck.sha256, disabled: busy, title: t("decks.calibrate_help") }),
      status ? h("span", { class: ["calibration-status", status], "data-status": status }, t(`decks.calibration_${status}`)) : null,
      answer && answer.finished ? h("span", { class: "muted" }, new Date(answer.finished).toLocaleString()) : null,
      status === "failed" && answer.error ? h("span", { class: "muted" }, answer.error) : null,
      status === "done" ? figuresTable(answer.figures) : null);
  }

  function renderCalibration(sha) {
    const deck = decks.find((d) => d.sha256 === sha);
    const box = listBox.querySelector(`[data-calibration="${sha}"]`);
    if (deck && box) box.replaceWith(calibrationBox(deck));
  }

  function provenance(deck) {
    const p = deck.provenance && typeof deck.provenance === "object" ? deck.provenance : {};
    const sources = Array.isArray(p.sources) ? p.sources : [];
    if (!p.summary && !sources.length) return null;
    return h("div", { class: "provenance" },
      h("strong", {}, t("decks.provenance"), ": "),
      typeof p.summary === "string" ? h("span", {}, p.summary) : null,
      sources.length ? h("ul", {}, sources.map((x) => h("li", {}, String(x)))) : null);
  }

  function deckRow(deck) {
    const mine = session.user && deck.owner === session.user.name;
    const kind = deck.reconstructed ? "reconstruction" : "transcription";
    return h("li", { class: "deck-row", "data-deck": deck.sha256, "data-game": deck.game },
      h("div", { class: "row-head" },
        h("strong", { class: "deck-name" }, deck.name),
        h("span", { class: "muted" }, gameTitle(deck.game)),
        h("span", { class: ["tag", `deck-${kind}`], "data-kind": kind }, t(`decks.${kind}`)),
        h("span", { class: "muted" }, tn(deck.game === "cafe" ? "decks.n_cards" : "decks.n_drinks", deck.cards)),
        h("span", { class: "muted" }, mine ? t("decks.yours") : t("decks.by", { name: deck.owner })),
        h("code", { class: "muted sha", title: deck.sha256 }, deck.sha256.slice(0, 12))),
      kind === "transcription" ? h("p", { class: "hint" }, t("decks.transcription_help")) : null,
      provenance(deck),
      h("div", { class: "deck-actions" },
        mine
          ? h("label", { class: "field inline-field" }, t("decks.visibility"),
            h("select", { "data-visibility": deck.sha256, onchange: (e) => setVisibility(deck, e.target.value) },
              VISIBILITIES.map((v) => h("option", { value: v, selected: v === deck.visibility }, t(`decks.visibility_${v}`)))))
          : h("span", { class: "muted" }, t(`decks.visibility_${deck.visibility}`)),
        h("a", { href: api.deckFileUrl(deck.sha256), download: `${deck.sha256.slice(0, 12)}.toml`, class: "button small", "data-download": deck.sha256 }, t("decks.download")),
        h("a", { href: `#/decks/edit/${deck.game}?from=${deck.sha256}`, class: "button small", "data-edit": deck.sha256 }, t("decks.edit")),
        mine ? button(t("decks.delete"), () => remove(deck), { class: "small danger", "data-delete": deck.sha256 }) : null),
      calibrationBox(deck));
  }

  function renderList() {
    mount(listBox,
      h("h2", {}, t("decks.usable")),
      h("p", { class: "hint" }, t("decks.usable_help")),
      !loaded ? h("p", { class: "loading" }, t("table.loading"))
        : decks.length ? h("ul", { class: "deck-rows", id: "deck-rows" }, decks.map(deckRow))
          : h("p", { class: "muted", id: "no-decks" }, t("decks.none")));
  }

  function renderAll() {
    mount(el, h("h1", {}, t("decks.my_decks")), uploadBox, listBox);
    renderUpload();
    renderList();
  }

  renderAll();
  load();
  return {
    el,
    relabel: renderAll,
    unmount() {
      gone = true;
      for (const timer of polls.values()) clearTimeout(timer);
    },
  };
}
