"""Games on players' decks: a Café deck or a Coffee Rush card file, stored by the SHA-256 of
its canonical text, made into the game object that plays it (`CafeGame(deck)`,
`CoffeeRushGame(cards)`), once per process (a small cache by SHA-256).

A table names its deck in its options (`deck_sha256` for Café, `cards_sha256` for Coffee
Rush: the games write them into every table's and record's options), so whoever loads a
table (a node after a restart, a replay, an import, a bot worker given the file's text) finds
the same game. The default files are not stored: their SHA-256 means the registered game.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from coffeetable.core.errors import DataError
from coffeetable.core.game import Game
from coffeetable.core.registry import find_game
from coffeetable.games.cafe import CafeGame
from coffeetable.games.cafe.deck import DeckReading, deck_of
from coffeetable.games.coffee_rush import CoffeeRushGame
from coffeetable.games.coffee_rush.cards import CardsReading, cards_of
from coffeetable.games.datafiles import FileReading, read_text
from coffeetable.server.storage import Storage

#: Per game: the option that names the deck a table plays with.
DECK_OPTION = {"cafe": "deck_sha256", "coffee-rush": "cards_sha256"}
#: Games on decks kept parsed in one process.
CACHE_SIZE = 64


class UnknownDeck(LookupError):
    """No stored deck file has this SHA-256 (for this game)."""


@dataclass(frozen=True)
class DeckFacts:
    """What the lobby shows of a deck: its name, card count, where its cards come from."""

    name: str
    cards: int
    #: some card is a reconstruction (Café `reconstructed = true`; Coffee Rush a recipe or
    #: board not verified against the printed cards)
    reconstructed: bool
    #: some card is transcribed from a printed card (`reconstructed = false`, `verified`)
    transcription: bool
    provenance: dict[str, Any]


def facts_of(file: FileReading) -> DeckFacts:
    """The lobby's facts of a file read (valid or not: cards that could be read)."""
    reading = file.reading
    model = file.model
    provenance = model.get("provenance")
    prov: dict[str, Any] = dict(provenance) if isinstance(provenance, dict) else {}
    if isinstance(reading, DeckReading):
        cards = [c for _, c in reading.cards]
        return DeckFacts(
            name=reading.name,
            cards=len(cards),
            reconstructed=any(c.reconstructed for c in cards),
            transcription=any(not c.reconstructed for c in cards),
            provenance=prov,
        )
    assert isinstance(reading, CardsReading)
    drinks = [d for _, d in reading.drinks]
    board = model.get("board") if isinstance(model.get("board"), dict) else {}
    box = model.get("box") if isinstance(model.get("box"), dict) else {}
    for part, table in (("box", box), ("board", board)):
        if isinstance(table, dict) and isinstance(table.get("source"), str):
            prov.setdefault(f"{part}_source", table["source"])
    board_verified = isinstance(board, dict) and board.get("verified") is True
    return DeckFacts(
        name=reading.name,
        cards=sum(d.copies for d in drinks),
        reconstructed=not board_verified or any(not d.verified for d in drinks),
        transcription=any(d.verified for d in drinks),
        provenance=prov,
    )


@dataclass(frozen=True)
class LoadedDeck:
    """A stored deck file made into its game."""

    sha256: str
    game_name: str
    game: Game
    text: str
    facts: DeckFacts

    def summary(self) -> dict[str, Any]:
        """What a table's view and the lobby say of the deck it plays with."""
        return {
            "sha256": self.sha256,
            "name": self.facts.name,
            "reconstructed": self.facts.reconstructed,
            "transcription": self.facts.transcription,
        }


_loaded: OrderedDict[str, LoadedDeck] = OrderedDict()
_lock = threading.Lock()  # bot workers may run in threads


def _remember(deck: LoadedDeck) -> LoadedDeck:
    with _lock:
        _loaded[deck.sha256] = deck
        _loaded.move_to_end(deck.sha256)
        while len(_loaded) > CACHE_SIZE:
            _loaded.popitem(last=False)
    return deck


def _cached(sha256: str) -> LoadedDeck | None:
    with _lock:
        deck = _loaded.get(sha256)
        if deck is not None:
            _loaded.move_to_end(sha256)
        return deck


def build(game_name: str, text: str) -> LoadedDeck:
    """The game on a deck file's text (DataError if it is not a valid file for that game),
    cached by its SHA-256."""
    raw = text.encode("utf-8")
    sha = hashlib.sha256(raw).hexdigest()
    cached = _cached(sha)
    if cached is not None and cached.game_name == game_name:
        return cached
    if game_name not in ("cafe", "coffee-rush"):
        raise DataError(f"{game_name!r} is not played with deck files")
    source = f"stored {'deck' if game_name == 'cafe' else 'cards'} {sha[:12]}"
    file = read_text(game_name, raw, source)
    if file.text != text:
        raise DataError("a stored deck file must be in canonical form")
    # the file as read once: the game is made from that reading
    game: Game
    if isinstance(file.reading, DeckReading):
        game = CafeGame(deck_of(file.reading, file.sha256, source))
    else:
        game = CoffeeRushGame(cards_of(file.reading, file.sha256, source))
    return _remember(LoadedDeck(file.sha256, game_name, game, text, facts_of(file)))


def deck_sha(game_name: str, options: dict[str, Any] | None) -> str | None:
    """The SHA-256 of the players' deck `options` name; None for the default deck (or a
    game without decks)."""
    option = DECK_OPTION.get(game_name)
    sha = (options or {}).get(option) if option is not None else None
    if option is None or not isinstance(sha, str):
        return None
    return None if sha == _default_sha(game_name) else sha


@functools.cache
def _default_sha(game_name: str) -> Any:
    """The SHA-256 of the game's default deck file (as its options name it)."""
    return find_game(game_name).normalize_options({}).get(DECK_OPTION[game_name])


def summary_of(game_name: str, options: dict[str, Any] | None) -> dict[str, Any] | None:
    """The deck summary of a table's options, if its deck is loaded in this process (every
    node loads a table's deck before it shows the table: `DeckBook.game_for`)."""
    sha = deck_sha(game_name, options)
    deck = _cached(sha) if sha else None
    return deck.summary() if deck is not None else None


class DeckBook:
    """Games on stored decks, by SHA-256: from the process's cache, else from storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def load(self, game_name: str, sha256: str) -> LoadedDeck:
        deck = _cached(sha256)
        if deck is not None and deck.game_name == game_name:
            return deck
        file = await self.storage.deck_file(sha256)
        if file is None or file.game != game_name:
            raise UnknownDeck(sha256)
        return build(game_name, file.text)

    async def game_for(
        self, game_name: str, options: dict[str, Any] | None
    ) -> tuple[Game, LoadedDeck | None]:
        """The game a table with these options plays: the registered game on the default
        deck, or the game on the stored deck its options name (UnknownDeck if none)."""
        sha = deck_sha(game_name, options)
        if sha is None:
            return find_game(game_name), None
        deck = await self.load(game_name, sha)
        return deck.game, deck

    async def preload(self, tables: Iterable[tuple[str, dict[str, Any]]]) -> None:
        """Load the decks of tables (game, options) about to be shown, so that their JSON
        names them (`summary_of`); a deck that is not stored is left out."""
        for game_name, options in tables:
            sha = deck_sha(game_name, options)
            if sha is not None and _cached(sha) is None:
                with contextlib.suppress(UnknownDeck, DataError):
                    await self.load(game_name, sha)


def game_on_text(game_name: str, deck_text: str | None) -> Game:
    """For a bot worker: the game on the deck text a job carries (the registered game
    without one)."""
    return find_game(game_name) if deck_text is None else build(game_name, deck_text).game


__all__ = [
    "CACHE_SIZE",
    "DECK_OPTION",
    "DeckBook",
    "DeckFacts",
    "LoadedDeck",
    "UnknownDeck",
    "build",
    "deck_sha",
    "facts_of",
    "game_on_text",
    "summary_of",
]
