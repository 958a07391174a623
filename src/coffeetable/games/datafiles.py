"""The data files of both games, read the same way: a Café deck or a Coffee Rush card file
from its text or from its JSON model, with its canonical text (core/tomlwrite.py), the
SHA-256 of that text and every problem found (`coffeetable deck check`, `deck format`, the
server's deck routes). Which game a file is for can be told from its content (`game_of`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coffeetable.core.datafile import Problem, model_problems, parse_toml
from coffeetable.games.cafe.deck import (
    DECK_FORMAT,
    DeckReading,
    deck_toml,
    read_deck_data,
)
from coffeetable.games.cafe.deck import PROBLEM_CODES as DECK_CODES
from coffeetable.games.coffee_rush.cards import (
    CARDS_FORMAT,
    CardsReading,
    cards_toml,
    read_cards_data,
)
from coffeetable.games.coffee_rush.cards import PROBLEM_CODES as CARDS_CODES

#: Per game: its problem codes (code -> English template).
PROBLEM_CODES: dict[str, dict[str, str]] = {"cafe": DECK_CODES, "coffee-rush": CARDS_CODES}
#: Per game: the `format` its files declare.
FORMATS = {"cafe": DECK_FORMAT, "coffee-rush": CARDS_FORMAT}
_WRITERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "cafe": deck_toml,
    "coffee-rush": cards_toml,
}
_READERS: dict[str, Callable[[dict[str, Any], str], DeckReading | CardsReading]] = {
    "cafe": read_deck_data,
    "coffee-rush": read_cards_data,
}


@dataclass(frozen=True)
class FileReading:
    """A data file read for `game`: its canonical text and that text's SHA-256, its JSON
    model, the game's own reading (`DeckReading` or `CardsReading`) and its problems."""

    game: str
    text: str
    sha256: str
    reading: DeckReading | CardsReading

    @property
    def ok(self) -> bool:
        return not self.reading.problems

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self.reading.problems

    @property
    def name(self) -> str:
        return self.reading.name

    @property
    def model(self) -> dict[str, Any]:
        return self.reading.model


def game_of(data: dict[str, Any]) -> str:
    """The game a parsed data file is for: a Coffee Rush card file by its format, or by its
    tables whatever its format says; otherwise a Café deck."""
    is_cards = data.get("format") == CARDS_FORMAT or "drink" in data or "board" in data
    return "coffee-rush" if is_cards else "cafe"


def canonical_text(game: str, model: dict[str, Any]) -> str:
    """The canonical TOML text of a file's JSON model."""
    return _WRITERS[game](model)


def read_text(game: str, raw: bytes, source: str) -> FileReading:
    """Read a file's bytes for `game` (UnreadableError if it is not UTF-8 TOML)."""
    return read_model(game, parse_toml(raw, source), source)


def read_model(game: str, model: dict[str, Any], source: str) -> FileReading:
    """Read a file's JSON model for `game`: it is written as canonical text, and that text
    is what is read (so a model and its text are judged alike)."""
    if model_problems(model):  # not writable as TOML: judged as it is
        reading = _READERS[game](model, source)
        return FileReading(game, "", "", reading)
    text = canonical_text(game, model)
    raw = text.encode("utf-8")
    reading = _READERS[game](parse_toml(raw, source), source)
    return FileReading(game, text, hashlib.sha256(raw).hexdigest(), reading)


__all__ = [
    "FORMATS",
    "PROBLEM_CODES",
    "FileReading",
    "canonical_text",
    "game_of",
    "read_model",
    "read_text",
]
