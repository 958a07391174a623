"""The game protocol every game implements and every bot, adapter and server uses.

A :class:`Game` is a factory of :class:`State` objects and knows its action notation and
integer encoding. A :class:`State` knows which seats may act now (a set: some phases are
simultaneous), their legal actions, how to apply one, whether the game is over, and the
scores. Seats are numbered 0..n-1.
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from coffeetable.core.errors import (
    DataError,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
)
from coffeetable.core.say import Say, Template

JSON = dict[str, Any]

#: The `format` of every per-seat view (`State.view`); see docs/views.md.
VIEW_FORMAT = "coffeetable.view/1"


class Shuffler(Protocol):
    """What `resample_hidden` needs from a random generator (`random.Random` has it)."""

    def shuffle(self, x: list[Any]) -> None: ...

    def getrandbits(self, k: int) -> int: ...


@runtime_checkable
class Action(Protocol):
    """Actions are frozen, hashable value objects with a text notation."""

    def notation(self) -> str: ...


@dataclass(frozen=True)
class ScoreBreakdown:
    """One player's score: the total, its parts in order, and the tie-break keys."""

    total: int
    parts: tuple[tuple[str, int], ...]
    tiebreak: tuple[int, ...] = ()
    label: str | None = None  # e.g. the solo rating

    def to_json(self) -> JSON:
        out: JSON = {"total": self.total, "parts": dict(self.parts)}
        if self.tiebreak:
            out["tiebreak"] = list(self.tiebreak)
        if self.label is not None:
            out["label"] = self.label
        return out


def winners_by_rank(scores: Sequence[ScoreBreakdown]) -> list[int]:
    """Seats with the best (total, tie-break keys); all of them share the win."""
    keys = [(s.total, *s.tiebreak) for s in scores]
    best = max(keys)
    return [seat for seat, key in enumerate(keys) if key == best]


@dataclass(frozen=True)
class GameInfo:
    """Metadata declared once per game."""

    name: str
    title: str
    min_players: int
    max_players: int
    simultaneous: bool
    options_help: Mapping[str, str] = field(default_factory=dict)


class Game(ABC):
    """A game definition: metadata, a State factory, notation and encoding."""

    info: GameInfo

    @abstractmethod
    def new_initial_state(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> State:
        """Set up a new game. Raises DataError for a bad player count or options."""

    @property
    def log_templates(self) -> Mapping[str, Template]:
        """The English text of every key `State.say` produces (`coffeetable.core.say`), so
        that `render(state.say(seat, action), game.log_templates)` is
        `state.describe(seat, action)`. Games override it with their own."""
        return {"log.plays": "plays {notation}"}

    @abstractmethod
    def parse_action(self, text: str) -> Action:
        """Read an action in notation. Raises NotationError."""

    @abstractmethod
    def encode_action(self, action: Action) -> int:
        """A stable non-negative integer for an action (see the game's notation doc)."""

    @abstractmethod
    def decode_action(self, code: int) -> Action:
        """The inverse of encode_action. Raises NotationError for an unused code."""

    @abstractmethod
    def state_from_json(self, data: JSON) -> State:
        """Build a state from position JSON. Raises DataError with what is wrong."""

    def check_setup(self, num_players: Any, seed: Any) -> None:
        """DataError for a player count outside the game's range or a seed that is not an
        integer (for new_initial_state)."""
        info = self.info
        if not isinstance(num_players, int) or not (
            info.min_players <= num_players <= info.max_players
        ):
            raise DataError(
                f"{info.title} is played by {info.min_players} to {info.max_players} players, "
                f"not {num_players}"
            )
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise DataError(f"the seed must be an integer, not {seed!r}")

    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validated, complete options. Raises DataError naming the valid choices."""
        if options:
            unknown = ", ".join(sorted(options))
            raise DataError(f"{self.info.name} takes no options (got: {unknown})")
        return {}


class State(ABC):
    """A game in progress. Mutable; use clone() to branch."""

    game: Game
    num_players: int

    # --- whose turn -------------------------------------------------------------------
    @abstractmethod
    def current_seats(self) -> frozenset[int]:
        """Seats that may act now (empty once the game is over)."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action the seat may take now (empty if it may not act)."""

    def search_actions(self, seat: int) -> list[Action]:
        """The legal actions a search needs to try, in the order of `legal_actions`: all
        of them, unless the game knows some can never do the seat any good (Café: clearing
        a bean cell), so that bots spend their time on the rest. Empty exactly when
        `legal_actions` is. The default is every legal action."""
        return self.legal_actions(seat)

    # --- applying ---------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> Action:
        """Checked apply: raises a typed error saying what is wrong and changes nothing.

        Returns the action as applied, in its canonical form (see `canonical_action`)."""
        if self.is_over():
            raise GameOverError("the game is over; no more actions can be played")
        if not 0 <= seat < self.num_players:
            raise NotYourTurnError(f"there is no seat {seat} in a {self.num_players}-player game")
        if seat not in self.current_seats():
            raise NotYourTurnError(
                f"seat {seat} may not act now (seats to act: {_seats(self.current_seats())})"
            )
        action = self.canonical_action(seat, action)
        if action not in self.legal_actions(seat):
            raise IllegalActionError(self.explain_illegal(seat, action))
        self.apply_unchecked(seat, action)
        return action

    def canonical_action(self, seat: int, action: Action) -> Action:
        """The one spelling of `action` that legal_actions lists (a game may accept several
        spellings of the same move, e.g. a shop named by any of its cells)."""
        return action

    @abstractmethod
    def apply_unchecked(self, seat: int, action: Action) -> None:
        """Fast path for search: the caller guarantees the action is legal."""

    def explain_illegal(self, seat: int, action: Action) -> str:
        """Why an action is not legal now (used in error messages)."""
        return f"{action.notation()} is not a legal action for seat {seat} now"

    def describe(self, seat: int, action: Action) -> str:
        """What `seat` does with `action` when it is played in this state (the state before
        the action), as one short plain-English sentence without a subject, for a game log
        in words: "takes P19 (a 2-VP Tomar 1911 shop), paying a yellow cube". A server
        puts the player's name in front.

        The sentence uses public information only (never the deck order), fits on one line,
        and is deterministic. It never raises: an action that is not legal now is written
        with a generic verb ("plays NOTATION"). Games override this; the base version
        returns the action's notation."""
        return action.notation()

    def say(self, seat: int, action: Action, *, listed: bool = False) -> Say:
        """The sentence of `describe` as data: a message key and its parameters
        (`coffeetable.core.say`), for a game log in any language. The same rules as
        `describe` (public information only, deterministic, never raises). Games override
        this together with `describe`; the base version is "plays NOTATION".

        `listed=True` is the caller's word that `action` is an element of
        `self.legal_actions(seat)` (a server that picked it from the list it sent), so a
        game may word it without checking its legality again; the sentence is the same as
        without it (tests/test_conformance.py). With anything else it is a caller's bug."""
        return Say("log.plays", {"notation": action.notation()})

    def played_by_engine(
        self, seat: int, action: Action, previous: tuple[int, Action] | None
    ) -> bool:
        """Whether `action`, read from a stored game right after `previous` (the seat and
        action before it, if any), is a forced step this engine now plays by itself, so
        that replaying the game must skip it. A game made by an older engine that waited for
        such a step stores it; this keeps those games replayable (`record.apply_stored`).
        Never true for a step this state would accept. The default is False."""
        return False

    def may_take_back(self, seat: int, action: Action, after: State | None = None) -> bool:
        """Whether `seat` may take `action` back after playing it in this state (the state
        before it): an online table's undo of a step not yet confirmed.

        True only when all of these hold: the action is legal for `seat` now; it is a step
        within the seat's part of the turn or round that the game treats as not yet
        confirmed (each game says which in its Rulings); after it the game is not over and
        `seat` is still to act; and it reveals nothing hidden: no card is drawn, the deck,
        the cards removed unseen and the RNG are exactly as before. Taking the action back
        (replaying the game without it) then gives exactly this state again, and nobody
        learnt anything they could use by playing differently.

        `after`: this state with `action` applied by `seat`, when the caller has it (the
        server, which has just played it): the rules then compare with it instead of
        playing the action on a copy of their own; it must be exactly that state, and it is
        not changed either. It never raises and never changes the state. The default is
        False: nothing can be taken back unless the game says so."""
        return False

    def legal_actions_kept(self, seat: int, before: State) -> bool:
        """Whether `seat`'s legal actions in this state are exactly those it had in `before`,
        the state this one came from by one move of another seat (the caller's word: a
        server that has just played that move): the same actions in the same order, and
        `seat` may act in both. A server that listed them for `before` then keeps its list
        instead of asking the rules again (Café: in the simultaneous action phase, most
        moves change nothing of another seat's choices).

        True only when it certainly holds (tests/test_conformance.py compares the lists);
        it never raises and never changes either state. The default is False."""
        return False

    # --- outcome ----------------------------------------------------------------------
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def scores(self) -> list[ScoreBreakdown]:
        """Each player's score as if the game ended now (final once it is over)."""

    def winners(self) -> list[int]:
        """Seats that win after tie-breaks (several when the tie stands)."""
        return winners_by_rank(self.scores())

    def round_number(self) -> int:
        """The game's round (Café: 1-8), for tools that look ahead "to the end of this turn
        or round" (a seat's own consecutive steps within one round). Default 0."""
        return 0

    # --- copying ----------------------------------------------------------------------
    @abstractmethod
    def clone(self) -> State: ...

    def resample_hidden(self, seat: int, rng: Shuffler) -> State:
        """A clone in which everything `seat` cannot see (e.g. the deck order) is drawn anew
        with `rng`, consistently with what the seat has seen: a determinization for search.

        The result depends only on what the seat can see, never on how the hidden part of
        `self` happens to be arranged (so a bot that searches on resamples cannot peek).
        The default is for games of perfect information: a plain clone."""
        return self.clone()

    def search_key(self) -> Hashable:
        """A hashable key equal for two states that play on alike: searches use it to
        treat moves in another order that reach the same position as one (transpositions).
        The default is the position JSON, which is exact but slow; games override it."""
        return json.dumps(self.to_json(), sort_keys=True)

    @abstractmethod
    def to_json(self) -> JSON:
        """The full state as position JSON (includes hidden information)."""

    #: Whether some information is private to one seat, so that seats' views differ by more
    #: than their `seat` field. False (neither game has any, docs/views.md): every seat's
    #: view is the public view `view(None)` with its own `seat`, so a server may compute the
    #: public view once and share it (the view checks of the test suites hold games to it).
    private_views: ClassVar[bool] = False

    def view(self, seat: int | None, *, shared: bool = False) -> JSON:
        """What a client sitting at `seat` may see, as JSON; `None` is a spectator (the public
        view). This, and only this, is what a server sends to that client.

        `shared`: the caller promises never to change the view, at any depth (a server that
        only encodes it). The game may then return parts it shares with views it returned
        before or will return later, of this state or of others (Café keeps each seat's entry
        while that seat does not change). The view is equal to `view(seat)` and encodes to
        the same JSON; a game may ignore the flag.

        The contract every game keeps (docs/views.md):

        - It holds everything the seat may know and nothing else. Information private to a
          seat is in that seat's view only.
        - It never holds the deck order (only the deck's size), the identity of cards
          removed unseen (only their number), or the RNG state.
        - It is deterministic: it depends only on what the seat can see, so for every
          generator `rng`, `state.view(s) == state.resample_hidden(s, rng).view(s)`, and
          equal states (a clone, a position JSON round trip) give equal views.
        - It is plain JSON (`json.dumps` works) and shares no mutable object with the state
          (nor, unless `shared`, with any other view).

        It starts with the keys of `view_header` (`format` "coffeetable.view/1", `game`,
        `options`, `seat`, `current_seats`, `over`, `scores`, and `winners` once the game is
        over). Raises DataError for a seat that is neither None nor 0..num_players-1.
        Games implement it; this base version raises NotImplementedError."""
        raise NotImplementedError(f"{type(self).__name__} does not implement view()")

    @abstractmethod
    def render(self, seat: int | None = None) -> str:
        """A human-readable text picture of the state."""


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, tuples of plain values), several times
    faster than `copy.deepcopy`; anything else is deep-copied the usual way."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copy_json(item) for item in value)
    if value is None or isinstance(value, str | int | float):
        return value
    return copy.deepcopy(value)


def view_header(
    state: State,
    seat: int | None,
    options: Mapping[str, Any],
    scores: list[JSON] | None = None,
) -> JSON:
    """The keys every game's view starts with: `format`, `game`, `options` (a deep copy),
    `seat` (None for a spectator), `current_seats` (sorted), `over`, `scores` (one
    ScoreBreakdown JSON per seat, as if the game ended now: `scores` if the caller has them,
    equal to those of `state.scores()`) and, once the game is over, `winners`. Everything
    here is public. Raises DataError for a seat that is neither None nor a seat of the
    game."""
    if seat is not None and (
        not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.num_players
    ):
        raise DataError(
            f"there is no seat {seat!r} in a {state.num_players}-player game; a view is for a "
            f"seat 0..{state.num_players - 1} or None (a spectator)"
        )
    out: JSON = {
        "format": VIEW_FORMAT,
        "game": state.game.info.name,
        "options": _copy_json(dict(options)),
        "seat": seat,
        "current_seats": sorted(state.current_seats()),
        "over": state.is_over(),
        "scores": [s.to_json() for s in state.scores()] if scores is None else scores,
    }
    if state.is_over():
        out["winners"] = state.winners()
    return out


def _seats(seats: frozenset[int]) -> str:
    return ", ".join(str(s) for s in sorted(seats)) or "none"


__all__ = [
    "JSON",
    "VIEW_FORMAT",
    "Action",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "ScoreBreakdown",
    "Shuffler",
    "State",
    "view_header",
    "winners_by_rank",
]
