// The Café card editor's part (js/deckedit.js is the page): a deck file's fields, a card's
// fields (id, kind, company, star, reconstructed, its 2×3 cells and their shops) and the card
// drawn by the table's own drawCard (js/cafe.js). Format: docs/cafe-deck-format.md.

import { cellName, colourName, companyName, drawCard, loadCafeData } from "./cafe.js";
import { check, choice, field, markAll, numberField, setField } from "./deckedit.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const FORMAT = "coffeetable.cafe.deck/1";
const KINDS = ["start", "plan", "espresso", "promo"];
const COMPANIES = ["Brazil", "São Tomé and Príncipe", "Angola", "Timor"];
const COLOURS = ["Y", "B", "G", "R"];
const SHOP_KEYS = "abcdef";
const TOKENS = [
  ...COLOURS.map((c) => `bean-${c}`), "dry", "roast", "cup", "ship", "empty",
  ...[...SHOP_KEYS].map((k) => `shop-${k}`),
  "espresso", "supply", ...Array.from({ length: 9 }, (_, i) => `cake-${i + 1}`), ...COLOURS.map((c) => `bonus-${c}`),
];

const clone = (value) => JSON.parse(JSON.stringify(value));

/** What drawCard needs, from a card of the model as the player left it (any field may be
 * missing or wrong while they type: the drawing shows what can be drawn). */
function drawable(card) {
  const rows = Array.isArray(card.cells) ? card.cells : [];
  const cells = [0, 1].map((r) => [0, 1, 2].map((c) => {
    const token = Array.isArray(rows[r]) ? rows[r][c] : null;
    return typeof token === "string" ? token : "empty";
  }));
  const shops = {};
  for (const token of cells.flat()) {
    if (!token.startsWith("shop-")) continue;
    const key = token.slice(5);
    const shop = (card.shops && typeof card.shops === "object" && card.shops[key]) || {};
    shops[key] = {
      city: typeof shop.city === "string" ? shop.city : "",
      year: Number.isInteger(shop.year) ? shop.year : null,
      requires: typeof shop.requires === "string" ? shop.requires.toUpperCase().replace(/[^YBGR]/g, "").slice(0, 6) : "",
      vp: Number.isInteger(shop.vp) ? shop.vp : 0,
      ...(typeof shop.name === "string" && shop.name ? { name: shop.name } : {}),
    };
  }
  return { id: String(card.id ?? ""), kind: card.kind, star: card.star === true, cup: cells.flat().includes("cup"), cells, shops };
}

function tokenLabel(token) {
  if (token.startsWith("shop-")) return t("decks.cell_shop", { key: token.slice(5) });
  return cellName(token);
}

/** Shops no cell shows any more are dropped; a shop cell without its table gets one. */
function syncShops(card) {
  const used = new Set((card.cells || []).flat().filter((x) => typeof x === "string" && x.startsWith("shop-")).map((x) => x.slice(5)));
  const shops = card.shops && typeof card.shops === "object" ? card.shops : {};
  for (const key of Object.keys(shops)) if (!used.has(key)) delete shops[key];
  for (const key of used) if (!shops[key]) shops[key] = { city: "", requires: "", vp: 0 };
  if (Object.keys(shops).length) card.shops = shops;
  else delete card.shops;
}

function uniqueId(model, base) {
  const ids = new Set((model.card || []).map((c) => c.id));
  for (let n = 2; ; n++) if (!ids.has(`${base}-${n}`)) return `${base}-${n}`;
}

function shopFields(card, key, changed, cities) {
  const shop = card.shops[key];
  const set = (k, v) => { setField(shop, k, v); changed(); };
  return h("fieldset", { class: "shop-fields", "data-shop": key, "data-path": `shops.${key}` },
    h("legend", {}, t("decks.cell_shop", { key })),
    field(t("decks.shop_city"), shop.city, (v) => set("city", v), { list: "appendix-cities", "data-field": "city", "data-path": `shops.${key}.city` }),
    field(t("decks.shop_year"), shop.year, (v) => set("year", numberField(v)), { inputmode: "numeric", "data-field": "year", "data-path": `shops.${key}.year` }),
    field(t("decks.shop_requires"), shop.requires, (v) => set("requires", v.toUpperCase()),
      { "data-field": "requires", "data-path": `shops.${key}.requires`, title: t("decks.shop_requires_help", { colours: COLOURS.map((c) => `${c} = ${colourName(c)}`).join(", ") }) }),
    field(t("decks.shop_vp"), shop.vp, (v) => set("vp", numberField(v)), { inputmode: "numeric", "data-field": "vp", "data-path": `shops.${key}.vp` }),
    field(t("decks.shop_name"), shop.name, (v) => set("name", v), { "data-field": "name", "data-path": `shops.${key}.name` }),
    cities);
}

export const cafePart = {
  game: "cafe",
  listKey: "card",
  title: "decks.editor_title_card",

  /** A deck to start from: the default deck's cards, each marked reconstructed (it is one). */
  async fresh() {
    const data = await loadCafeData();
    return {
      format: FORMAT,
      name: t("decks.new_name"),
      version: 1,
      card: data.cards.map((c) => {
        const card = { id: c.id, kind: c.kind };
        if (c.company) card.company = c.company;
        if (c.star) card.star = true;
        card.reconstructed = true;
        card.cells = clone(c.cells);
        if (Object.keys(c.shops || {}).length) card.shops = clone(c.shops);
        return card;
      }),
    };
  },

  deckFields(model, changed) {
    const prov = model.provenance && typeof model.provenance === "object" ? model.provenance : null;
    const provSet = (k, v) => {
      model.provenance = model.provenance && typeof model.provenance === "object" ? model.provenance : {};
      setField(model.provenance, k, v);
      if (!Object.keys(model.provenance).length) delete model.provenance;
      changed();
    };
    const cards = Array.isArray(model.card) ? model.card : [];
    const transcribed = cards.filter((c) => c && c.reconstructed === false).length;
    return h("div", { class: "form-grid" },
      field(t("decks.name"), model.name, (v) => { setField(model, "name", v); changed(); }, { id: "deck-name", "data-path": "name" }),
      field(t("decks.version"), model.version, (v) => { setField(model, "version", numberField(v)); changed(); }, { id: "deck-version", inputmode: "numeric", "data-path": "version" }),
      h("label", { class: "field wide" }, t("decks.provenance_summary"),
        h("textarea", { id: "deck-summary", "data-path": "provenance.summary", rows: 2, oninput: (e) => provSet("summary", e.target.value) }, prov && typeof prov.summary === "string" ? prov.summary : "")),
      h("label", { class: "field wide" }, t("decks.provenance_sources"),
        h("textarea", {
          id: "deck-sources", rows: 2,
          oninput: (e) => {
            const lines = e.target.value.split("\n").map((x) => x.trim()).filter(Boolean);
            provSet("sources", lines.length ? lines : undefined);
          },
        }, prov && Array.isArray(prov.sources) ? prov.sources.join("\n") : "")),
      h("p", { class: "hint wide", id: "deck-origin" }, t("decks.origin_cards", { transcribed, total: cards.length }), " ",
        markAll(cards, "reconstructed", false, "decks.all_transcribed", changed, "all-transcribed"), " ",
        markAll(cards, "reconstructed", true, "decks.all_reconstructed", changed, "all-reconstructed")));
  },

  itemLabel(card, index) {
    const id = card && typeof card.id === "string" && card.id ? card.id : `#${index + 1}`;
    const kind = card && KINDS.includes(card.kind) ? t(`decks.kind_${card.kind}`) : "?";
    return `${id} · ${kind}${card && card.star === true ? " ★" : ""}`;
  },

  newItem(model) {
    return {
      id: uniqueId(model, "NEW"), kind: "plan", reconstructed: false,
      cells: [["empty", "empty", "empty"], ["empty", "empty", "empty"]],
    };
  },

  renameCopy(card, model) {
    card.id = uniqueId(model, typeof card.id === "string" && card.id ? card.id : "CARD");
  },

  picture(card, model, { large }) {
    const svg = drawCard(drawable(card));
    svg.classList.add(large ? "card-large" : "card-small");
    return svg;
  },

  itemFields(card, model, changed) {
    const redraw = () => changed({ redraw: true });
    if (!Array.isArray(card.cells) || card.cells.length !== 2 || !card.cells.every((r) => Array.isArray(r) && r.length === 3)) {
      card.cells = [0, 1].map((r) => [0, 1, 2].map((c) => (Array.isArray(card.cells) && Array.isArray(card.cells[r]) && typeof card.cells[r][c] === "string" ? card.cells[r][c] : "empty")));
    }
    const grid = h("table", { class: "cell-grid", id: "cell-grid", "data-path": "cells" },
      h("caption", {}, t("decks.cells")),
      h("tbody", {}, [0, 1].map((r) => h("tr", {}, [0, 1, 2].map((c) => h("td", {},
        choice(t("decks.cell_at", { row: r + 1, col: c + 1 }), card.cells[r][c], TOKENS.map((x) => ({ value: x, label: tokenLabel(x) })),
          (v) => { card.cells[r][c] = v; syncShops(card); redraw(); }, { id: `cell-${r}-${c}`, "data-cell": `${r},${c}`, "data-path": `cells[${r}][${c}]` })))))));
    const cities = h("datalist", { id: "appendix-cities" });
    loadCafeData().then((data) => {
      const seen = new Set();
      for (const c of data.cards) for (const shop of Object.values(c.shops || {})) seen.add(shop.city);
      cities.replaceChildren(...[...seen].sort().map((city) => h("option", { value: city })));
    }, () => {});
    const shops = card.shops && typeof card.shops === "object" ? Object.keys(card.shops).sort() : [];
    return [
      h("div", { class: "form-grid" },
        field(t("decks.card_id"), card.id, (v) => { card.id = v; changed(); }, { id: "card-id", "data-path": "id" }),
        choice(t("decks.card_kind"), card.kind, KINDS.map((k) => ({ value: k, label: t(`decks.kind_${k}`) })), (v) => {
          card.kind = v;
          if (v === "start") card.company = COMPANIES.includes(card.company) ? card.company : COMPANIES[0];
          else delete card.company;
          if (v !== "plan") delete card.star;
          redraw();
        }, { id: "card-kind", "data-path": "kind" }),
        card.kind === "start" || card.company !== undefined
          ? choice(t("decks.card_company"), card.company, COMPANIES.map((c) => ({ value: c, label: companyName(c) })),
            (v) => { card.company = v; changed(); }, { id: "card-company", "data-path": "company" }) : null,
        card.kind === "plan" || card.star !== undefined
          ? check(t("decks.card_star"), card.star === true, (v) => { setField(card, "star", v || undefined); redraw(); }, { id: "card-star", "data-path": "star" }) : null,
        check(t("decks.card_reconstructed"), card.reconstructed === true, (v) => { card.reconstructed = v; redraw(); }, { id: "card-reconstructed", "data-path": "reconstructed" }),
        h("p", { class: "hint wide" }, t("decks.card_reconstructed_help"))),
      grid,
      shops.map((key) => shopFields(card, key, changed, key === shops[0] ? cities : null)),
    ];
  },
};
