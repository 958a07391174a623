"""Checks of the web client's files that need no browser: translations complete and
consistent, every string the code asks for exists, every server error code has a sentence,
no markup built from strings, nothing loaded from other sites, every game-log key translated."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.web.ui import STATIC

I18N = STATIC / "i18n"
JS = sorted((STATIC / "js").glob("*.js"))
LANGUAGES = ("en", "pt", "ru", "uk")
#: the plural forms each language needs (Unicode CLDR rules, as Intl.PluralRules uses them)
PLURAL_FORMS = {
    "en": {"one", "other"},
    "pt": {"one", "other"},
    "ru": {"one", "few", "many", "other"},
    "uk": {"one", "few", "many", "other"},
}
SERVER = Path(__file__).resolve().parents[2] / "src" / "coffeetable" / "server"


def parts() -> list[str]:
    """The parts js/i18n.js loads besides the main file (`PARTS = [...]`)."""
    found = re.search(r"export const PARTS = \[([^\]]*)\]", (STATIC / "js" / "i18n.js").read_text())
    assert found, "js/i18n.js has no PARTS list"
    return re.findall(r'"([a-z0-9-]+)"', found.group(1))


def strings(lang: str) -> dict[str, str]:
    """The main file and every part, merged as the client merges them; no key twice."""
    data = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    for part in parts():
        extra = json.loads((I18N / part / f"{lang}.json").read_text(encoding="utf-8"))
        assert isinstance(extra, dict)
        assert not set(extra) & set(data), (lang, part, set(extra) & set(data))
        data.update(extra)
    return data


def test_every_string_directory_is_a_loaded_part() -> None:
    """A directory under i18n/ that js/i18n.js does not load would be strings nobody sees."""
    dirs = sorted(d.name for d in I18N.iterdir() if d.is_dir())
    assert dirs == sorted(parts())


def split(data: dict[str, str]) -> tuple[set[str], dict[str, set[str]]]:
    """(plain keys, plural base key -> its forms)."""
    forms = {"zero", "one", "two", "few", "many", "other"}
    plural: dict[str, set[str]] = {}
    for key in data:
        base, _, last = key.rpartition(".")
        if last in forms:
            plural.setdefault(base, set()).add(last)
    plain = {k for k in data if k.rpartition(".")[0] not in plural}
    return plain, plural


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_language_has_every_string() -> None:
    en_plain, en_plural = split(strings("en"))
    assert len(en_plain) > 300
    for lang in LANGUAGES:
        data = strings(lang)
        plain, plural = split(data)
        assert plain == en_plain, (lang, plain ^ en_plain)
        assert set(plural) == set(en_plural), (lang, set(plural) ^ set(en_plural))
        for base, forms in plural.items():
            assert forms == PLURAL_FORMS[lang], (lang, base, forms)
        for key, text in data.items():
            assert isinstance(text, str) and text.strip(), (lang, key)


#: English words that follow a count: a string with "{n} days" must have plural forms.
COUNTED_WORDS = re.compile(
    r"\{(?:n|left|days|hours|total|count)\} (?:free )?(?:days?|steps?|points?|players?|cubes?|cards?|orders?|tokens?)\b"
)


def test_counted_strings_have_plural_forms() -> None:
    """ "1 days", "(1 free steps left)": a count followed by a noun is chosen by plural rules
    (`tn`), in every language (issue 37)."""
    en = strings("en")
    bare = [k for k, v in en.items() if COUNTED_WORDS.search(v) and not k.startswith("log.")]
    bare = [k for k in bare if k.rsplit(".", 1)[-1] not in ("one", "other")]
    assert bare == []


def test_translations_use_only_known_placeholders() -> None:
    en = strings("en")
    _, en_plural = split(en)
    for lang in LANGUAGES:
        data = strings(lang)
        for key, text in data.items():
            base = key.rpartition(".")[0]
            if base in en_plural:
                allowed = set().union(*(placeholders(en[f"{base}.{f}"]) for f in en_plural[base]))
                allowed |= {"n", "colour", "colour_pl", "colour_gpl"}
                assert placeholders(text) <= allowed, (lang, key, text)
            else:
                expected = placeholders(en[key])
                if "colour" in expected:
                    expected = (expected - {"colour"}) | {"colour", "colour_pl", "colour_gpl"}
                    assert placeholders(text) <= expected and placeholders(text) & {
                        "colour",
                        "colour_pl",
                        "colour_gpl",
                    }, (lang, key, text)
                else:
                    assert placeholders(text) == expected, (lang, key, text)


def test_every_string_the_code_uses_exists() -> None:
    en_plain, en_plural = split(strings("en"))
    used_plain: set[str] = set()
    used_plural: set[str] = set()
    for path in JS:
        code = path.read_text(encoding="utf-8")
        used_plain |= set(re.findall(r"\bt\(\"([a-z_][\w.-]*)\"", code))
        used_plural |= set(re.findall(r"\btn\(\"([a-z_][\w.-]*)\"", code))
    assert used_plain and used_plural
    assert used_plain - en_plain == set()
    assert used_plural - set(en_plural) == set()


def test_every_server_error_code_has_a_sentence() -> None:
    en = strings("en")
    codes: set[str] = set()
    for path in SERVER.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r"(?:TableError|ApiError)\(\s*\d+,\s*\"([a-z_]+)\"", text))
        codes |= set(re.findall(r"error_message\(\"([a-z_]+)\"", text))
    protocol = (SERVER / "protocol.py").read_text(encoding="utf-8")
    codes |= set(re.findall(r"^\s+[A-Z_]+ = \"([a-z_]+)\"", protocol, re.M))
    assert {"illegal", "not_your_turn", "full", "stale_version"} <= codes
    missing = sorted(c for c in codes if f"error.{c}" not in en)
    assert missing == []


def test_every_name_and_password_rule_has_a_sentence() -> None:
    """A refused sign-up names the rule (`field`, `rule`): each one has a sentence."""
    from coffeetable.server.auth import NAME_RULES, PASSWORD_RULES

    for lang in LANGUAGES:
        data = strings(lang)
        for field, rules in (("name", NAME_RULES), ("password", PASSWORD_RULES)):
            for rule in rules:
                assert f"auth.rule.{field}.{rule}" in data, (lang, field, rule)


def test_no_markup_is_built_from_strings() -> None:
    for path in JS:
        code = path.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in code, (path.name, sink)


def test_nothing_is_loaded_from_another_site() -> None:
    allowed = {"http://www.w3.org/2000/svg"}
    for path in STATIC.rglob("*"):
        if path.suffix not in (".html", ".js", ".css", ".svg", ".json"):
            continue
        text = path.read_text(encoding="utf-8")
        for url in re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text):
            assert url in allowed, (path.name, url)


def test_every_log_key_the_games_produce_is_translated() -> None:
    """The game log is written from `say` keys (docs/web.md): every key a game can produce
    (its `log_templates`, checked against `State.say` by the conformance suite) is in every
    language, with the plural forms the language needs, and the English text is the game's
    own template, so the log reads the same in the browser as the server's `text`."""
    from coffeetable.core.registry import find_game, game_names

    templates: dict[str, object] = {}
    for name in game_names():
        templates.update(find_game(name).log_templates)
    assert len(templates) > 50
    en = strings("en")
    for key, template in templates.items():
        if isinstance(template, str):
            assert en.get(key) == template, key
        else:
            assert {f"{key}.{form}": text for form, text in template.items()} == {  # type: ignore[attr-defined]
                k: v for k, v in en.items() if k.rpartition(".")[0] == key
            }, key
    for lang in LANGUAGES:
        plain, plural = split(strings(lang))
        for key, template in templates.items():
            if isinstance(template, str):
                assert key in plain, (lang, key)
            else:
                assert plural.get(key) == PLURAL_FORMS[lang], (lang, key)
    # and no log key is left over that no game produces
    assert {k for k in en if k.startswith("log.")} == {
        k
        for key, v in templates.items()
        for k in ([key] if isinstance(v, str) else [f"{key}.{f}" for f in v])  # type: ignore[attr-defined]
    }


def test_every_cafe_city_is_translated() -> None:
    """Shops are drawn and logged by city: each city of the default deck has its name in
    every language (the rulebooks' spellings), and Russian and Ukrainian write it in
    Cyrillic, so a missing translation cannot hide behind the English fallback."""
    from coffeetable.games.cafe.deck import default_deck

    cities = {shop.city for card in default_deck().cards for shop in card.shops.values()}
    assert "Lisbon" in cities and len(cities) > 10
    for lang in LANGUAGES:
        table = strings(lang)
        for city in cities:
            name = table.get(f"city.{city}")
            assert name, (lang, city)
            if lang in ("ru", "uk"):
                assert re.search("[А-яІіЇїЄє]", name), (lang, city, name)
    assert strings("pt")["city.Lisbon"] == "Lisboa"


def test_touch_words_replace_mouse_words() -> None:
    """A `touch.KEY` string (shown on a touch screen instead of KEY, js/i18n.js) has its KEY,
    the same placeholders, and in English says "tap", never "click", "press R" or "pointer"."""
    en = strings("en")
    touch = {k: v for k, v in en.items() if k.startswith("touch.")}
    assert len(touch) > 10
    for key, text in touch.items():
        base = key.removeprefix("touch.")
        assert base in en, key
        assert placeholders(text) == placeholders(en[base]), key
        lowered = text.lower()
        assert not any(w in lowered for w in ("click", "press r", "pointer", "(r)", "key r")), key


def test_every_deck_problem_has_a_sentence() -> None:
    """The card editor shows a deck file's problems in the player's language
    (`deckproblem.<code>`, the `decks` part) with the placeholders of the loader's template."""
    from coffeetable.games.cafe.deck import PROBLEM_CODES as CAFE_CODES
    from coffeetable.games.coffee_rush.cards import PROBLEM_CODES as RUSH_CODES

    codes = {**CAFE_CODES, **RUSH_CODES}
    assert {"not_toml", "bad_city", "recipe_over_box"} <= set(codes)
    for lang in LANGUAGES:
        data = strings(lang)
        for code, template in codes.items():
            key = f"deckproblem.{code}"
            assert key in data, (lang, key)
            assert placeholders(data[key]) <= placeholders(template), (lang, key)
