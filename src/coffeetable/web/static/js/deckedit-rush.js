// The Coffee Rush card editor's part (js/deckedit.js is the page): a card file's box (ingredients,
// tokens, rush tokens), its 4×4 board (drawn by the table's own squareFace) and specialties, and
// a drink's fields (name, recipe, copies, special, verified, less_luck) with its order card drawn
// by the table's own orderFace (js/rush.js). Format: docs/coffee-rush-cards-format.md.

import { check, choice, field, markAll, numberField, setField } from "./deckedit.js";
import { button, h, s } from "./dom.js";
import { t } from "./i18n.js";
import { boardFrame, ingredientName, loadRushData, orderFace, squareFace, squareOf } from "./rush.js";

export const FORMAT = "coffeetable.coffee-rush.cards/1";
const CORNERS = ["a1", "d1", "a4", "d4"];

const list = (value) => (Array.isArray(value) ? value : []);
const ingredientsOf = (model) => list(model.box && model.box.ingredients).filter((x) => typeof x === "string");

function section(model, key) {
  if (!model[key] || typeof model[key] !== "object" || Array.isArray(model[key])) model[key] = {};
  return model[key];
}

/** Rename an ingredient everywhere the file names it: tokens, board, specialties, recipes. */
function renameIngredient(model, from, to) {
  const box = section(model, "box");
  box.ingredients = list(box.ingredients).map((x) => (x === from ? to : x));
  if (box.tokens && typeof box.tokens === "object" && from in box.tokens) {
    box.tokens = Object.fromEntries(Object.entries(box.tokens).map(([k, v]) => [k === from ? to : k, v]));
  }
  const board = section(model, "board");
  board.rows = list(board.rows).map((row) => list(row).map((x) => (x === from ? to : x)));
  if (Array.isArray(board.specialties)) board.specialties = board.specialties.map((x) => (x === from ? to : x));
  for (const drink of list(model.drink)) {
    if (drink && Array.isArray(drink.recipe)) drink.recipe = drink.recipe.map((x) => (x === from ? to : x));
  }
}

/** The board as the table draws it, from the model as it is (a wrong square is drawn blank). */
function boardPicture(model) {
  const board = model.board && typeof model.board === "object" ? model.board : {};
  const rows = list(board.rows);
  const data = { corners: CORNERS, specialties: list(board.specialties) };
  const size = 88;
  const pad = 18;
  const svg = boardFrame({ role: "img", "aria-label": t("decks.board_picture"), id: "editor-board" }, size, pad);
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      const ing = list(rows[r])[c];
      const g = s("g", { class: "square", "data-square": squareOf(r, c) });
      squareFace(g, data, squareOf(r, c), typeof ing === "string" ? ing : "", pad + c * size, pad + r * size, size);
      svg.append(g);
    }
  }
  return svg;
}

function uniqueName(model, base) {
  const names = new Set(list(model.drink).map((d) => String((d && d.name) || "").toLowerCase()));
  if (!names.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) if (!names.has(`${base} ${n}`.toLowerCase())) return `${base} ${n}`;
}

function boxFields(model, changed) {
  const box = section(model, "box");
  const redraw = () => changed({ redraw: true });
  const ingredients = ingredientsOf(model);
  const tokens = box.tokens && typeof box.tokens === "object" ? box.tokens : (box.tokens = {});
  return h("fieldset", { class: "box-fields", id: "box-fields", "data-path": "box" },
    h("legend", {}, t("decks.box")),
    h("table", { class: "ingredient-table", "data-path": "box.ingredients" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("decks.ingredient")), h("th", { scope: "col" }, t("decks.tokens")), h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("decks.delete"))))),
      h("tbody", {}, ingredients.map((ing, i) => h("tr", { "data-ingredient": ing },
        h("td", {}, h("input", {
          value: ing, "aria-label": t("decks.ingredient_n", { n: i + 1 }), "data-field": "ingredient",
          // renamed when the field is left: every square and recipe follows
          onchange: (e) => { const to = e.target.value.trim(); if (to && to !== ing) { renameIngredient(model, ing, to); redraw(); } },
        })),
        h("td", {}, h("input", {
          value: tokens[ing] ?? "", inputmode: "numeric", "aria-label": t("decks.tokens_of", { name: ingredientName(ing) }), "data-field": "tokens", "data-path": `box.tokens.${ing}`,
          oninput: (e) => { setField(tokens, ing, numberField(e.target.value)); changed(); },
        })),
        h("td", {}, button("✕", () => {
          box.ingredients = ingredients.filter((x) => x !== ing);
          delete tokens[ing];
          redraw();
        }, { class: "icon small", "aria-label": t("decks.remove_ingredient", { name: ing }) })))))),
    button(t("decks.add_ingredient"), () => {
      let n = ingredients.length + 1;
      while (ingredients.includes(`ingredient-${n}`)) n++;
      box.ingredients = [...ingredients, `ingredient-${n}`];
      tokens[`ingredient-${n}`] = 1;
      redraw();
    }, { class: "small", id: "add-ingredient" }),
    field(t("decks.rush_tokens"), box.rush, (v) => { setField(box, "rush", numberField(v)); changed(); }, { id: "box-rush", inputmode: "numeric", "data-path": "box.rush" }),
    field(t("decks.source"), box.source, (v) => { setField(box, "source", v); changed(); }, { id: "box-source" }));
}

function boardFields(model, changed) {
  const board = section(model, "board");
  const redraw = () => changed({ redraw: true });
  const ingredients = ingredientsOf(model);
  if (!Array.isArray(board.rows)) board.rows = [];
  for (let r = 0; r < 4; r++) {
    if (!Array.isArray(board.rows[r])) board.rows[r] = [];
    for (let c = 0; c < 4; c++) if (board.rows[r][c] === undefined) board.rows[r][c] = ingredients[0] || "";
  }
  const options = ingredients.map((x) => ({ value: x, label: ingredientName(x) }));
  const specialties = list(board.specialties);
  return h("fieldset", { class: "board-fields", id: "board-fields", "data-path": "board" },
    h("legend", {}, t("decks.board")),
    h("div", { class: "board-edit" },
      h("div", { class: "board-picture" }, boardPicture(model)),
      h("table", { class: "square-grid", "data-path": "board.rows" }, h("caption", {}, t("decks.board_squares")),
        h("tbody", {}, [0, 1, 2, 3].map((r) => h("tr", {}, [0, 1, 2, 3].map((c) => h("td", {},
          choice(squareOf(r, c), board.rows[r][c], options, (v) => { board.rows[r][c] = v; redraw(); }, { id: `square-${squareOf(r, c)}`, "data-path": `board.rows[${r}][${c}]` })))))))),
    h("fieldset", { class: "specialties", "data-path": "board.specialties" }, h("legend", {}, t("decks.specialties")),
      ingredients.map((ing) => check(ingredientName(ing), specialties.includes(ing), (on) => {
        board.specialties = on ? [...specialties, ing] : specialties.filter((x) => x !== ing);
        redraw();
      }, { "data-specialty": ing }))),
    check(t("decks.board_verified"), board.verified === true, (v) => { setField(board, "verified", v || undefined); redraw(); }, { id: "board-verified" }),
    field(t("decks.source"), board.source, (v) => { setField(board, "source", v); changed(); }, { id: "board-source" }));
}

export const rushPart = {
  game: "coffee-rush",
  listKey: "drink",
  title: "decks.editor_title_drink",

  /** A file to start from: the default file's box, board and drinks. */
  async fresh() {
    const data = await loadRushData();
    return {
      format: FORMAT,
      name: t("decks.new_name"),
      version: 1,
      box: { ingredients: [...data.ingredients], tokens: { ...data.box }, rush: data.rush },
      board: { rows: data.board.map((row) => [...row]), specialties: [...data.specialties] },
      drink: data.drinks.map((d) => ({ name: d.name, recipe: [...d.recipe], copies: d.copies, special: d.special, verified: false })),
    };
  },

  deckFields(model, changed) {
    const drinks = list(model.drink);
    const verified = drinks.filter((d) => d && d.verified === true).length;
    return [
      h("div", { class: "form-grid" },
        field(t("decks.name"), model.name, (v) => { setField(model, "name", v); changed(); }, { id: "deck-name", "data-path": "name" }),
        field(t("decks.version"), model.version, (v) => { setField(model, "version", numberField(v)); changed(); }, { id: "deck-version", inputmode: "numeric", "data-path": "version" }),
        h("p", { class: "hint wide", id: "deck-origin" }, t("decks.origin_drinks", { verified, total: drinks.length }), " ",
          markAll(drinks, "verified", true, "decks.all_verified", changed, "all-verified"), " ",
          markAll(drinks, "verified", false, "decks.none_verified", changed, "none-verified"))),
      h("div", { class: "rush-file-fields" }, boxFields(model, changed), boardFields(model, changed)),
    ];
  },

  itemLabel(drink, index) {
    return drink && typeof drink.name === "string" && drink.name ? drink.name : `#${index + 1}`;
  },

  newItem(model) {
    return { name: uniqueName(model, t("decks.new_drink")), recipe: ingredientsOf(model).slice(0, 2), copies: 1, special: false, verified: true };
  },

  renameCopy(drink, model) {
    drink.name = uniqueName(model, typeof drink.name === "string" && drink.name ? drink.name : t("decks.new_drink"));
  },

  picture(drink) {
    const face = {
      name: typeof drink.name === "string" ? drink.name : "",
      recipe: list(drink.recipe).filter((x) => typeof x === "string"),
      special: drink.special === true,
    };
    return h("div", { class: ["order", "editor-order", face.special && "special"], "data-drink": face.name }, orderFace(face));
  },

  itemFields(drink, model, changed) {
    const redraw = () => changed({ redraw: true });
    const ingredients = ingredientsOf(model);
    const recipe = Array.isArray(drink.recipe) ? drink.recipe : (drink.recipe = []);
    const options = ingredients.map((x) => ({ value: x, label: ingredientName(x) }));
    return [
      h("div", { class: "form-grid" },
        field(t("decks.drink_name"), drink.name, (v) => { drink.name = v; changed(); }, { id: "drink-name", "data-path": "name" }),
        field(t("decks.copies"), drink.copies, (v) => { setField(drink, "copies", numberField(v)); changed(); }, { id: "drink-copies", inputmode: "numeric", "data-path": "copies" }),
        check(t("decks.special"), drink.special === true, (v) => { drink.special = v; redraw(); }, { id: "drink-special", "data-path": "special" }),
        check(t("decks.verified"), drink.verified === true, (v) => { drink.verified = v; redraw(); }, { id: "drink-verified", "data-path": "verified" }),
        check(t("decks.less_luck"), drink.less_luck === true, (v) => { setField(drink, "less_luck", v || undefined); redraw(); }, { id: "drink-less-luck", "data-path": "less_luck" }),
        h("p", { class: "hint wide" }, t("decks.verified_help"))),
      h("fieldset", { class: "recipe-fields", id: "recipe-fields", "data-path": "recipe" }, h("legend", {}, t("decks.recipe")),
        h("ol", {}, recipe.map((ing, i) => h("li", {},
          choice(t("decks.recipe_n", { n: i + 1 }), ing, options, (v) => { recipe[i] = v; redraw(); }, { "data-recipe": i, "data-path": `recipe[${i}]` }),
          button("✕", () => { recipe.splice(i, 1); redraw(); }, { class: "icon small", "aria-label": t("decks.remove_recipe", { n: i + 1 }) })))),
        button(t("decks.add_recipe"), () => { recipe.push(ingredients[0] || ""); redraw(); }, { class: "small", id: "add-recipe" })),
    ];
  },
};
