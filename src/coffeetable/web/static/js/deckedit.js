// The card editors (#/decks/edit/cafe, #/decks/edit/coffee-rush; docs/web.md, "Decks"): a deck
// or card file as its JSON model (the server's `model`: the TOML document as JSON), a list of
// its cards (Café) or drinks (Coffee Rush) with the one chosen open beside it, every card drawn
// by the table's own drawing code. Every change is checked by the server (POST
// /api/decks/check, debounced): its problems are shown per card in the player's language
// (`deckproblem.<code>`). A file is imported with the file picker and exported as the server's
// canonical text; a photo of a printed card is shown beside its transcription, read in the
// browser (FileReader) and never sent anywhere. This module is the page; the games' parts are
// js/deckedit-cafe.js and js/deckedit-rush.js.

import { api, errorText, TextBody } from "./api.js";
import { go, session, toast } from "./shell.js";
import { button, h, mount } from "./dom.js";
import { has, t, tn } from "./i18n.js";

const CHECK_DELAY = 400; // ms of quiet before a change is checked
const RETRY_DELAY = 2000; // ms before a check refused for coming too often is sent again
export const VISIBILITIES = ["private", "friends", "public"];

/** A problem of a deck file in the player's language (the server's English `message` for a
 * code this client does not know). */
export function problemText(problem) {
  const key = `deckproblem.${problem.code}`;
  return has(key) ? t(key, problem.params || {}) : problem.message;
}

/** A list of problems; `withPlace`: each names its card. */
export function problemList(problems, attrs = {}, withPlace = false) {
  return h("ul", { class: "deck-problems", ...attrs }, problems.map((p) => h("li", { "data-code": p.code },
    withPlace && p.card !== null && p.card !== undefined ? h("strong", {}, `${p.card}: `) : null, problemText(p))));
}

/** A whole number typed in a field, as the model keeps it: the number, or the text when it
 * is not one (the server then says what is wrong), or undefined when the field is empty. */
export function numberField(text) {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const n = Number(trimmed);
  return Number.isInteger(n) ? n : trimmed;
}

/** Set or clear `obj[key]` (a field left empty is not written to the file). */
export function setField(obj, key, value) {
  if (value === undefined || value === "") delete obj[key];
  else obj[key] = value;
}

/** A labelled input; `onValue(text)` on every keystroke. */
export function field(label, value, onValue, attrs = {}) {
  return h("label", { class: "field" }, label,
    h("input", { value: value === undefined || value === null ? "" : String(value), ...attrs, oninput: (e) => onValue(e.target.value) }));
}

/** A labelled check box; `onValue(checked)`. */
export function check(label, checked, onValue, attrs = {}) {
  return h("label", { class: "check" }, h("input", { type: "checkbox", checked: !!checked, ...attrs, onchange: (e) => onValue(e.target.checked) }), label);
}

/** A labelled list of choices [{value, label}]; a value the list lacks (a wrong one read from a
 * file) is shown as it is. */
export function choice(label, value, options, onValue, attrs = {}) {
  const known = options.some((o) => o.value === value);
  return h("label", { class: "field" }, label,
    h("select", { ...attrs, onchange: (e) => onValue(e.target.value) },
      known ? null : h("option", { value: String(value ?? ""), selected: true }, String(value ?? "—")),
      options.map((o) => h("option", { value: o.value, selected: o.value === value }, o.label))));
}

/** A button that sets `key` to `value` on every card (after asking). */
export function markAll(items, key, value, label, changed, id) {
  return button(t(label), () => {
    if (!confirm(`${t(label)}?`)) return;
    for (const item of items) if (item && typeof item === "object") item[key] = value;
    changed({ redraw: true });
  }, { class: "small", id });
}

/** The file's name for a download: the deck's name in safe letters. */
export function fileName(name, fallback) {
  const base = String(name || fallback).normalize("NFKD").replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `${base || fallback}.toml`;
}

/** Offer `text` as a file to save (no request: made in the page). */
export function download(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/toml" }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file picker as a button: `onFile(file)` with the file chosen. */
export function filePicker(label, accept, onFile, id) {
  const input = h("input", {
    type: "file", accept, id, class: "sr-only",
    onchange: (e) => {
      const file = e.target.files && e.target.files[0];
      e.target.value = ""; // the same file may be chosen again
      if (file) onFile(file);
    },
  });
  return h("label", { class: "button small file-pick", for: id }, label, input);
}

const clone = (value) => JSON.parse(JSON.stringify(value));

/** A chosen file's text, or null when it cannot be read (the player is told). */
export async function fileText(file) {
  try {
    return await file.text();
  } catch {
    toast(t("decks.file_unreadable"));
    return null;
  }
}

/**
 * The editor page of one game. `part` (js/deckedit-cafe.js, js/deckedit-rush.js) knows the game:
 *   game, listKey ("card" / "drink"), title, fresh() -> a model to start from (a promise),
 *   deckFields(model, changed) -> the file's own fields, itemLabel(item, i), newItem(model),
 *   picture(item, model, {large}) -> the item drawn, itemFields(item, model, changed).
 * `changed({redraw})`: the model changed; `redraw` when the fields themselves must be redrawn.
 */
export function editorView(part, { from = null } = {}) {
  const el = h("section", { class: "deck-editor", id: "deck-editor", "data-game": part.game });
  const photos = new WeakMap(); // item -> its photo (a data: URL), in this page only
  let model = null;
  let selected = 0;
  let last = null; // the last check's answer
  let edits = 0; // changes made; the check answers for one of them
  let checkedEdit = -1;
  let timer = null;
  let error = null; // an import refused, a check that failed: shown until the next change
  let gone = false;

  const status = h("p", { class: "deck-status", id: "deck-status", role: "status", "aria-live": "polite" });
  const deckBox = h("div", { class: "card deck-fields", id: "deck-fields" });
  const listBox = h("nav", { class: "card deck-list", id: "deck-list", "aria-label": t(`decks.list_${part.listKey}`) });
  const pane = h("div", { class: "card deck-pane", id: "deck-pane" });
  const wideProblems = h("div", { id: "deck-wide-problems" });

  const items = () => model[part.listKey] || (model[part.listKey] = []);
  const problems = () => (last ? last.problems : []);
  const problemsOf = (index) => problems().filter((p) => p.index === index);

  function changed({ redraw = false } = {}) {
    edits++;
    error = null;
    clearTimeout(timer);
    timer = setTimeout(check, CHECK_DELAY);
    renderStatus();
    if (redraw) renderAll();
    else {
      renderList();
      refreshPicture();
    }
  }

  // the file being edited is kept in this browser (not the photos), so that leaving the page
  // or reloading it loses nothing; a deck opened with ?from= is kept once it is changed
  const draftKey = `coffeetable.deckdraft.${part.game}`;
  function keepDraft() {
    try {
      localStorage.setItem(draftKey, JSON.stringify(model));
    } catch {
      /* storage full or refused: the editor works without it */
    }
  }

  function draft() {
    try {
      const kept = JSON.parse(localStorage.getItem(draftKey) || "null");
      return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : null;
    } catch {
      return null;
    }
  }

  async function check() {
    clearTimeout(timer);
    keepDraft();
    const edit = edits;
    try {
      const answer = await api.checkDeck(part.game, { model: clone(model) });
      if (gone || edit !== edits) return; // an older model's answer: a newer check follows
      last = answer;
      checkedEdit = edit;
    } catch (err) {
      if (gone || edit !== edits) return;
      if (err.status === 429) { // checked too often: the same model again a little later
        timer = setTimeout(check, RETRY_DELAY);
        return;
      }
      error = errorText(err);
    }
    renderStatus();
    renderList();
    renderProblems();
  }

  /** The check of the model as it is now (made now when a change waits for its check). */
  async function checked() {
    if (checkedEdit !== edits || !last) await check();
    return checkedEdit === edits ? last : null;
  }

  function renderStatus() {
    let text;
    let kind = "";
    if (error) [text, kind] = [error, "bad"];
    else if (checkedEdit !== edits || !last) text = t("decks.checking");
    else if (last.ok) [text, kind] = [t("decks.valid"), "ok"];
    else [text, kind] = [tn("decks.problems", last.problems.length), "bad"];
    status.className = ["deck-status", kind].filter(Boolean).join(" ");
    status.textContent = text;
  }

  /** The field a problem names (its `field` path, or the nearest part of it that the page
   * shows: `shops.a.city`, else `shops.a`) is marked invalid. */
  function markFields(wide) {
    for (const node of el.querySelectorAll("[data-path][data-invalid]")) {
      node.removeAttribute("data-invalid");
      node.removeAttribute("aria-invalid");
    }
    const mark = (root, problem) => {
      let path = problem.field || "";
      while (root && path) {
        const found = root.querySelector(`[data-path="${CSS.escape(path)}"]`);
        if (found) {
          found.dataset.invalid = "true";
          if (/^(INPUT|SELECT|TEXTAREA)$/.test(found.tagName)) found.setAttribute("aria-invalid", "true");
          return;
        }
        const shorter = path.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
        path = shorter === path ? "" : shorter;
      }
    };
    for (const problem of problemsOf(selected)) mark(pane.querySelector("#item-fields"), problem);
    for (const problem of wide) mark(deckBox, problem);
  }

  function renderProblems() {
    const wide = problems().filter((p) => p.index === null || p.index === undefined);
    markFields(wide);
    mount(wideProblems, wide.length ? [h("h2", {}, t("decks.deck_problems")), problemList(wide, { id: "deck-problems" })] : null);
    const box = pane.querySelector("#card-problems");
    if (box) mount(box, cardProblems());
  }

  function cardProblems() {
    const mine = problemsOf(selected);
    return mine.length ? problemList(mine, { id: "card-problem-list" }) : h("p", { class: "ok-text" }, t(last && checkedEdit === edits ? `decks.${part.listKey}_ok` : "decks.checking"));
  }

  // ---- the list of cards -----------------------------------------------------------------------
  function renderList() {
    const list = items();
    mount(listBox,
      h("h2", {}, t(`decks.list_${part.listKey}`), " ", h("span", { class: "muted" }, `(${list.length})`)),
      h("ol", { class: "deck-items", id: "deck-items" }, list.map((item, i) => {
        const n = problemsOf(i).length;
        return h("li", { class: ["deck-item", i === selected && "selected", n && "has-problems"], "data-index": i },
          h("button", {
            type: "button", class: "deck-item-pick", "aria-current": i === selected ? "true" : null,
            onclick: () => { selected = i; renderAll(); },
          },
          h("span", { class: "deck-item-pic", "aria-hidden": "true" }, part.picture(item, model, { large: false })),
          h("span", { class: "deck-item-label" }, part.itemLabel(item, i)),
          n ? h("span", { class: "badge", "data-problems": n, "aria-label": tn("decks.problems", n) }, String(n)) : null));
      })),
      button(t(`decks.add_${part.listKey}`), () => { list.push(part.newItem(model)); selected = list.length - 1; changed({ redraw: true }); },
        { class: "small", id: "add-item" }));
  }

  function move(delta) {
    const list = items();
    const to = selected + delta;
    if (to < 0 || to >= list.length) return;
    [list[selected], list[to]] = [list[to], list[selected]];
    selected = to;
    changed({ redraw: true });
  }

  function duplicate() {
    const list = items();
    const copy = clone(list[selected]);
    if (part.renameCopy) part.renameCopy(copy, model);
    list.splice(selected + 1, 0, copy);
    selected += 1;
    changed({ redraw: true });
  }

  function remove() {
    const list = items();
    if (!confirm(t("decks.delete_item_confirm", { name: part.itemLabel(list[selected], selected) }))) return;
    list.splice(selected, 1);
    selected = Math.max(0, Math.min(selected, list.length - 1));
    changed({ redraw: true });
  }

  // ---- the card chosen -----------------------------------------------------------------------------
  function refreshPicture() {
    const item = items()[selected];
    const box = pane.querySelector("#item-picture");
    if (item && box) mount(box, part.picture(item, model, { large: true }));
  }

  function loadPhoto(item, file) {
    if (!file.type.startsWith("image/")) {
      toast(t("decks.photo_not_image"));
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      photos.set(item, reader.result);
      if (!gone) renderPane();
    };
    reader.onerror = () => toast(t("decks.photo_unreadable"));
    reader.readAsDataURL(file); // read here; never uploaded
  }

  function renderPane() {
    const list = items();
    const item = list[selected];
    if (!item) {
      mount(pane, h("p", { class: "muted" }, t(`decks.no_${part.listKey}`)));
      return;
    }
    const photo = photos.get(item);
    const label = part.itemLabel(item, selected);
    mount(pane,
      h("div", { class: "pane-head" },
        h("h2", { id: "item-title" }, label),
        h("span", { class: "tools" },
          button(t("decks.move_up"), () => move(-1), { class: "small", id: "item-up", disabled: selected === 0 }),
          button(t("decks.move_down"), () => move(1), { class: "small", id: "item-down", disabled: selected === list.length - 1 }),
          button(t("decks.duplicate"), duplicate, { class: "small", id: "item-duplicate" }),
          button(t("decks.delete"), remove, { class: "small danger", id: "item-delete" }))),
      h("div", { class: "compare", id: "photo-compare" },
        h("figure", { class: "compare-side" },
          h("div", { class: "item-picture", id: "item-picture" }, part.picture(item, model, { large: true })),
          h("figcaption", {}, t("decks.your_transcription"))),
        h("figure", { class: "compare-side" },
          photo
            ? h("img", { src: photo, alt: t("decks.photo_alt", { name: label }), id: "item-photo", class: "item-photo" })
            : h("p", { class: "photo-empty muted" }, t("decks.photo_none")),
          h("figcaption", {}, t("decks.printed_photo"), " ",
            filePicker(t(photo ? "decks.photo_change" : "decks.photo_load"), "image/*", (file) => loadPhoto(item, file), "photo-input"),
            h("span", { class: "hint" }, t("decks.photo_private"))))),
      h("div", { class: "item-fields", id: "item-fields" }, part.itemFields(item, model, changed)),
      h("section", { "aria-labelledby": "card-problems-title" },
        h("h3", { id: "card-problems-title" }, t(`decks.${part.listKey}_problems`)),
        h("div", { id: "card-problems", "aria-live": "polite" }, cardProblems())));
  }

  function renderAll() {
    if (!model) return;
    mount(deckBox, h("h2", {}, t("decks.file")), part.deckFields(model, changed));
    renderList();
    renderPane();
    renderProblems();
    renderStatus();
  }

  // ---- files ------------------------------------------------------------------------------------------
  async function importFile(file) {
    const text = await fileText(file);
    if (text === null) return;
    let answer;
    try {
      answer = await api.checkDeck(part.game, new TextBody(text));
    } catch (err) {
      toast(errorText(err));
      return;
    }
    // a file that is not TOML, or not this game's file, is refused and nothing changes
    const fatal = answer.problems.filter((p) => ["not_toml", "not_utf8", "bad_format", "too_deep"].includes(p.code));
    if (!answer.model || fatal.length) {
      toast(t("decks.import_refused", { problem: problemText(fatal[0] || answer.problems[0] || { code: "", message: "?" }) }));
      return;
    }
    model = answer.model;
    selected = 0;
    edits++;
    last = answer;
    checkedEdit = edits;
    error = null;
    keepDraft();
    renderAll();
    toast(t("decks.imported", { name: model.name || file.name }), "info");
  }

  async function exportFile() {
    const answer = await checked();
    if (!answer || typeof answer.toml !== "string") {
      toast(error || t("decks.export_failed"));
      return;
    }
    download(answer.toml, fileName(model.name, part.game));
  }

  async function save(visibility) {
    if (!session.user) {
      go(`#/login?next=${encodeURIComponent(location.hash)}`);
      return;
    }
    const answer = await checked();
    if (answer && !answer.ok) {
      toast(t("decks.save_invalid"));
      return;
    }
    try {
      await api.uploadDeck(part.game, visibility, { model: clone(model) });
      toast(t("decks.saved", { name: model.name || "" }), "info");
      go("#/decks");
      return true;
    } catch (err) {
      toast(err.code === "invalid_deck" ? t("decks.save_invalid") : errorText(err));
    }
  }

  async function start() {
    try {
      if (from) {
        const response = await fetch(api.deckFileUrl(from), { credentials: "same-origin" });
        if (!response.ok) throw new Error("no such deck");
        const answer = await api.checkDeck(part.game, new TextBody(await response.text()));
        model = answer.model;
        last = answer;
      } else {
        model = draft() || await part.fresh();
      }
    } catch {
      mount(el, h("p", { class: "error-page" }, t(from ? "decks.not_found" : "error.unknown")));
      return;
    }
    if (!model) {
      mount(el, h("p", { class: "error-page" }, t("decks.not_found")));
      return;
    }
    edits = 1;
    checkedEdit = last ? 1 : 0;
    renderFrame();
    if (!last) check();
  }

  let visibility = "private";

  /** The page around the deck: title, help, the file's buttons. */
  function renderFrame() {
    const pick = h("select", { id: "save-visibility", "aria-label": t("decks.visibility"), onchange: (e) => { visibility = e.target.value; } },
      VISIBILITIES.map((v) => h("option", { value: v, selected: v === visibility }, t(`decks.visibility_${v}`))));
    mount(el,
      h("div", { class: "editor-head" },
        h("h1", {}, t(part.title)),
        h("p", { class: "hint" }, t(`decks.editor_intro_${part.listKey}`), " ", h("a", { href: "#/decks" }, t("decks.my_decks"))),
        h("details", { class: "editor-help", id: "editor-help" },
          h("summary", {}, t("decks.help_title")),
          h("ul", {}, ["1", "2", "3", "4", "5"].map((n) => h("li", {}, t(`decks.help_${part.listKey}.${n}`)))))),
      h("div", { class: "card deck-toolbar", role: "group", "aria-label": t("decks.file") },
        button(t("decks.start_default"), async () => {
          if (!confirm(t("decks.start_default_confirm"))) return;
          model = await part.fresh();
          selected = 0;
          changed({ redraw: true });
        }, { class: "small", id: "deck-new" }),
        filePicker(t("decks.import"), ".toml,text/plain,application/toml", importFile, "deck-import"),
        button(t("decks.export"), exportFile, { class: "small", id: "deck-export" }),
        h("span", { class: "save-group" },
          pick,
          button(t("decks.save"), () => save(visibility), { class: "small primary", id: "deck-save" })),
        status),
      wideProblems,
      deckBox,
      h("div", { class: "deck-work" }, listBox, pane));
    renderAll();
  }

  el.append(h("p", { class: "loading" }, t("table.loading")));
  start();
  return {
    el,
    relabel: () => { if (model) renderFrame(); },
    unmount() {
      gone = true;
      clearTimeout(timer);
    },
  };
}
