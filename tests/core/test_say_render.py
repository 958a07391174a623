"""`core.say.render` fills a template's placeholders from its split parts (kept per
template): the same text as substituting each `{name}` with a regular expression, over every
template of both games, with values for some placeholders and none for others."""

from __future__ import annotations

import random
import re

import pytest

from coffeetable.core.registry import find_game
from coffeetable.core.say import COLOURS, UPGRADES, Say, render

TYPED = {"colour": "G", "upgrade": "diagonal"}  # parameters whose values are translated


def _reference(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


@pytest.mark.parametrize("game", ["cafe", "coffee-rush"])
def test_render_fills_every_template_as_a_substitution_would(game: str) -> None:
    templates = dict(find_game(game).log_templates)
    templates["test.odd"] = "{a}{a} {} {b c} {{x}} {1}{missing} end{"
    templates["test.plain"] = "no placeholder at all"
    rng = random.Random(0)
    for key, template in templates.items():
        texts = [template] if isinstance(template, str) else [template["other"]]
        for text in texts:
            names = re.findall(r"\{(\w+)\}", text)
            for _ in range(3):
                params = {
                    n: TYPED.get(n, f"<{n}{rng.randrange(9)}>")
                    for n in names
                    if rng.random() < 0.7 and n not in ("colour_pl", "colour_gpl")
                }
                values = dict(params)
                if "colour" in params:
                    values["colour"] = COLOURS[params["colour"]]
                    values["colour_pl"] = values["colour_gpl"] = values["colour"]
                if "upgrade" in params:
                    values["upgrade"] = UPGRADES[params["upgrade"]]
                got = render(Say(key, params), templates)
                assert got == _reference(text, values)
                assert render(Say(key, params), templates) == got  # from the kept parts


def test_render_of_a_plural_template_and_a_colour() -> None:
    templates = {"k": {"one": "{n} {colour} cube", "other": "{n} {colour_pl} cubes at {x}"}}
    assert render(Say("k", {"n": 1, "colour": "Y"}), templates) == "1 yellow cube"
    assert render(Say("k", {"n": 2, "colour": "R"}), templates) == "2 red cubes at {x}"
