"""The greedy bot: a one-turn lookahead with the per-game evaluation of heuristics.py.

It searches the seat's own consecutive steps (those `State.search_actions` offers: the legal
ones less any the game knows never help) until its turn (Café: its part of the round)
ends, on a determinization of the state (`resample_hidden`), with a beam: at each depth the
`width` best partial turns by evaluation are kept, each a different position: steps in
another order that reach a position already reached are dropped (`State.search_key`). It
plays the first step of the best complete turn. Within one call the search is deterministic
given the bot's seed. With `samples` (`greedy:w48s4`) it runs its beam on that many
determinizations and plays the first step whose best turns are worth most over them (in a
game whose turns go alike on every determinization until they end, Coffee Rush, as one beam
whose complete turns are judged on each: `best_turns_sampled`).
"""

from __future__ import annotations

import math
import operator
import random
import time
from collections.abc import Callable, Hashable
from typing import Any

from coffeetable.bots.base import Limit
from coffeetable.bots.heuristics import SAME_WITHIN_TURN, Evaluator, value
from coffeetable.bots.learned import evaluator as learned_evaluator
from coffeetable.core.game import Action, State

MAX_DEPTH = 40
WIDTH = 6
MAX_EXPANSIONS = 10000  # states evaluated per decision, at most
STEP_COST = 0.001  # between equal outcomes, prefer the shorter turn (no pointless steps)
_EVALUATION = operator.itemgetter(0)  # a partial turn's evaluation, by which the beam ranks


def best_turns(
    root: State,
    seat: int,
    width: int = WIDTH,
    keep: int = 1,
    expansions: int = MAX_EXPANSIONS,
    deadline: float = math.inf,
    split: int = 0,
    cache: BeamCache | None = None,
    partial: bool = True,
    clock: Callable[[], float] | None = None,
) -> tuple[list[tuple[float, tuple[Action, ...]]], int]:
    """The best complete turn of `seat` for each of the `keep` best first steps, found by
    the beam search from `root` (a state the caller may search: a determinization), best
    first, as (evaluation, steps); and the number of states evaluated (the search stops
    once `expansions` have been, or once `clock()` passes `deadline`: it is read before
    each new state; the wall clock `time.perf_counter` unless the caller gives another, such
    as `Limit.clock()`). A turn ends when the seat may no longer act, the
    round changes or the game ends; if the budget runs out first, the best partial turns
    are returned (none if the deadline passes before the first state is expanded).

    With `split`, a root with 2 to `split` legal steps gives each its own beam for the rest
    of the turn (`expansions` states each), so that every first step is judged on a whole
    turn: one beam soon holds the lines of one first step only (Café: of one drafted card),
    and the others are then judged half-way (docs/bots.md, "Each card its own beam").

    With `cache`, searches of the same root share what they have expanded and evaluated
    (BeamCache): a wider beam run after a narrower one redoes none of its work, and finds
    exactly the turns it would find without it.

    With `partial=False`, a run that the deadline cuts short returns only the complete turns
    it has found (perhaps none): each is as exact as a whole run's, so they can count beside
    other runs' turns, where a partial turn, judged half-way, would not compare. A run that
    the expansion budget or MAX_DEPTH ends returns its best partial turns still. Not with
    `split`."""
    if split:
        firsts = root.search_actions(seat)
        if 1 < len(firsts) <= split:
            return _split_turns(root, seat, firsts, width, keep, expansions, deadline, clock)
    round_number = root.round_number()
    done: list[tuple[float, tuple[Action, ...]]] = []
    # a partial turn: its evaluation, steps, position (None until it is needed: then it is
    # rebuilt from its parent's by its last step), that position's key, and the parent's
    beam: list[tuple[float, tuple[Action, ...], State | None, Hashable, State | None]] = [
        (0.0, (), root, root.search_key() if cache is not None else None, None)
    ]
    expanded = 0
    depth = 0
    reached: set[Hashable] = set()
    timed = deadline != math.inf
    now = clock or time.perf_counter
    late = False
    while beam and depth < MAX_DEPTH and expanded < expansions and not late:
        frontier = sorted(beam, key=_EVALUATION, reverse=True)[: max(width, keep)]
        beam = []
        for index, (_, steps, s, key, parent) in enumerate(frontier):
            if s is None:  # known from the cache so far: rebuilt now that it is expanded
                assert parent is not None
                s = parent.clone()
                s.apply_unchecked(seat, steps[-1])
            # each step with the key of the position it leads to, if a run has listed them
            listed: list[tuple[Action, Hashable | None]] | None = (
                cache.children.get(key) if cache is not None else None
            )
            if listed is None:  # a step keeps None until it is played (a cut run plays
                listed = [(action, None) for action in s.search_actions(seat)]  # not all)
                if cache is not None:
                    cache.children[key] = listed
            for number, (action, child_key) in enumerate(listed):
                if timed and now() >= deadline:
                    late = True
                    break
                expanded += 1
                child: State | None = None
                if child_key is None:  # not listed before: the step is played
                    child = s.clone()
                    child.apply_unchecked(seat, action)
                    child_key = child.search_key()
                    listed[number] = (action, child_key)
                before = len(reached)  # one hash of the key, where `in` and `add` take two
                reached.add(child_key)
                if len(reached) == before:  # reached already by these steps in another order
                    continue
                known = cache.evaluations.get(child_key) if cache is not None else None
                if known is None:
                    if child is None:  # a transposition in the run that listed it
                        child = s.clone()
                        child.apply_unchecked(seat, action)
                    known = (value(child, seat), turn_over(child, seat, round_number))
                    if cache is not None:
                        cache.evaluations[child_key] = known
                v = known[0] - STEP_COST * depth
                seq = (*steps, action)
                if known[1]:
                    done.append((v, seq))
                else:
                    beam.append((v, seq, child, child_key, s if child is None else None))
            if late:  # out of time: the states not (fully) expanded stay in the beam as they are
                beam.extend(frontier[index:])
                break
        depth += 1
    if beam and (partial or not late):
        # the budget ran out mid-turn: the best partial turns count too
        done.extend((v, seq) for v, seq, *_ in beam if seq)
    return _best_by_first_step(done, keep), expanded


def _best_by_first_step(
    done: list[tuple[float, tuple[Action, ...]]], keep: int
) -> list[tuple[float, tuple[Action, ...]]]:
    """The best of the turns `done` for each first step (only the first step is played; the
    rest is a plan), best first, for up to `keep` first steps; equal ones keep their order."""
    done.sort(key=_EVALUATION, reverse=True)
    out: list[tuple[float, tuple[Action, ...]]] = []
    seen: set[Action] = set()
    for v, seq in done:
        if seq[0] not in seen:
            seen.add(seq[0])
            out.append((v, seq))
            if len(out) == keep:
                break
    return out


def best_turns_sampled(
    roots: list[State],
    seat: int,
    width: int = WIDTH,
    keep: int = 1,
    expansions: int = MAX_EXPANSIONS,
) -> tuple[list[list[tuple[float, tuple[Action, ...]]]], int]:
    """`best_turns(root, seat, width, keep, expansions)` for each of `roots`,
    determinizations of one position in a game of heuristics.SAME_WITHIN_TURN, as one beam:
    the seat's turn goes alike on each until it ends, so the partial turns are searched on
    the first root only and each complete turn is judged on every root (its last step
    played from its parent's position there). Returns each root's turns, equal to its own
    beam's, and the states the separate beams would have evaluated in all (the budget
    counts as each beam's)."""
    round_number = roots[0].round_number()
    samples = len(roots)
    done: list[list[tuple[float, tuple[Action, ...]]]] = [[] for _ in roots]
    # a partial turn: its evaluation, steps, and its position (`_Line`)
    beam: list[tuple[float, tuple[Action, ...], _Line]] = [(0.0, (), _Line(roots[0], roots))]
    expanded = 0
    depth = 0
    reached: set[Hashable] = set()
    while beam and depth < MAX_DEPTH and expanded < expansions:
        frontier = sorted(beam, key=_EVALUATION, reverse=True)[: max(width, keep)]
        beam = []
        cost = STEP_COST * depth  # each step after the first
        for _, steps, line in frontier:
            s = line.state
            for action in s.search_actions(seat):
                expanded += 1
                child = s.clone()
                child.apply_unchecked(seat, action)
                before = len(reached)  # one hash of the key, where `in` and `add` take two
                reached.add(child.search_key())
                if len(reached) == before:  # reached already by these steps in another order
                    continue
                seq = (*steps, action)
                if not turn_over(child, seat, round_number):
                    beam.append((value(child, seat) - cost, seq, _Line(child, None, line, action)))
                    continue
                done[0].append((value(child, seat) - cost, seq))
                positions = line.everywhere(seat)
                for k in range(1, samples):
                    there = positions[k].clone()
                    there.apply_unchecked(seat, action)
                    done[k].append((value(there, seat) - cost, seq))
        depth += 1
    runs = []
    for found in done:
        if beam:  # the budget ran out mid-turn: the best partial turns count too
            found.extend((v, seq) for v, seq, _ in beam if seq)
        runs.append(_best_by_first_step(found, keep))
    return runs, expanded * samples


class _Line:
    """A partial turn's position in `best_turns_sampled`: on the first root (`state`), and
    on every root (`everywhere()`, built from its parent's by its last step the first time
    a complete turn follows it)."""

    __slots__ = ("action", "parent", "positions", "state")

    def __init__(
        self,
        state: State,
        positions: list[State] | None,
        parent: _Line | None = None,
        action: Action | None = None,
    ) -> None:
        self.state = state
        self.positions = positions
        self.parent = parent
        self.action = action

    def everywhere(self, seat: int) -> list[State]:
        made = self.positions
        if made is None:
            assert self.parent is not None and self.action is not None
            made = [self.state]
            for there in self.parent.everywhere(seat)[1:]:
                here = there.clone()
                here.apply_unchecked(seat, self.action)
                made.append(here)
            self.positions = made
        return made


class BeamCache:
    """What beam searches of one seat's turn from one root (one determinization) learn, for
    the next search of that root: the steps each expanded position offers with the key of
    the position each leads to, and each reached position's evaluation and whether the turn
    is over there. Positions are known by `State.search_key()`, so the cache must not be
    shared between determinizations, seats or turns (ISMCTS keeps one per decision)."""

    __slots__ = ("children", "evaluations")

    def __init__(self) -> None:
        self.children: dict[Hashable, list[tuple[Action, Hashable | None]]] = {}
        self.evaluations: dict[Hashable, tuple[float, bool]] = {}


def turn_over(state: State, seat: int, round_number: int) -> bool:
    """Whether the turn `seat` began in round `round_number` is over in `state`."""
    return (
        state.is_over() or seat not in state.current_seats() or state.round_number() != round_number
    )


def _split_turns(
    root: State,
    seat: int,
    firsts: list[Action],
    width: int,
    keep: int,
    expansions: int,
    deadline: float,
    clock: Callable[[], float] | None,
) -> tuple[list[tuple[float, tuple[Action, ...]]], int]:
    """`best_turns` with a beam of its own for each first step (its `split`), the most
    promising first steps (by evaluation one step later) first. Those that the deadline
    leaves unsearched count as they stand after their step, as a cut beam's partial turns."""
    round_number = root.round_number()
    firsts_after: list[tuple[float, Action, State]] = []
    for action in firsts:
        child = root.clone()
        child.apply_unchecked(seat, action)
        firsts_after.append((value(child, seat), action, child))
    firsts_after.sort(key=lambda item: item[0], reverse=True)
    expanded = len(firsts_after)
    found: list[tuple[float, tuple[Action, ...], Hashable]] = []
    for v, action, child in firsts_after:
        rest: tuple[Action, ...] = ()
        if not turn_over(child, seat, round_number):
            turns, n = best_turns(child, seat, width, 1, expansions, deadline, clock=clock)
            expanded += n
            if turns:  # each step after the first costs as it does in one beam
                v, rest = turns[0][0] - STEP_COST, turns[0][1]
        for step in rest:
            child.apply_unchecked(seat, step)
        found.append((v, (action, *rest), child.search_key()))
    found.sort(key=lambda item: item[0], reverse=True)
    # first steps whose best turns end in the same position count once, as in one beam
    out: list[tuple[float, tuple[Action, ...]]] = []
    ends: set[Hashable] = set()
    for v, seq, key in found:
        if key not in ends:
            ends.add(key)
            out.append((v, seq))
            if len(out) == keep:
                break
    return out, expanded


#: with a learned value (`greedy+learned`): the beam keeps this many partial turns a depth
#: and the best complete turn of up to as many first steps is re-ranked by the model
RERANK = 12


class GreedyBot:
    name = "greedy"

    def __init__(
        self,
        seed: int | None = None,
        width: int = WIDTH,
        split: int = 0,
        learned: int | None = None,
        samples: int = 1,
    ) -> None:
        self.rng = random.Random(seed)
        self.width = width
        #: determinizations a decision searches (each its own beam); a first step's worth is
        # the mean of its best turn's over them (one that a sample does not reach counts as
        # that sample's worst turn)
        self.samples = samples
        #: the learned value model's version (0: the newest), or None for none
        # (bots/learned.py); with one that fits the game, the beam's complete turns are ranked
        # by it: only whole turns, so the search cannot exploit the fit's errors step by step
        self.learned = learned
        if learned is not None:
            self.name = "greedy+learned"
        # a beam for each first step where there are at most `split` (best_turns): stronger
        # in solo Café (24.9 against 22.0 over 40 deals) at about 2.5 times the time; the
        # `greedy` of make_bot keeps one beam, the baseline the figures of docs/bots.md use
        self.split = split

    def choose(
        self, state: State, seat: int, limit: Limit | None = None
    ) -> tuple[Action, dict[str, Any]]:
        legal = state.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action now")
        start = time.perf_counter()
        if len(legal) == 1:
            return legal[0], {"forced": True, "value": None, "expanded": 0, "seconds": 0.0}
        evaluate = learned_evaluator(state, self.learned) if self.learned is not None else None
        # a model re-ranks the best turns of up to RERANK first steps, and several samples
        # compare as many; one plain beam needs its best turn only
        width = self.width if evaluate is None else max(self.width, RERANK)
        keep = 1 if evaluate is None and self.samples == 1 else RERANK
        roots = [state.resample_hidden(seat, self.rng) for _ in range(self.samples)]
        if len(roots) > 1 and not self.split and state.game.info.name in SAME_WITHIN_TURN:
            found, expanded = best_turns_sampled(roots, seat, width, keep)
        else:
            found, expanded = [], 0
            for root in roots:
                turns, n = best_turns(root, seat, width, keep=keep, split=self.split)
                found.append(turns)
                expanded += n
        runs = [
            turns if evaluate is None else rerank(root, seat, turns, evaluate)
            for root, turns in zip(roots, found, strict=True)
        ]
        v, steps = runs[0][0] if len(runs) == 1 else combine(runs)
        info: dict[str, Any] = {
            "value": v,
            "plan": [a.notation() for a in steps],
            "expanded": expanded,
            "seconds": time.perf_counter() - start,
        }
        if evaluate is not None:
            info["learned"] = True
        return steps[0], info


def combine(
    runs: list[list[tuple[float, tuple[Action, ...]]]],
) -> tuple[float, tuple[Action, ...]]:
    """The turn whose first step is worth most over several determinizations' turns (each
    run best first): a first step's worth is the mean over the runs of its best turn's, a run
    without it counting its worst turn; the turn returned is that step's best in the first
    run that has it."""
    total: dict[Action, float] = {}
    plan: dict[Action, tuple[Action, ...]] = {}
    for turns in runs:
        for _, steps in turns:
            plan.setdefault(steps[0], steps)
    for turns in runs:
        worst = turns[-1][0]
        best: dict[Action, float] = {}
        for v, steps in turns:
            best.setdefault(steps[0], v)
        for first in plan:
            total[first] = total.get(first, 0.0) + best.get(first, worst)
    first = max(plan, key=lambda a: total[a])  # equal worths: the first seen
    return total[first] / len(runs), plan[first]


def rerank(
    root: State,
    seat: int,
    turns: list[tuple[float, tuple[Action, ...]]],
    evaluate: Evaluator,
) -> list[tuple[float, tuple[Action, ...]]]:
    """The turns judged by `evaluate` at the positions they end in (less STEP_COST a step
    after the first, as the beam counts them), best first; equal ones keep their order."""
    judged = []
    for _, steps in turns:
        end = root.clone()
        for action in steps:
            end.apply_unchecked(seat, action)
        judged.append((evaluate(end, seat) - STEP_COST * (len(steps) - 1), steps))
    judged.sort(key=_EVALUATION, reverse=True)
    return judged
