"""Coffee Rush actions in words, for a game log: `RushState.describe(seat, action)`.

Each step becomes one short sentence without a subject, read from the state before the step
is played, e.g. "moves from b2 to c3, taking milk" or "serves a Caffe Latte from cup 2 to
counter 3". Only public information is used (the board, hands, cups, counters and piles);
never the deck. A whole turn written on one line (a `Turn`) gets one clause per group of
steps, joined by "; " ("moves b2-c3-c4, taking ice and milk; pours milk into cup 1; ends
the turn"). An action that is not legal now is written "plays NOTATION".

The sentences are built as data first (`say`: a message key and its parameters, see
`coffeetable.core.say`), so that a client can write them in other languages; `TEMPLATES`
holds the English text of every key.
"""

from __future__ import annotations

from collections.abc import Sequence

from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import Action
from coffeetable.core.say import Join, Say, Template, render
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
from coffeetable.games.coffee_rush.cards import square_name
from coffeetable.games.coffee_rush.state import (
    FREE_STEPS,
    UPGRADE_COST,
    RushState,
    placement_order,
)

#: The English text of every log key Coffee Rush produces (the web client's en.json has
#: the same under the same keys; tests check both).
TEMPLATES: dict[str, Template] = {
    "log.plays": "plays {notation}",
    "log.rush.place": "places a meeple on {square} ({ingredient})",
    "log.rush.place_second": "places a second meeple on {square} ({ingredient})",
    "log.rush.step": "moves from {from} to {to}, taking {taking}{extra}",
    "log.rush.nothing_left": "nothing (no {ingredient} left)",
    "log.rush.nothing": "nothing",
    "log.rush.spending": {
        "one": ", spending a rush token",
        "other": ", spending {n} rush tokens",
    },
    "log.rush.token": {"one": "{ingredient}", "other": "{n} {ingredient}"},
    "log.rush.stop": "stops moving on {square}",
    "log.rush.upgrade": {
        "one": "upgrades to {upgrade}, discarding {n} completed order",
        "other": "upgrades to {upgrade}, discarding {n} completed orders",
    },
    "log.rush.pour": "pours {ingredient} into cup {cup}",
    "log.rush.pour_now": "pours {ingredient} into cup {cup} (now {tokens})",
    "log.rush.empty": "empties cup {cup} ({tokens})",
    "log.rush.serve": "serves a {drink} from cup {cup} to counter {counter}{extra}",
    "log.rush.serve_an": "serves an {drink} from cup {cup} to counter {counter}{extra}",
    "log.rush.earning_rush": ", earning a rush token",
    "log.rush.end": "ends the turn{extra}",
    "log.rush.end_returns": " (returns {tokens} unpoured)",
    "log.rush.end_penalties": {
        "one": " (1 order expires as a penalty)",
        "other": " ({n} orders expire as penalties)",
    },
    "log.rush.end_both": {
        "one": " (returns {tokens} unpoured; 1 order expires as a penalty)",
        "other": " (returns {tokens} unpoured; {n} orders expire as penalties)",
    },
    "log.rush.path": "moves {path}, taking {taking}{extra}",
    "log.rush.pours": "pours {items}",
    "log.rush.into_cup": "{tokens} into cup {cup}",
    "log.rush.turn": "{clauses}",
}


def describe(state: RushState, seat: int, action: Action) -> str:
    """One sentence saying what `seat` does with `action` in `state` (see the module doc)."""
    return render(say(state, seat, action), TEMPLATES)


def say(state: RushState, seat: int, action: Action, *, listed: bool = False) -> Say:
    """The sentence of `describe` as a key and parameters (`coffeetable.core.say`);
    `listed`: `action` is an element of `state.legal_actions(seat)`, so a legal, canonical
    step as it stands (`State.say`)."""
    if isinstance(action, Turn):
        return _turn(state, seat, action)
    legal = (
        action if listed and isinstance(action, RushAction) else _legal_form(state, seat, action)
    )
    if legal is None:
        return _generic(action)
    return _step_say(state, seat, legal)


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


def _step_say(state: RushState, seat: int, action: RushAction) -> Say:
    """The sentence for one legal, canonical step."""
    cards = state.cards
    names = cards.ingredients
    if isinstance(action, Place):
        _, meeple = placement_order(state.num_players)[state.placed]
        key = "log.rush.place_second" if meeple else "log.rush.place"
        return Say(key, _square(state, action.square))
    if isinstance(action, Step):
        taken, rush = _step_gain(state, seat, action)
        taking = (
            _tokens(names, taken)
            if any(taken)
            else Say("log.rush.nothing_left", {"ingredient": names[cards.board[action.to]]})
        )
        extra: Say | str = Say("log.rush.spending", {"n": 1}) if rush else ""
        return Say(
            "log.rush.step",
            {
                "from": square_name(action.frm),
                "to": square_name(action.to),
                "taking": taking,
                "extra": extra,
            },
        )
    if isinstance(action, Stop):
        return Say("log.rush.stop", {"square": square_name(state.meeples[seat][state.meeple])})
    if isinstance(action, Upgrade):
        return Say("log.rush.upgrade", {"upgrade": UPGRADES[action.kind], "n": UPGRADE_COST})
    if isinstance(action, Pour):
        before = state.cups[seat][action.cup]
        params: dict[str, object] = {"ingredient": action.ingredient, "cup": action.cup + 1}
        if not any(before):
            return Say("log.rush.pour", params)
        after = list(before)
        after[cards.ingredients.index(action.ingredient)] += 1
        return Say("log.rush.pour_now", {**params, "tokens": _tokens(names, after)})
    if isinstance(action, Empty):
        return Say(
            "log.rush.empty",
            {"cup": action.cup + 1, "tokens": _tokens(names, state.cups[seat][action.cup])},
        )
    if isinstance(action, Serve):
        drink = action.drink or ""
        special = cards.drinks[cards.drink_index(drink)].special
        return Say(
            "log.rush.serve_an" if _article(drink) == "an" else "log.rush.serve",
            {
                "drink": drink,
                "cup": action.cup + 1,
                "counter": action.counter + 1,
                "extra": Say("log.rush.earning_rush") if special and state.rush_supply else "",
            },
        )
    if isinstance(action, End):
        fallen = len(state.counters[seat][3])
        end_extra: Say | str = ""
        if any(state.hand) and fallen:
            end_extra = Say(
                "log.rush.end_both", {"tokens": _tokens(names, state.hand), "n": fallen}
            )
        elif any(state.hand):
            end_extra = Say("log.rush.end_returns", {"tokens": _tokens(names, state.hand)})
        elif fallen:
            end_extra = Say("log.rush.end_penalties", {"n": fallen})
        return Say("log.rush.end", {"extra": end_extra})
    return _generic(action)  # pragma: no cover - every step kind is handled


def _step_gain(state: RushState, seat: int, action: Step) -> tuple[list[int], bool]:
    """The tokens one step takes (upgrades and the supply's limit applied: the step is played
    on a copy) and whether it spends a rush token (a step beyond the free ones)."""
    trial = state.clone()
    trial.apply_unchecked(seat, action)
    # a turn the engine ends by itself after this step had nothing in hand: both are zero
    taken = [after - before for after, before in zip(trial.hand, state.hand, strict=True)]
    return taken, state.steps >= FREE_STEPS


def _turn(state: RushState, seat: int, turn: Turn) -> Say:
    """A whole turn: paths of steps as one clause, pours grouped, stops left out."""
    trial = state.clone()
    try:
        applied = trial.apply(seat, turn)
    except CoffeetableError:
        return _generic(turn)
    steps = applied.steps if isinstance(applied, Turn) else (applied,)
    replay = state.clone()
    names = state.cards.ingredients
    clauses: list[Say] = []
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
            clauses.append(
                Say(
                    "log.rush.path",
                    {
                        "path": "-".join(path),
                        "taking": _tokens(names, taken) if any(taken) else Say("log.rush.nothing"),
                        "extra": Say("log.rush.spending", {"n": rush}) if rush else "",
                    },
                )
            )
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
            items = [
                Say("log.rush.into_cup", {"tokens": _tokens(names, c), "cup": cup + 1})
                for cup, c in sorted(by_cup.items())
            ]
            clauses.append(Say("log.rush.pours", {"items": items}))
            continue
        assert isinstance(step, RushAction)
        if not isinstance(step, Stop) or i == len(steps) - 1:  # else implied by what follows
            clauses.append(_step_say(replay, seat, step))
        replay.apply_unchecked(seat, step)
        i += 1
    if not clauses:
        return _generic(turn)
    return Say("log.rush.turn", {"clauses": Join(clauses, "; ")})


# --- words ---------------------------------------------------------------------------------


def _generic(action: Action) -> Say:
    """What an action that is not legal now is called: "plays NOTATION"."""
    return Say("log.plays", {"notation": action.notation()})


def _square(state: RushState, square: int) -> dict[str, object]:
    """'b2 (milk)' as parameters."""
    return {
        "square": square_name(square),
        "ingredient": state.cards.ingredients[state.cards.board[square]],
    }


def _tokens(names: Sequence[str], counts: Sequence[int]) -> list[Say]:
    """'milk', '2 coffee and steam' (`names`: the card set's ingredients)."""
    return [
        Say("log.rush.token", {"n": n, "ingredient": name})
        for name, n in zip(names, counts, strict=True)
        if n
    ]


def _article(name: str) -> str:
    return "an" if name[:1].lower() in "aeiou" else "a"


__all__ = ["TEMPLATES", "describe", "say"]
