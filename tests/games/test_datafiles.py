"""Deck and card files as data (issue 39): structured problems with codes from each loader's
`PROBLEM_CODES`, the JSON model of a file and its canonical TOML text, with round trips on
the default files and on generated ones (property tests)."""

from __future__ import annotations

import copy
import math
import re
import string
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coffeetable.core.datafile import COMMON_CODES, UnreadableError, toml_model
from coffeetable.core.tomlwrite import dumps
from coffeetable.games.cafe.deck import PROBLEM_CODES as DECK_CODES
from coffeetable.games.cafe.deck import default_deck, parse_deck
from coffeetable.games.coffee_rush.cards import PROBLEM_CODES as CARDS_CODES
from coffeetable.games.coffee_rush.cards import default_cards, parse_cards
from coffeetable.games.datafiles import PROBLEM_CODES, game_of, read_model, read_text

ROOT = Path(__file__).resolve().parents[2]
RAW = {
    "cafe": resources.files("coffeetable.games.cafe").joinpath("data/deck.toml").read_bytes(),
    "coffee-rush": resources.files("coffeetable.games.coffee_rush")
    .joinpath("data/cards.toml")
    .read_bytes(),
}


@pytest.mark.parametrize("game", ["cafe", "coffee-rush"])
def test_the_default_files_round_trip(game: str) -> None:
    first = read_text(game, RAW[game], "default")
    assert first.ok and first.text
    again = read_text(game, first.text.encode(), "canonical")
    assert again.text == first.text and again.sha256 == first.sha256
    assert again.model == first.model == toml_model(tomllib.loads(RAW[game].decode()))
    # the canonical text plays the same cards
    if game == "cafe":
        assert parse_deck(first.text.encode(), "x").cards == default_deck().cards
    else:
        assert parse_cards(first.text.encode(), "x").drinks == default_cards().drinks
    assert game_of(first.model) == game


def test_a_model_and_its_text_are_judged_alike() -> None:
    model = read_text("cafe", RAW["cafe"], "x").model
    broken = copy.deepcopy(model)
    broken["card"][5]["shops"]["a"]["vp"] = 99
    broken["card"][7]["cells"][0][0] = "teapot"
    from_model = read_model("cafe", broken, "x")
    from_text = read_text("cafe", from_model.text.encode(), "x")
    assert [p.to_json() for p in from_model.problems] == [p.to_json() for p in from_text.problems]
    assert {p.code for p in from_model.problems} == {"bad_vp", "bad_cell_token"}
    vp = next(p for p in from_model.problems if p.code == "bad_vp")
    assert vp.index == 5 and vp.card == model["card"][5]["id"] and vp.field == "shops.a.vp"
    # the cards that parsed are still there, with their positions
    assert len(from_model.reading.cards) == len(model["card"]) - 2  # type: ignore[union-attr]


def test_every_code_renders_and_is_documented() -> None:
    docs = {
        "cafe": (ROOT / "docs" / "cafe-deck-format.md").read_text(encoding="utf-8"),
        "coffee-rush": (ROOT / "docs" / "coffee-rush-cards-format.md").read_text(encoding="utf-8"),
    }
    assert PROBLEM_CODES == {"cafe": DECK_CODES, "coffee-rush": CARDS_CODES}
    for game, codes in PROBLEM_CODES.items():
        assert set(COMMON_CODES) <= set(codes)
        for code, template in codes.items():
            assert re.fullmatch(r"[a-z][a-z0-9_]*", code)
            params = {
                name: f"<{name}>" for _, name, _, _ in string.Formatter().parse(template) if name
            }
            assert template.format(**params)
            assert f"`{code}`" in docs[game], f"{code} is not in the {game} format doc"
        # a code shared by both games means the same: one translation serves both
    for code in set(DECK_CODES) & set(CARDS_CODES):
        assert DECK_CODES[code] == CARDS_CODES[code], code


def test_unreadable_files_have_one_problem() -> None:
    with pytest.raises(UnreadableError) as info:
        read_text("cafe", b"a = 1\nb = [\n", "x.toml")
    problem = info.value.problem
    assert problem.code == "not_toml" and problem.params["line"] == 3
    with pytest.raises(UnreadableError) as info:
        read_text("cafe", b"a = '\xff'", "x.toml")
    assert info.value.problem.code == "not_utf8"


# ==== property tests ============================================================================
keys = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_any_model_is_written_as_toml_that_reads_back_as_it(model: dict[str, Any]) -> None:
    text = dumps(model)
    assert _same(tomllib.loads(text), model)
    assert dumps(tomllib.loads(text)) == text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=62),
            st.sampled_from(["vp", "city", "requires", "year", "name"]),
            st.one_of(st.integers(-5, 30), st.text(max_size=6), st.booleans()),
        ),
        max_size=4,
    )
)
def test_changed_decks_round_trip_and_explain_themselves(
    changes: list[tuple[int, str, Any]],
) -> None:
    model = read_text("cafe", RAW["cafe"], "x").model
    for index, field, value in changes:
        shops = model["card"][index].get("shops") or {}
        for shop in shops.values():
            shop[field] = value
    first = read_model("cafe", model, "x")
    again = read_text("cafe", first.text.encode(), "x")
    assert again.text == first.text and again.model == first.model
    for problem in first.problems:
        assert problem.code in DECK_CODES
        assert problem.index is None or 0 <= problem.index < len(model["card"])
        assert problem.message == DECK_CODES[problem.code].format(**problem.params)
