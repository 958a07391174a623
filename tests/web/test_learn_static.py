"""The texts of learning the games (static/help, static/tutorial), without a browser: every
language has every text, placeholders match the English, every key the code asks for exists,
every tutorial step has its words and every refusal its explanation, and each file says where
its words come from."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.web.ui import STATIC

LANGUAGES = ["en", "pt", "ru", "uk"]
GAMES = ["cafe", "coffee-rush"]


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _texts(lang: str) -> dict[str, str]:
    out = _load(STATIC / "help" / f"{lang}.json")
    for game in GAMES:
        out.update(_load(STATIC / "tutorial" / f"{game}.{lang}.json"))
    return out


def test_every_language_has_every_learning_text() -> None:
    files = [STATIC / "help" / "{}.json"] + [STATIC / "tutorial" / f"{g}.{{}}.json" for g in GAMES]
    for pattern in files:
        en = _load(Path(str(pattern).format("en")))
        assert "_source" in en and "docs/" in en["_source"]  # provenance
        for lang in LANGUAGES:
            data = _load(Path(str(pattern).format(lang)))
            assert set(data) == set(en), (pattern, lang, set(data) ^ set(en))
            for key, text in data.items():
                assert isinstance(text, str) and text.strip(), (lang, key)
                want = set(re.findall(r"\{(\w+)\}", en[key]))
                assert set(re.findall(r"\{(\w+)\}", text)) == want, (lang, key)
                assert text.count("**") % 2 == 0, (lang, key)  # bold parts are closed
                if lang != "en" and key != "_source" and len(en[key]) > 40:
                    assert text != en[key], (lang, key)  # translated, not copied


def test_every_key_the_code_asks_for_exists() -> None:
    en = _texts("en")
    used: set[str] = set()
    for path in (STATIC / "js").glob("*.js"):
        used |= set(re.findall(r"\bht\(\"([a-z_][\w.-]*)\"", path.read_text(encoding="utf-8")))
    assert used, "no learning text is used"
    assert used <= set(en), used - set(en)
    # keys built from parts: the intro's and the help tabs' game names, section titles
    for game in GAMES:
        for part in ["name", "line1", "line2"]:
            assert f"intro.{game}.{part}" in en


def test_every_tutorial_step_has_its_words() -> None:
    for game in GAMES:
        script = _load(STATIC / "tutorial" / f"{game}.json")
        assert script["game"] == game and "_source" in script
        steps = script["steps"]
        ids = [s["id"] for s in steps]
        assert len(ids) == len(set(ids)), ids
        assert steps[-1].get("finish") is True
        for lang in LANGUAGES:
            texts = _texts(lang)
            assert f"tut.{game}.wrong" in texts
            for step in steps:
                assert f"tut.{game}.{step['id']}" in texts, (lang, step["id"])
                waits = [k for k in ("next", "expect", "until", "finish") if k in step]
                assert len(waits) == 1, step
                for pattern in [
                    step.get("expect"),
                    step.get("allow"),
                    *[w["match"] for w in step.get("wrong", [])],
                ]:
                    if pattern:
                        re.compile(pattern)
                for wrong in step.get("wrong", []):
                    assert f"tut.{game}.{step['id']}.{wrong['say']}" in texts, (
                        lang,
                        step["id"],
                        wrong,
                    )


def test_the_help_sections_have_titles_in_every_language() -> None:
    code = (STATIC / "js" / "help.js").read_text(encoding="utf-8")
    sections = re.findall(r"section\(\"(cafe|rush)\", \"(\w+)\"", code)
    assert len(sections) >= 14
    legend = re.findall(r"\"(help\.(?:cafe|rush)\.legend\.[\w-]+)\"", code)
    block = code.split("const CAFE_LEGEND = [", 1)[1].split("];", 1)[0]
    names = [n for n, _ in re.findall(r"\[\"(\w+)\", \"([\w-]+)\"\]", block)]
    assert len(names) >= 14
    for lang in LANGUAGES:
        texts = _texts(lang)
        for game, name in sections:
            assert f"help.{game}.{name}.title" in texts, (lang, game, name)
        for key in legend:
            assert f"{key}.title" in texts and f"{key}.text" in texts, (lang, key)
        for name in names:
            assert f"help.cafe.legend.{name}.title" in texts, (lang, name)
