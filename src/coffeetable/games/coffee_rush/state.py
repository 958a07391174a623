"""The Coffee Rush game state and its rules (docs/coffee-rush-rules.md).

Seats are in clockwise turn order; seat 0 is the start player, so "the player to your left"
is the next seat and "the start player's right-hand neighbour" is the last seat.

A turn is a sequence of small steps (see actions.py): optional upgrade, steps of movement,
`stop`, pours, serves, `end`. Steps that have no alternative are applied automatically:
movement stops when no step is left (out of steps, or a dead end among other meeples: Ruling
A1), and the turn ends when only `end` is possible.
"""

from __future__ import annotations

from collections.abc import Hashable
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from coffeetable.core.errors import CoffeetableError, IllegalActionError
from coffeetable.core.game import Action, ScoreBreakdown, Shuffler, State
from coffeetable.core.say import Say
from coffeetable.games.coffee_rush.actions import (
    UPGRADES,
    Empty,
    End,
    Place,
    Pour,
    RushAction,
    Serve,
    Step,
    Stop,
    Turn,
    Upgrade,
)
from coffeetable.games.coffee_rush.cards import (
    ALL_NEIGHBOURS,
    CORNERS,
    COUNTERS,
    CUPS,
    ORTHOGONAL,
    SQUARES,
    CardSet,
)

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.game import CoffeeRushGame

FREE_STEPS = 3
PENALTIES_TO_CLOSE = 5
UPGRADE_COST = 3
UPGRADE_POINTS = 2
DOUBLE_MEEPLES, DIAGONAL, DOUBLE_CORNERS, DOUBLE_SPECIALTIES = 1, 2, 4, 8


class Phase(IntEnum):
    PLACE = 0  # set-up: meeples placed one at a time
    SETUP_POUR = 1  # 2 players: each puts their two set-up tokens into cups
    TURN = 2
    OVER = 3


class Stage(IntEnum):
    MOVE = 0  # upgrade (before the first step), steps, stop
    POUR = 1  # pour taken tokens; the first serve ends pouring
    SERVE = 2


def placement_order(num_players: int) -> list[tuple[int, int]]:
    """(seat, meeple) in placing order: counterclockwise from the start player's right;
    with 2 players the non-start player first, alternating, two meeples each."""
    if num_players == 2:
        return [(1, 0), (0, 0), (1, 1), (0, 1)]
    return [(seat, 0) for seat in range(num_players - 1, -1, -1)]


def draw_targets(seat: int, num_players: int) -> list[int]:
    """Who draws for "too many orders": the two players to the left (the other one in 2p)."""
    if num_players == 2:
        return [1 - seat]
    return [(seat + 1) % num_players, (seat + 2) % num_players]


class RushState(State):
    __slots__ = (
        "_legal_cache",
        "cards",
        "closed",
        "completed",
        "counters",
        "cups",
        "current",
        "deck",
        "discarded",
        "game",
        "hand",
        "meeple",
        "meeples",
        "num_players",
        "options",
        "penalties",
        "phase",
        "placed",
        "removed",
        "rush",
        "rush_supply",
        "served",
        "stage",
        "steps",
        "supply",
        "upgraded",
        "upgrades",
    )

    game: CoffeeRushGame

    def __init__(self, game: CoffeeRushGame, num_players: int, options: dict[str, Any]) -> None:
        cards = game.cards
        n = num_players
        self.game = game
        self.cards: CardSet = cards
        self.num_players = n
        self.options = options
        self.phase = Phase.PLACE
        self.stage = Stage.MOVE
        self.current = 0
        self.placed = 0  # meeples placed so far (index into placement_order)
        self.meeples: list[list[int]] = [[-1] * (2 if n == 2 else 1) for _ in range(n)]
        self.supply: list[int] = list(cards.box)
        self.rush_supply = cards.rush
        self.deck: list[int] = []  # drink indices; the top card is the last element
        self.counters: list[list[list[int]]] = [[[] for _ in range(COUNTERS)] for _ in range(n)]
        self.completed: list[list[int]] = [[] for _ in range(n)]
        self.penalties: list[list[int]] = [[] for _ in range(n)]
        self.upgrades: list[int] = [0] * n
        self.rush: list[int] = [0] * n
        zero = (0,) * len(cards.ingredients)
        self.cups: list[list[tuple[int, ...]]] = [[zero] * CUPS for _ in range(n)]
        self.discarded: list[int] = []
        self.removed: list[int] = []
        self.closed = False
        # the turn in progress
        self.meeple = -1  # which of the current seat's meeples moves (-1: not chosen yet)
        self.steps = 0
        self.hand: list[int] = [0] * len(cards.ingredients)
        self.served = 0
        self.upgraded = False
        self._legal_cache: list[RushAction] | None = None

    # --- set-up ---------------------------------------------------------------------------
    @classmethod
    def new_game(
        cls, game: CoffeeRushGame, num_players: int, seed: int, options: dict[str, Any]
    ) -> RushState:
        """Ruling SETUP1: the deck is shuffled once with the game's seeded generator (with
        less luck, the Ristretto/Espresso cards are set aside first and shuffled second);
        cards are dealt seat by seat from the start player, counter 1 before counter 2."""
        from coffeetable.core.rng import Rng

        state = cls(game, num_players, options)
        rng = Rng(seed)
        cards = game.cards
        pool = cards.all_cards()
        starters: list[int] = []
        if options.get("less_luck"):
            starters = [c for c in pool if cards.drinks[c].less_luck]
            pool = [c for c in pool if not cards.drinks[c].less_luck]
        rng.shuffle(pool)
        pool.reverse()  # the deck's top is the end of the list; deal from the shuffled front
        state.deck = pool
        if starters:
            rng.shuffle(starters)
            for seat in range(num_players):
                state.counters[seat][0].append(starters.pop())
            for seat in range(num_players):
                state._draw(seat)  # counter 1 is dealt by _draw; move it to counter 2
                state.counters[seat][1].append(state.counters[seat][0].pop())
            state._draw(0)
            state.removed = sorted(starters)
        else:
            for seat in range(num_players):
                for _ in range(2 if seat == 0 else 1):
                    state._draw(seat)
                state._draw(seat)
                state.counters[seat][1].append(state.counters[seat][0].pop())
        state.current = placement_order(num_players)[0][0]
        return state

    def _draw(self, seat: int) -> None:
        """Draw one card onto the seat's counter 1. Ruling L1: the token turns CLOSED when
        a draw takes the deck's last card or finds the deck empty."""
        if self.deck:
            self.counters[seat][0].append(self.deck.pop())
        if not self.deck:
            self.closed = True

    # --- whose turn -----------------------------------------------------------------------
    def current_seats(self) -> frozenset[int]:
        if self.phase is Phase.OVER:
            return frozenset()
        return frozenset((self.current,))

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    # --- legal actions --------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase is Phase.OVER or seat != self.current:
            return []
        cache = self._legal_cache
        if cache is None:
            cache = self._legal_cache = self._compute_legal()
        return list(cache)

    def _compute_legal(self) -> list[RushAction]:
        g = self.game
        seat = self.current
        phase = self.phase
        if phase is Phase.PLACE:
            taken = {sq for ms in self.meeples for sq in ms if sq >= 0}
            return [g.PLACE[sq] for sq in range(SQUARES) if sq not in taken]
        if phase is Phase.SETUP_POUR:
            return [p for i, h in enumerate(self.hand) if h for p in g.POUR[i]]
        out: list[RushAction] = []
        cups = self.cups[seat]
        stage = self.stage
        if stage is Stage.MOVE:
            if self.steps == 0 and not self.upgraded and len(self.completed[seat]) >= UPGRADE_COST:
                have = self.upgrades[seat]
                out.extend(g.UPGRADE[k] for k in range(len(UPGRADES)) if not have & (1 << k))
            out.extend(self._step_actions(seat))
            if self.steps and not self._occupied_by_other(seat, self.meeple, self._pos()):
                out.append(g.STOP)
        elif stage is Stage.POUR:
            for i, h in enumerate(self.hand):
                if h:
                    out.extend(g.POUR[i])
        if stage is not Stage.MOVE:
            out.extend(self._serve_actions(seat))
        for c in range(CUPS):
            if any(cups[c]):
                out.append(g.EMPTY[c])
        if stage is not Stage.MOVE:
            out.append(g.END)
        return out

    def _pos(self) -> int:
        return self.meeples[self.current][self.meeple]

    def _others(self, seat: int, meeple: int) -> list[int]:
        """Squares of every meeple except the seat's `meeple`."""
        return [
            sq
            for s, ms in enumerate(self.meeples)
            for m, sq in enumerate(ms)
            if sq >= 0 and (s != seat or m != meeple)
        ]

    def _occupied_by_other(self, seat: int, meeple: int, square: int) -> bool:
        return square in self._others(seat, meeple)

    def _steps_left_after_one(self, seat: int) -> int:
        """Steps still available after taking one more (free steps, then rush tokens)."""
        if self.steps >= FREE_STEPS:
            return self.rush[seat] - 1
        return FREE_STEPS - self.steps - 1 + self.rush[seat]

    def _can_step(self, seat: int) -> bool:
        return self.steps < FREE_STEPS or self.rush[seat] > 0

    def _step_actions(self, seat: int) -> list[RushAction]:
        if not self._can_step(seat):
            return []
        nbrs = ALL_NEIGHBOURS if self.upgrades[seat] & DIAGONAL else ORTHOGONAL
        left = self._steps_left_after_one(seat)
        steps = self.game.STEP
        meeples = (self.meeple,) if self.meeple >= 0 else range(len(self.meeples[seat]))
        out: list[RushAction] = []
        for m in meeples:
            frm = self.meeples[seat][m]
            occupied = self._others(seat, m)
            for to in nbrs[frm]:
                if to in occupied and (left < 1 or _distance_to_free(to, occupied, nbrs) > left):
                    continue
                out.append(steps[frm][to])
        return out

    def _serve_actions(self, seat: int) -> list[RushAction]:
        out: list[RushAction] = []
        by_recipe = self.cards.by_recipe
        counters = self.counters[seat]
        for c, cup in enumerate(self.cups[seat]):
            drinks = by_recipe.get(cup)
            if not drinks:
                continue
            for k in range(COUNTERS):
                seen: set[int] = set()
                for d in counters[k]:
                    if d in drinks and d not in seen:
                        seen.add(d)
                        out.append(self.game.serve_action(c, k, d))
        return out

    # --- applying -------------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> Action:
        """Checked apply; a Turn (several steps in one text) is applied all or nothing."""
        if isinstance(action, Turn):
            return self._apply_turn(seat, action)
        return super().apply(seat, action)

    def _apply_turn(self, seat: int, turn: Turn) -> Action:
        trial = self.clone()
        applied: list[RushAction] = []
        auto = False  # did the step just applied make the engine play a forced stop / end?
        for i, step in enumerate(turn.steps):
            where = f"step {i + 1} of the turn ({step.notation()})"
            if auto and _played_by_engine(trial, seat, step):
                auto = False
                continue  # the engine played this forced step itself (Ruling A1)
            if (
                isinstance(step, Pour | Serve | End)
                and trial.phase is Phase.TURN
                and trial.stage is Stage.MOVE
                and seat == trial.current
                and self.game.STOP in trial._compute_legal()
            ):
                trial.apply_unchecked(seat, self.game.STOP)
                applied.append(self.game.STOP)
            try:
                done = State.apply(trial, seat, step)
            except IllegalActionError as exc:
                message = str(exc)
                if message.startswith(step.notation() + ":"):
                    where = f"step {i + 1} of the turn"
                raise type(exc)(f"{where}: {message}") from None
            assert isinstance(done, RushAction)
            applied.append(done)
            auto = not isinstance(step, End) and (
                trial.current != seat or (isinstance(step, Step) and trial.stage is not Stage.MOVE)
            )
        for name in RushState.__slots__:
            setattr(self, name, getattr(trial, name))
        return Turn(tuple(applied))

    def canonical_action(self, seat: int, action: Action) -> Action:
        if isinstance(action, Step) and action.frm < 0 and self.phase is Phase.TURN:
            candidates = [
                a for a in self._compute_legal() if isinstance(a, Step) and a.to == action.to
            ]
            if len(candidates) > 1:
                froms = " or ".join(f"{a.notation()}" for a in candidates)
                raise IllegalActionError(
                    f"{action.notation()}: more than one of your meeples can step there; write {froms}"
                )
            if candidates:
                return candidates[0]
            if self.meeple >= 0 or len(self.meeples[seat]) == 1:
                m = max(self.meeple, 0)
                return self.game.STEP[self.meeples[seat][m]][action.to]
        if isinstance(action, Serve) and action.drink is None:
            matches = [
                a
                for a in self._compute_legal()
                if isinstance(a, Serve) and (a.cup, a.counter) == (action.cup, action.counter)
            ]
            if len(matches) > 1:
                names = ", ".join(str(a.drink) for a in matches)
                raise IllegalActionError(
                    f"{action.notation()}: cup {action.cup + 1} matches several orders on counter "
                    f"{action.counter + 1} ({names}); name the drink, e.g. {matches[0].notation()}"
                )
            if matches:
                return matches[0]
        return action

    def explain_illegal(self, seat: int, action: Action) -> str:
        from coffeetable.games.coffee_rush.explain import explain

        return explain(self, seat, action)

    def describe(self, seat: int, action: Action) -> str:
        """The action in words for a game log (docs/architecture.md): "moves from b2 to c3,
        taking milk"; "plays NOTATION" when it is not legal now."""
        from coffeetable.games.coffee_rush.describe import describe

        return describe(self, seat, action)

    def say(self, seat: int, action: Action, *, listed: bool = False) -> Say:
        """`describe`'s sentence as a message key and parameters (for other languages);
        `listed`: `action` is from `legal_actions(seat)` (`State.say`)."""
        from coffeetable.games.coffee_rush.describe import say

        return say(self, seat, action, listed=listed)

    def played_by_engine(
        self, seat: int, action: Action, previous: tuple[int, Action] | None
    ) -> bool:
        """A `stop` stored right after the same seat's step into a dead end: engines before
        Ruling A1 covered dead ends waited for it; this one played it with the step."""
        return (
            isinstance(action, Stop)
            and previous is not None
            and previous[0] == seat
            and isinstance(previous[1], Step)
            and not (self.phase is Phase.TURN and self.current == seat and self.stage is Stage.MOVE)
        )

    def may_take_back(self, seat: int, action: Action, after: Any = None) -> bool:
        """Ruling UNDO1: a step within the seat's turn (or its set-up pour, with 2 players)
        that leaves the same seat to act may be taken back: an upgrade, a step of movement,
        `stop`, a pour, emptying a cup, a serve. `end`, and a step after which the engine
        ends the turn (Ruling A1), are confirmed: the turn's end draws cards. Meeple
        placement at set-up is confirmed (it passes the turn). Nothing else in a turn
        touches the deck, which is checked all the same."""
        if self.phase not in (Phase.TURN, Phase.SETUP_POUR) or seat != self.current:
            return False
        if after is not None:
            try:
                if self.canonical_action(seat, action) not in self.legal_actions(seat):
                    return False
            except CoffeetableError:
                return False
        else:
            after = self.clone()
            try:
                after.apply(seat, action)
            except CoffeetableError:
                return False
        return after.phase is self.phase and after.current == seat and after.deck == self.deck

    def apply_unchecked(self, seat: int, action: Action) -> None:
        self._legal_cache = None
        if isinstance(action, Step):
            self._step(seat, action)
        elif isinstance(action, Pour):
            i = self.cards.ingredients.index(action.ingredient)
            self.hand[i] -= 1
            cup = list(self.cups[seat][action.cup])
            cup[i] += 1
            self.cups[seat][action.cup] = tuple(cup)
            if self.phase is Phase.SETUP_POUR and not any(self.hand):
                self._next_setup_pour()
        elif isinstance(action, Stop):
            self.stage = Stage.POUR
            self._end_if_forced(seat)
        elif isinstance(action, Serve):
            self._serve(seat, action)
        elif isinstance(action, Empty):
            self._return(self.cups[seat][action.cup])
            self.cups[seat][action.cup] = (0,) * len(self.hand)
            self._end_if_forced(seat)
        elif isinstance(action, End):
            self._end_turn(seat)
        elif isinstance(action, Upgrade):
            done = self.completed[seat]
            self.discarded.extend(done[:UPGRADE_COST])
            del done[:UPGRADE_COST]
            self.upgrades[seat] |= 1 << action.kind
            self.upgraded = True
        elif isinstance(action, Place):
            self._place(action.square)
        else:
            raise TypeError(f"not a Coffee Rush step: {action!r}")

    def _return(self, counts: tuple[int, ...] | list[int]) -> None:
        supply = self.supply
        for i, n in enumerate(counts):
            if n:
                supply[i] += n

    def _place(self, square: int) -> None:
        order = placement_order(self.num_players)
        seat, meeple = order[self.placed]
        self.meeples[seat][meeple] = square
        self.placed += 1
        if self.placed < len(order):
            self.current = order[self.placed][0]
            return
        # every meeple is placed: each player takes the ingredients of their squares
        if self.num_players == 2:
            self.phase = Phase.SETUP_POUR
            self._start_setup_pour(0)
            return
        for s in range(self.num_players):
            cup = [0] * len(self.hand)
            ing = self.cards.board[self.meeples[s][0]]
            if self.supply[ing]:
                self.supply[ing] -= 1
                cup[ing] = 1
            # Ruling SETUP2: with one token and three empty cups there is nothing to choose
            self.cups[s][0] = tuple(cup)
        self._start_turn(0)

    def _start_setup_pour(self, seat: int) -> None:
        self.current = seat
        for sq in self.meeples[seat]:
            ing = self.cards.board[sq]
            if self.supply[ing]:
                self.supply[ing] -= 1
                self.hand[ing] += 1

    def _next_setup_pour(self) -> None:
        if self.current == 0:
            self._start_setup_pour(1)
        else:
            self._start_turn(0)

    def _start_turn(self, seat: int) -> None:
        self.phase = Phase.TURN
        self.stage = Stage.MOVE
        self.current = seat
        self.meeple = -1
        self.steps = 0
        self.served = 0
        self.upgraded = False

    def _step(self, seat: int, action: Step) -> None:
        if self.meeple < 0:
            self.meeple = self.meeples[seat].index(action.frm)
        if self.steps >= FREE_STEPS:
            self.rush[seat] -= 1
            self.rush_supply += 1
        self.steps += 1
        to = action.to
        self.meeples[seat][self.meeple] = to
        ups = self.upgrades[seat]
        ing = self.cards.board[to]
        take = 1
        if ups:
            if ups & DOUBLE_MEEPLES and to in self._others(seat, self.meeple):
                take *= 2
            if ups & DOUBLE_CORNERS and to in CORNERS:
                take *= 2
            if ups & DOUBLE_SPECIALTIES and ing in self.cards.specialties:
                take *= 2
        take = min(take, self.supply[ing])
        self.supply[ing] -= take
        self.hand[ing] += take
        if not self._step_actions(seat):
            # no step left (out of steps, or a dead end among other meeples): movement is
            # over, and the engine plays the `stop` that has no alternative (Ruling A1)
            self.stage = Stage.POUR
            self._end_if_forced(seat)

    def _serve(self, seat: int, action: Serve) -> None:
        d = self.cards.drink_index(action.drink or "")
        self.counters[seat][action.counter].remove(d)
        self.completed[seat].append(d)
        self._return(self.cups[seat][action.cup])
        self.cups[seat][action.cup] = (0,) * len(self.hand)
        if self.cards.drinks[d].special and self.rush_supply:
            self.rush[seat] += 1  # Ruling R2: none if the supply has no rush token left
            self.rush_supply -= 1
        self.served += 1
        if self.stage is Stage.POUR:  # Ruling T1: serving ends pouring
            self._return(self.hand)
            self.hand = [0] * len(self.hand)
            self.stage = Stage.SERVE
        self._end_if_forced(seat)

    def _end_if_forced(self, seat: int) -> None:
        """Apply `end` when it is the only legal action (after moving, with nothing in hand
        and every cup empty)."""
        if (
            self.stage is not Stage.MOVE
            and not any(self.hand)
            and not any(any(c) for c in self.cups[seat])
        ):
            self._end_turn(seat)

    def _end_turn(self, seat: int) -> None:
        n = self.num_players
        if any(self.hand):
            self._return(self.hand)
            self.hand = [0] * len(self.hand)
        # too many orders: the players to the left draw, the nearest one all of theirs first
        if self.served:
            for target in draw_targets(seat, n):
                for _ in range(self.served):
                    self._draw(target)
        # time passes
        counters = self.counters[seat]
        fallen = counters[3]
        if fallen:
            self.penalties[seat].extend(fallen)
            gain = min(len(fallen), self.rush_supply)  # Ruling R1
            self.rush[seat] += gain
            self.rush_supply -= gain
        self.counters[seat] = [[], counters[0], counters[1], counters[2]]
        if n == 2:
            self._draw(seat)
        if len(self.penalties[seat]) >= PENALTIES_TO_CLOSE:
            self.closed = True
        if not self.closed and not any(c for cs in self.counters for c in cs):
            self.closed = True  # Ruling E1: no order left anywhere, nobody can ever serve
        if self.closed and seat == n - 1:
            self.phase = Phase.OVER
            self.current = -1
            return
        self._start_turn((seat + 1) % n)

    # --- outcome --------------------------------------------------------------------------
    def scores(self) -> list[ScoreBreakdown]:
        out = []
        for s in range(self.num_players):
            orders = len(self.completed[s])
            ups = bin(self.upgrades[s]).count("1") * UPGRADE_POINTS
            pens = -len(self.penalties[s])
            out.append(
                ScoreBreakdown(
                    total=orders + ups + pens,
                    parts=(("orders", orders), ("upgrades", ups), ("penalties", pens)),
                    tiebreak=(orders, self.rush[s]),
                )
            )
        return out

    # --- copying --------------------------------------------------------------------------
    def clone(self) -> RushState:
        new = RushState.__new__(RushState)
        new.game = self.game
        new.cards = self.cards
        new.num_players = self.num_players
        new.options = self.options
        new.phase = self.phase
        new.stage = self.stage
        new.current = self.current
        new.placed = self.placed
        new.meeples = [list(m) for m in self.meeples]
        new.supply = list(self.supply)
        new.rush_supply = self.rush_supply
        new.deck = list(self.deck)
        new.counters = [[list(c) for c in cs] for cs in self.counters]
        new.completed = [list(c) for c in self.completed]
        new.penalties = [list(p) for p in self.penalties]
        new.upgrades = list(self.upgrades)
        new.rush = list(self.rush)
        new.cups = [list(c) for c in self.cups]
        new.discarded = list(self.discarded)
        new.removed = list(self.removed)
        new.closed = self.closed
        new.meeple = self.meeple
        new.steps = self.steps
        new.hand = list(self.hand)
        new.served = self.served
        new.upgraded = self.upgraded
        new._legal_cache = self._legal_cache
        return new

    def resample_hidden(self, seat: int, rng: Shuffler) -> RushState:
        """Only the deck order is hidden (the less-luck cards left out are public): the
        same cards, shuffled anew."""
        new = self.clone()
        deck = sorted(self.deck)
        rng.shuffle(deck)
        new.deck = deck
        return new

    def search_key(self) -> Hashable:
        """Everything that decides how the game plays on, as a tuple. The deck counts by its
        size (a search runs on one determinization), the discards by their number."""
        return (
            self.phase,
            self.stage,
            self.current,
            self.placed,
            tuple(map(tuple, self.meeples)),
            tuple(self.supply),
            self.rush_supply,
            len(self.deck),
            tuple(tuple(map(tuple, cs)) for cs in self.counters),
            tuple(map(tuple, self.completed)),
            tuple(map(tuple, self.penalties)),
            tuple(self.upgrades),
            tuple(self.rush),
            tuple(map(tuple, self.cups)),
            len(self.discarded),
            self.closed,
            self.meeple,
            self.steps,
            tuple(self.hand),
            self.served,
            self.upgraded,
        )

    def to_json(self) -> dict[str, Any]:
        from coffeetable.games.coffee_rush.position import state_to_json

        return state_to_json(self)

    def view(self, seat: int | None, *, shared: bool = False) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see (docs/views.md). Only the deck order is
        hidden, from everyone alike, so all views are equal except for their `seat`
        field. `shared` (core/game.py) is accepted and changes nothing: every view is built
        afresh."""
        from coffeetable.games.coffee_rush.view import state_view

        return state_view(self, seat)

    def render(self, seat: int | None = None) -> str:
        from coffeetable.games.coffee_rush.text import render

        return render(self, seat)

    # --- views for people and tests --------------------------------------------------------
    def steps_left(self) -> tuple[int, int]:
        """(free steps left, rush tokens) for the seat moving now."""
        return max(0, FREE_STEPS - self.steps), self.rush[self.current] if self.current >= 0 else 0

    def cards_in_play(self) -> list[int]:
        """Every card outside the deck (counters, completed, penalties, discarded, removed)."""
        out = [c for cs in self.counters for k in cs for c in k]
        for pile in (*self.completed, *self.penalties, self.discarded, self.removed):
            out.extend(pile)
        return out


def _played_by_engine(state: RushState, seat: int, step: RushAction) -> bool:
    """Whether a `stop` or `end` written in a turn text is one the engine has just played by
    itself (the previous step ended the movement or the turn)."""
    if isinstance(step, End):
        return state.phase is Phase.OVER or state.current != seat
    if isinstance(step, Stop):
        return state.current == seat and state.phase is Phase.TURN and state.stage is not Stage.MOVE
    return False


def _distance_to_free(start: int, occupied: list[int], nbrs: tuple[tuple[int, ...], ...]) -> int:
    """Steps from `start` to the nearest square without another meeple."""
    frontier = [start]
    seen = {start}
    distance = 0
    while frontier:
        distance += 1
        nxt = []
        for sq in frontier:
            for to in nbrs[sq]:
                if to in seen:
                    continue
                if to not in occupied:
                    return distance
                seen.add(to)
                nxt.append(to)
        frontier = nxt
    return SQUARES  # unreachable on a 4x4 board with at most 5 other meeples


__all__ = ["Phase", "RushState", "Stage", "draw_targets", "placement_order"]
