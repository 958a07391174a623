"""Coffee Rush actions in words, for a game log: `RushState.describe(seat, action)`.

Each step becomes one short sentence without a subject, read from the state before the step
is played, e.g. "moves from b2 to c3, taking milk" or "serves a Caffe Latte from cup 2 to
counter 3". Only public information is used (the board, hands, cups, counters and piles);
never the deck. A whole turn written on one line (a `Turn`) gets one clause per group of
steps, joined by "; " ("moves b2-c3-c4, taking ice and milk; pours milk into cup 1; ends
the turn"). An action that is not legal now is written "plays NOTATION".
"""

from __future__ import annotations

from collections.abc import Sequence

from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import Action
from coffeetable.games.coffee_rush.actions import (
    UPGRADE_TITLES,
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
from coffeetable.games.coffee_rush.cards import square_name
from coffeetable.games.coffee_rush.state import (
    FREE_STEPS,
    UPGRADE_COST,
    RushState,
    placement_order,
)


def describe(state: RushState, seat: int, action: Action) -> str:
    """One sentence saying what `seat` does with `action` in `state` (see the module doc)."""
    if isinstance(action, Turn):
        return _turn(state, seat, action)
    legal = _legal_form(state, seat, action)
    if legal is None:
        return _generic(action)
    return _step_text(state, seat, legal)


def _legal_form(state: RushState, seat: int, action: Action) -> RushAction | None:
    """The canonical spelling of `action` if `seat` may play it now, else None."""
    if state.is_over() or seat not in state.current_seats():
        return None
    try:
        canonical = state.canonical_action(seat, action)
    except CoffeetableError:  # e.g. a short form that is ambiguous here
        return None
    if isinstance(canonical, RushAction) and canonical in state.legal_actions(seat):
        return canonical
    return None


def _step_text(state: RushState, seat: int, action: RushAction) -> str:
    """The sentence for one legal, canonical step."""
    cards = state.cards
    names = cards.ingredients
    if isinstance(action, Place):
        _, meeple = placement_order(state.num_players)[state.placed]
        which = "a second meeple" if meeple else "a meeple"
        return f"places {which} on {_square(state, action.square)}"
    if isinstance(action, Step):
        taken, rush = _step_gain(state, seat, action)
        text = f"moves from {square_name(action.frm)} to {square_name(action.to)}, taking "
        if any(taken):
            text += _tokens(names, taken)
        else:
            text += f"nothing (no {names[cards.board[action.to]]} left)"
        return text + (", spending a rush token" if rush else "")
    if isinstance(action, Stop):
        return f"stops moving on {square_name(state.meeples[seat][state.meeple])}"
    if isinstance(action, Upgrade):
        return (
            f"upgrades to {UPGRADE_TITLES[action.kind]}, discarding {UPGRADE_COST} completed orders"
        )
    if isinstance(action, Pour):
        before = state.cups[seat][action.cup]
        text = f"pours {action.ingredient} into cup {action.cup + 1}"
        if not any(before):
            return text
        after = list(before)
        after[cards.ingredients.index(action.ingredient)] += 1
        return f"{text} (now {_tokens(names, after)})"
    if isinstance(action, Empty):
        return f"empties cup {action.cup + 1} ({_tokens(names, state.cups[seat][action.cup])})"
    if isinstance(action, Serve):
        drink = action.drink or ""
        text = f"serves {_article(drink)} {drink} from cup {action.cup + 1} to counter {action.counter + 1}"
        special = cards.drinks[cards.drink_index(drink)].special
        return f"{text}, earning a rush token" if special and state.rush_supply else text
    if isinstance(action, End):
        notes = []
        if any(state.hand):
            notes.append(f"returns {_tokens(names, state.hand)} unpoured")
        fallen = len(state.counters[seat][3])
        if fallen:
            notes.append(
                "1 order expires as a penalty"
                if fallen == 1
                else f"{fallen} orders expire as penalties"
            )
        return "ends the turn" + (f" ({'; '.join(notes)})" if notes else "")
    return _generic(action)  # pragma: no cover - every step kind is handled


def _step_gain(state: RushState, seat: int, action: Step) -> tuple[list[int], bool]:
    """The tokens one step takes (upgrades and the supply's limit applied: the step is played
    on a copy) and whether it spends a rush token (a step beyond the free ones)."""
    trial = state.clone()
    trial.apply_unchecked(seat, action)
    # a turn the engine ends by itself after this step had nothing in hand: both are zero
    taken = [after - before for after, before in zip(trial.hand, state.hand, strict=True)]
    return taken, state.steps >= FREE_STEPS


def _turn(state: RushState, seat: int, turn: Turn) -> str:
    """A whole turn: paths of steps as one clause, pours grouped, stops left out."""
    trial = state.clone()
    try:
        applied = trial.apply(seat, turn)
    except CoffeetableError:
        return _generic(turn)
    steps = applied.steps if isinstance(applied, Turn) else (applied,)
    replay = state.clone()
    names = state.cards.ingredients
    clauses: list[str] = []
    i = 0
    while i < len(steps):
        step = steps[i]
        if isinstance(step, Step):
            path = [square_name(step.frm)]
            last = step.frm
            taken = [0] * len(state.cards.ingredients)
            rush = 0
            while i < len(steps):
                current = steps[i]
                if not isinstance(current, Step) or current.frm != last:
                    break
                gain, spent = _step_gain(replay, seat, current)
                taken = [a + b for a, b in zip(taken, gain, strict=True)]
                rush += spent
                path.append(square_name(current.to))
                last = current.to
                replay.apply_unchecked(seat, current)
                i += 1
            clause = f"moves {'-'.join(path)}, taking " + (_tokens(names, taken) or "nothing")
            if rush:
                clause += ", spending " + ("a rush token" if rush == 1 else f"{rush} rush tokens")
            clauses.append(clause)
            continue
        if isinstance(step, Pour):
            by_cup: dict[int, list[int]] = {}
            while i < len(steps) and isinstance(steps[i], Pour):
                pour = steps[i]
                assert isinstance(pour, Pour)
                counts = by_cup.setdefault(pour.cup, [0] * len(state.cards.ingredients))
                counts[state.cards.ingredients.index(pour.ingredient)] += 1
                replay.apply_unchecked(seat, pour)
                i += 1
            clauses.append(
                "pours "
                + _join(
                    [f"{_tokens(names, c)} into cup {cup + 1}" for cup, c in sorted(by_cup.items())]
                )
            )
            continue
        assert isinstance(step, RushAction)
        if not isinstance(step, Stop) or i == len(steps) - 1:  # else implied by what follows
            clauses.append(_step_text(replay, seat, step))
        replay.apply_unchecked(seat, step)
        i += 1
    return "; ".join(clauses) or _generic(turn)


# --- words ---------------------------------------------------------------------------------


def _generic(action: Action) -> str:
    """What an action that is not legal now is called: "plays NOTATION"."""
    return f"plays {action.notation()}".strip()


def _square(state: RushState, square: int) -> str:
    """'b2 (milk)'."""
    return f"{square_name(square)} ({state.cards.ingredients[state.cards.board[square]]})"


def _tokens(names: Sequence[str], counts: Sequence[int]) -> str:
    """'milk', '2 coffee and steam' (`names`: the card set's ingredients)."""
    return _join(
        [name if n == 1 else f"{n} {name}" for name, n in zip(names, counts, strict=True) if n]
    )


def _article(name: str) -> str:
    return "an" if name[:1].lower() in "aeiou" else "a"


def _join(words: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


__all__ = ["describe"]
