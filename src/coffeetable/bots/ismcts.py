"""Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012),
with whole turns from the greedy beam as the root's arms. docs/bots.md has the full design.

- Root: the greedy beam (greedy.best_turns) gives the best complete turn for each of the best
  first steps; those that end in different positions become arms (macro actions), each with
  a prior of PRIOR_VISITS visits worth its own evaluation. Arms are chosen by UCB1. In Café
  under a time budget the beam is first run again wider while the budget allows, and each
  first step keeps its best turn of any run (of a run cut short, of its complete turns).
- Each iteration draws a determinization (`state.resample_hidden(seat, rng)`: the hidden
  cards redrawn from those the seat has not seen), plays the chosen arm's whole turn, then
  descends one tree shared by all determinizations, keyed by actions, in which every node is
  a decision of the seat that acted there:
  - selection: UCB1 over the children legal in this determinization, with availability
    counts (the ISMCTS form of UCB), among the 1 + sqrt(visits) best actions by the mover's
    one-step evaluation (progressive widening);
  - expansion: one new node;
  - leaf: the mover's turn is finished by the game's cheap rollout rule, if it has one
    (heuristics.ROLLOUT_POLICIES), then heuristics.rewards scores it (the final result at
    the end of the game, otherwise a logistic of each seat's evaluated lead). No random
    playouts: random play is meaningless in both games;
  - back-propagation: each node adds the reward of the seat that acted there (max^n).
- The decision is the first step of the most visited arm.
- Café is searched by turn lookahead instead of the tree (`_sweeps`): each sweep draws one
  determinization and plays every arm, then the following turns by the greedy beam until
  the searching seat has played one more turn, and evaluates that; the best mean over the
  complete sweeps wins (solo, an arm's own evaluation counts as PRIOR_SWEEPS sweeps of
  it); with none complete, the time left widens the root beam on and its
  best turn is played. In Café the step tree reached too little past the arm to help. In
  the seat's last turn of the game (every arm ends it) no sweep is played: the arms' final
  scores decide, and the root beam has the budget to widen further. There the rest of the
  turn the last decision chose (`plans`) is an arm of the next one, so a line found a step
  earlier is not lost when the beam does not find it again.

Multi-step turns are whole-turn arms at the root and consecutive nodes of one seat below.
Café's simultaneous phase is searched in seat order: the lowest seat that may act moves
first. The seats interact there only through the shared cube supply (Café Ruling A1). The
searching seat never sees hidden cards, only other seats' public moves.
"""

from __future__ import annotations

import gc
import math
import random
from collections.abc import Callable, Hashable
from typing import Any

from coffeetable.bots.base import LEVELS, Limit
from coffeetable.bots.greedy import (
    MAX_EXPANSIONS,
    STEP_COST,
    WIDTH,
    BeamCache,
    best_turns,
    turn_over,
)
from coffeetable.bots.heuristics import (
    ROLLOUT_POLICIES,
    Evaluator,
    RolloutPolicy,
    rewards,
    score_is_final,
    value,
)
from coffeetable.bots.learned import evaluator as learned_evaluator
from coffeetable.core.game import Action, State

EXPLORATION = 0.15  # UCB constant; rewards are in [0, 1] and good and bad moves differ by ~0.05-0.1
MAX_TREE_DEPTH = 200
WIDENING = 1.0  # a node with n visits considers its 1 + sqrt(n) best-ranked actions
MACROS = 6  # root arms: the best complete turns of the greedy beam
ROOT_TURNS = 12  # turns asked of the beam (which then keeps 12 partial turns a depth)
#: Café under a time budget: the root beam is run again twice as wide (24, 48, ...) up to
#: WIDEST, each run stopped at ROOT_SHARE of the budget (a run so cut adds the complete
#: turns it found), and a run is started only if the time left for it is at least
#: NEXT_WIDTH times the last run's (a width takes 1.2-4 times as long as the one before,
#: mostly 2-3). Greedy solo on 40 deals: width 6 22.0, 24 25.4, 48 26.15. 2-player Café against greedy, the same 120 games: 71 %
#: won, by 4.0 points a game, where the width-12 root had 65 % by 2.5 (docs/bots.md)
WIDEN = frozenset({"cafe"})
WIDEST = 96
#: solo, the widening goes on to SOLO_WIDEST: the runs share a BeamCache, so width 96 is
#: reached in about half the time it took, and width pays more than the sweeps it leaves
#: less time for (greedy solo on deals 4000-4039: width 96 28.3, 192 29.1; `hard` up to
#: 384 against up to 96 on deals 4000-4079: 28.48 against 27.57, +0.90 ± 0.50, docs/bots.md)
SOLO_WIDEST = 384
ROOT_SHARE = 0.9
#: the seat's last turn of the game (every turn the root beam finds ends it): no sweep can
#: tell the arms apart better than their final scores, so the root beam widens further
LAST_WIDEST = 768
#: where no sweep decides (the last turn, or none completed), the root beam widens on in
#: this share of the budget, each width started while there is time (the rest is margin)
ALONE_SHARE = 0.95
NEXT_WIDTH = 2.0
PRIOR_VISITS = 4  # each arm starts as if visited this often with its own evaluation
PRIOR_CAP = 48  # actions ranked by evaluation at a new node (the rest follow at random)
ROLLOUT_STEPS = 40
#: games searched by turn lookahead (ISMCTS._sweeps) instead of the step tree below the arms
TURN_LOOKAHEAD = frozenset({"cafe"})
LOOKAHEAD_WIDTH = 3  # the beam's width for the turns played after an arm
#: solo, an arm's own evaluation (the beam's, of the position its turn ends in) counts as
#: this many sweeps beside the sweeps' lookahead: one sweep is a single deal of the cards
#: to come, and alone it chose worse than the evaluation it overruled (docs/bots.md, "The
#: arm's own evaluation counts in the sweeps")
PRIOR_SWEEPS = 2
MAX_LOOKAHEAD_TURNS = 16  # turns played after an arm, at most (4 seats' picks and turns)


def _finish_turn(state: State, mover: int, policy: RolloutPolicy) -> None:
    """Play the rest of `mover`'s turn (its consecutive steps in this round) with the game's
    cheap rollout rule, so that leaves are evaluated between turns, not in the middle of one."""
    round_number = state.round_number()
    for _ in range(ROLLOUT_STEPS):
        if (
            state.is_over()
            or mover not in state.current_seats()
            or state.round_number() != round_number
        ):
            return
        state.apply_unchecked(mover, policy(state, mover, state.legal_actions(mover)))


class _Node:
    __slots__ = ("avail", "children", "macro", "mover", "order", "prior", "total", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover  # the seat whose action led here
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.order: list[Action] | None = None  # actions from here, best prior first
        self.macro: tuple[Action, ...] = ()  # at the root: the whole turn this arm plays
        self.prior = 0.0  # at the root: the greedy evaluation of that turn


def _ranked(state: State, mover: int, actions: list[Action], rng: random.Random) -> list[Action]:
    """The actions ordered by the mover's evaluation one step later (the prior for
    progressive widening); beyond PRIOR_CAP actions, a random sample is ranked first."""
    if len(actions) > PRIOR_CAP:
        actions = actions[:]
        rng.shuffle(actions)
    head, tail = actions[:PRIOR_CAP], actions[PRIOR_CAP:]
    scored = []
    for index, action in enumerate(head):
        child = state.clone()
        child.apply_unchecked(mover, action)
        scored.append((value(child, mover), -index, action))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [a for _, _, a in scored] + tail


class IsmctsBot:
    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        limit: Limit | None = None,
        exploration: float = EXPLORATION,
        label: str = "ismcts",
        rollouts: bool = True,
        macros: int = MACROS,
        root_turns: int = ROOT_TURNS,
        learned: int | None = None,
    ) -> None:
        #: the learned value model's version (0: the newest), or None for none
        #: (bots/learned.py). With one that fits the game (Café), the positions the root's
        #: turns end in and those the sweeps reach are judged by it, and the arms are the
        #: turns it ranks best of those the beam finds; the beam itself keeps the hand-written
        #: evaluation, so the model only compares whole turns
        self.learned = learned
        self._evaluate: Evaluator | None = None
        self.macros = macros
        self.root_turns = max(root_turns, macros)
        self.rollouts = rollouts
        self.rng = random.Random(seed)
        self.limit = limit or LEVELS["medium"]
        self.exploration = exploration
        self.name = label
        #: Café: the rest of the turn each seat's last decision planned (the chosen arm's
        #: steps after the one played). In the seat's last turn of the game the next
        #: decision searches it as an arm of its own, so a line found a step earlier is not
        #: lost when the beam, started a step later, does not find it again. A caller that
        #: builds a bot per decision (the server) carries it over: read it after `choose`,
        #: set it before the next one
        self.plans: dict[int, tuple[Action, ...]] = {}

    def choose(
        self, state: State, seat: int, limit: Limit | None = None
    ) -> tuple[Action, dict[str, Any]]:
        """The action for `seat`, and the search's `info`. The cyclic garbage collector is
        paused while it searches (and resumed after, if it was running): the beam's cache
        keeps tens of thousands of positions' keys alive, and each full collection walked
        them all, about a sixth of a 1 s decision in Café. A decision leaves no cyclic
        garbage (docs/bots.md, "What worked: the garbage collector paused")."""
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            return self._choose(state, seat, limit)
        finally:
            if paused:
                gc.enable()

    def _choose(
        self, state: State, seat: int, limit: Limit | None
    ) -> tuple[Action, dict[str, Any]]:
        legal = state.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action now")
        limit = limit or self.limit
        clock = limit.clock()  # the wall clock, or the thread's CPU time (`Limit.cpu`)
        start = clock()
        self._evaluate = (
            learned_evaluator(state, self.learned) if self.learned is not None else None
        )
        plan = self.plans.pop(seat, ())
        if len(legal) == 1:
            if plan[:1] == (legal[0],) and len(plan) > 1:  # the plan goes on past this step
                self.plans[seat] = plan[1:]
            return legal[0], {"forced": True, "iterations": 0, "value": None, "seconds": 0.0}
        deadline = start + limit.time if limit.time is not None else math.inf
        max_iterations = limit.iterations if limit.iterations is not None else 1 << 62
        rng = self.rng
        policy = ROLLOUT_POLICIES.get(state.game.info.name) if self.rollouts else None
        c = self.exploration
        # the root's arms: the best complete turns the greedy beam finds (macro actions),
        # each starting with a prior worth PRIOR_VISITS visits of its own evaluation
        first = state.resample_hidden(seat, rng)
        # under a time budget the beam stops at the deadline: its best partial turns (or,
        # if it could not start, the root's steps) are the arms, and no sweep follows
        # the wider runs below search the same root: what one run expanded and evaluated,
        # the next takes from the cache instead of doing it again
        cache = BeamCache()
        turns, _ = best_turns(
            first, seat, keep=self.root_turns, deadline=deadline, cache=cache, clock=clock
        )
        if not turns:
            turns, _ = best_turns(first, seat, keep=self.root_turns, expansions=1, cache=cache)
        # the partial turns that beam kept a depth (it keeps at least `keep`)
        width = max(WIDTH, self.root_turns)
        # the seat's last turn of the game: what its turn ends in is the final score, so
        # the root's best turn is all a search can find; no sweep is played, and the root
        # beam gets the budget to widen further
        last_turn = (
            state.game.info.name in WIDEN | TURN_LOOKAHEAD
            and bool(turns)
            and all(_ends_game(first, seat, steps) for _, steps in turns)
        )
        runs = [turns]
        cut = 0  # the width of a run cut short, whose complete turns count
        widest = WIDEST
        if state.game.info.name in WIDEN and limit.time is not None:
            # a wider beam finds better turns; widen while the budget allows. Every run's
            # turns count: a wider beam can drop a line that a narrower one kept (a partial
            # turn crowded out by better-looking ones), so each first step keeps its best
            # turn of any run. A run the time cuts short adds its complete turns
            if last_turn:  # no sweep to leave time for: every width is tried in the time
                widest = LAST_WIDEST
                until = start + ALONE_SHARE * limit.time
                width, cut = _widen(
                    first, seat, self.root_turns, runs, width, widest, until, cache, None, clock
                )
            else:
                widest = SOLO_WIDEST if state.num_players == 1 else WIDEST
                until = start + ROOT_SHARE * limit.time
                last = clock() - start
                width, cut = _widen(
                    first, seat, self.root_turns, runs, width, widest, until, cache, last, clock
                )
            turns = _best_of_runs(runs, self.root_turns)
        lookahead = state.game.info.name in TURN_LOOKAHEAD
        arms, recalled = self._root_arms(first, seat, turns, plan, lookahead and last_turn)
        iterations = 0
        depth_sum = 0
        distinct_first = {arm.macro[0] for arm in arms}
        if lookahead and len(distinct_first) > 1:
            if last_turn:  # the arms' ends are final: their own evaluations decide
                best, info = _answer(arms, 0, 0, start, clock)
                info["sweeps"] = 0
            else:
                best, info = self._sweeps(state, seat, arms, deadline, max_iterations, start, clock)
                if not info["sweeps"] and limit.time is not None and width < widest:
                    # no sweep completed: the arms' own evaluations decide, and the time
                    # left widens the root beam on (docs/bots.md, "The time no sweep used")
                    until = start + ALONE_SHARE * limit.time
                    ran = len(runs)
                    width, cut = _widen(
                        first,
                        seat,
                        self.root_turns,
                        runs,
                        width,
                        widest,
                        until,
                        cache,
                        None,
                        clock,
                    )
                    if len(runs) > ran:  # the arms are those of every run, the new ones too
                        turns = _best_of_runs(runs, self.root_turns)
                        arms, recalled = self._root_arms(first, seat, turns, plan, False)
                        played = info["iterations"]
                        depths = round(info["mean_depth"] * played)
                        best, info = _answer(arms, played, depths, start, clock)
                        info["sweeps"] = 0
            info["root_width"] = width
            info["cut_width"] = cut
            info["last_turn"] = last_turn
            info["recalled"] = recalled
            if len(best.macro) > 1:
                self.plans[seat] = best.macro[1:]
            return best.macro[0], info
        while (
            len(distinct_first) > 1
            and iterations < max_iterations
            and (iterations == 0 or clock() < deadline)
        ):
            d = state.resample_hidden(seat, rng)
            log_total = math.log(sum(arm.visits for arm in arms))
            node = max(arms, key=lambda a: a.total / a.visits + c * math.sqrt(log_total / a.visits))
            for action in node.macro:
                d.apply_unchecked(seat, action)
            path = [node]
            depth = 0
            while not d.is_over() and depth < MAX_TREE_DEPTH:
                mover = min(d.current_seats())
                actions = d.legal_actions(mover)
                if node.order is None:
                    node.order = _ranked(d, mover, actions, rng)
                # progressive widening: the best-ranked actions first, more as visits grow
                allowed = 1 + int(WIDENING * math.sqrt(node.visits))
                legal_now = set(actions)
                candidates = [a for a in node.order if a in legal_now][:allowed]
                if not candidates:  # only actions this determinization allows
                    candidates = actions[:allowed]
                for a in candidates:
                    child = node.children.get(a)
                    if child is not None:
                        child.avail += 1
                untried = [a for a in candidates if a not in node.children]
                if untried:
                    action = untried[0]
                    child = node.children[action] = _Node(mover)
                    child.avail = 1
                    d.apply_unchecked(mover, action)
                    path.append(child)
                    depth += 1
                    break
                best_score = -math.inf
                action = candidates[0]
                for a in candidates:
                    ch = node.children[a]
                    score = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if score > best_score:
                        best_score, action = score, a
                node = node.children[action]
                d.apply_unchecked(mover, action)
                path.append(node)
                depth += 1
            if policy is not None and not d.is_over():
                _finish_turn(d, min(d.current_seats()), policy)
            result = rewards(d, self._evaluate)
            for n in path:
                n.visits += 1
                n.total += result[n.mover]
            iterations += 1
            depth_sum += depth
        ranked = sorted(arms, key=lambda a: (a.visits, a.total / a.visits), reverse=True)
        best, info = _answer(ranked, iterations, depth_sum, start, clock)
        info["root_width"] = width
        return best.macro[0], info

    def _root_arms(
        self,
        first: State,
        seat: int,
        turns: list[tuple[float, tuple[Action, ...]]],
        plan: tuple[Action, ...],
        recall: bool,
    ) -> tuple[list[_Node], bool]:
        """The root's arms: the turns (best first) that end in different positions, at
        most `macros` of them; with `recall`, the plan of the step before too, if it still
        is a turn that ends elsewhere. Whether it was added."""
        # the beam keeps one of the turns that end in the same position (two pours in
        # either order), so each arm is a different position and the budget goes to
        # turns that differ
        arms: list[_Node] = []
        ends: set[Hashable] = set()
        evaluate = self._evaluate
        for v, steps in turns:
            after = first.clone()
            for action in steps:
                after.apply_unchecked(seat, action)
            end = after.search_key()
            if end in ends:  # two runs' turns from different first steps end alike
                continue
            ends.add(end)
            if evaluate is not None:  # every turn found is judged by the model
                v = evaluate(after, seat) - STEP_COST * (len(steps) - 1)
            arms.append(_arm(seat, steps, v, after, evaluate))
            if len(arms) == self.macros and evaluate is None:
                break
        if evaluate is not None:  # the model's best `macros` turns, best first
            arms.sort(key=lambda a: a.prior, reverse=True)
            del arms[self.macros :]
        # only in the last turn, where the plan is judged by its exact final score: before
        # it, a seventh arm made every sweep a sixth dearer (docs/bots.md)
        if plan and recall:
            found = _recall(first, seat, plan, evaluate)
            if found is not None and found[1].search_key() not in ends:
                arms.append(_arm(seat, plan, *found, evaluate))
                # the arms stay in the order of their evaluations (the last turn, and a
                # search with no complete sweep, take the first)
                arms.sort(key=lambda a: a.prior, reverse=True)
                return arms, True
        return arms, False

    def _sweeps(
        self,
        state: State,
        seat: int,
        arms: list[_Node],
        deadline: float,
        max_iterations: int,
        start: float,
        clock: Callable[[], float],
    ) -> tuple[_Node, dict[str, Any]]:
        """The turn-lookahead search (Café): sweeps over the root's arms. Each sweep draws
        one determinization and, on it, plays every arm's turn and then the turns that follow
        by the greedy beam (LOOKAHEAD_WIDTH), every seat's in the order they come, until the
        searching seat has played one more turn; that position is evaluated. All arms see the
        same cards in a sweep, so they are compared on equal luck (common random numbers).
        Only complete sweeps count: none is started that the last one's time says cannot
        complete, and one is given up once the time its arms take says it cannot (the time
        left goes to the caller, which widens the root beam on if no sweep completed); the
        arm with the best mean wins, its own evaluation deciding while no sweep has
        completed (`info["sweeps"]`). Solo, arms are ranked by the estimated score itself:
        its logistic (the reward) flattens the differences between good positions; and
        each arm's own evaluation counts as PRIOR_SWEEPS sweeps beside them."""
        rng = self.rng
        solo = state.num_players == 1
        evaluate = self._evaluate
        sums = [0.0] * len(arms)
        rewards_sum = [0.0] * len(arms)
        sweeps = iterations = depth_sum = 0
        sweep_seconds = 0.0
        # a sweep that cannot complete in time changes nothing: none is started then (not
        # even the first, when the root's beam has used the budget up)
        while clock() + sweep_seconds < deadline:
            began = clock()
            d = state.resample_hidden(seat, rng)
            results = []
            for arm in arms:
                if iterations >= max_iterations or clock() >= deadline:
                    break
                after = d.clone()
                for action in arm.macro:
                    after.apply_unchecked(seat, action)
                played = _play_next_turns(after, seat, LOOKAHEAD_WIDTH, deadline, clock)
                if played is None:  # out of time: this sweep cannot complete
                    break
                depth_sum += played
                iterations += 1
                reward = rewards(after, evaluate)[seat]
                results.append(((evaluate or value)(after, seat) if solo else reward, reward))
                # a sweep that cannot complete in time is given up as soon as that is
                # clear: at the mean time of its arms so far, all but one of the arms left
                # would already end past the deadline
                left = len(arms) - len(results)
                if left > 1:
                    now = clock()
                    if now + (left - 1) * (now - began) / len(results) > deadline:
                        break
            if len(results) < len(arms):
                break
            sweeps += 1
            sweep_seconds = clock() - began
            for i, (score, reward) in enumerate(results):
                sums[i] += score
                rewards_sum[i] += reward
        if sweeps:
            for i, arm in enumerate(arms):
                arm.visits, arm.total = sweeps, rewards_sum[i]
                if solo:  # the arm's own evaluation counts as PRIOR_SWEEPS sweeps
                    sums[i] += PRIOR_SWEEPS * arm.prior
            order = sorted(range(len(arms)), key=lambda i: (sums[i], -i), reverse=True)
        else:  # not one sweep in the budget: the arms' own evaluations decide
            order = list(range(len(arms)))
        ranked = [arms[i] for i in order]
        best, info = _answer(ranked, iterations, depth_sum, start, clock)
        info["sweeps"] = sweeps
        return best, info


def _ends_game(state: State, seat: int, steps: tuple[Action, ...]) -> bool:
    """Whether `seat`'s turn `steps` from `state` ends the game for the seat: the game is over
    after it, or the seat's score is final though others still act (`score_is_final`: in
    Café, the seats that end their last turn before the last seat does)."""
    end = state.clone()
    for action in steps:
        end.apply_unchecked(seat, action)
    return score_is_final(end, seat)


def _arm(
    seat: int, steps: tuple[Action, ...], v: float, end: State, evaluate: Evaluator | None = None
) -> _Node:
    """A root arm: `seat`'s whole turn `steps`, evaluated `v` by the beam (or the learned
    `evaluate`), ending in `end`; it starts as PRIOR_VISITS visits worth the reward there."""
    arm = _Node(seat)
    arm.macro = steps
    arm.visits = PRIOR_VISITS
    arm.total = PRIOR_VISITS * rewards(end, evaluate)[seat]
    arm.prior = v
    return arm


def _recall(
    state: State, seat: int, plan: tuple[Action, ...], evaluate: Evaluator | None = None
) -> tuple[float, State] | None:
    """The planned rest of `seat`'s turn, if it still is one from `state` (each step legal
    in turn, and the turn over after the last): its evaluation (as the beam's, with the
    cost of its steps) and the position it ends in; None if it is not."""
    after = state.clone()
    round_number = after.round_number()
    for action in plan:
        if turn_over(after, seat, round_number) or action not in after.legal_actions(seat):
            return None
        after.apply_unchecked(seat, action)
    if not turn_over(after, seat, round_number):
        return None
    return (evaluate or value)(after, seat) - STEP_COST * (len(plan) - 1), after


def _best_of_runs(
    runs: list[list[tuple[float, tuple[Action, ...]]]], keep: int
) -> list[tuple[float, tuple[Action, ...]]]:
    """The best turn for each first step over the turns of several beam runs (each best
    first, one turn per first step), best first, at most `keep`; between equal evaluations
    the earlier run's turn, then the earlier first step, wins."""
    best: dict[Action, tuple[float, int, tuple[Action, ...]]] = {}
    order = 0
    for turns in runs:
        for v, steps in turns:
            held = best.get(steps[0])
            if held is None or v > held[0]:
                best[steps[0]] = (v, order, steps)
            order += 1
    ranked = sorted(best.values(), key=lambda item: (-item[0], item[1]))
    return [(v, steps) for v, _, steps in ranked[:keep]]


def _widen(
    first: State,
    seat: int,
    keep: int,
    runs: list[list[tuple[float, tuple[Action, ...]]]],
    width: int,
    widest: int,
    until: float,
    cache: BeamCache,
    last: float | None,
    clock: Callable[[], float],
) -> tuple[int, int]:
    """Run the root beam again twice as wide (Café under a time budget), and again, up to
    `widest`, adding each run's turns to `runs`; every run stops at `until`. With `last`
    (the seconds the run before took), a run starts only if NEXT_WIDTH times the last run's
    time fits before `until` (leaving the rest to the sweeps); without, whenever there is
    time. A run cut short adds the complete turns it found, which are exact. The width of
    the widest complete run, and of the run cut short (0 if none)."""
    base = max(WIDTH, keep)
    while width < widest:
        began = clock()
        if began >= until or (last is not None and began + NEXT_WIDTH * last >= until):
            break
        wider, _ = best_turns(
            first,
            seat,
            width=2 * width,
            keep=keep,
            expansions=MAX_EXPANSIONS * 2 * width // base,
            deadline=until,
            cache=cache,
            partial=False,
            clock=clock,
        )
        runs.append(wider)
        if clock() >= until:
            return width, 2 * width
        width *= 2
        if last is not None:
            last = clock() - began
    return width, 0


def _play_next_turns(
    state: State, seat: int, width: int, deadline: float, clock: Callable[[], float]
) -> int | None:
    """Play on from `state` with the greedy beam (each seat to move plays its best turn,
    the lowest seat first) until `seat` has played one more turn or the game ends; the
    number of turns played, or None if the deadline passed first (the beam stops there)."""
    turns = 0
    while not state.is_over() and turns < MAX_LOOKAHEAD_TURNS:
        mover = min(state.current_seats())
        found, _ = best_turns(state, mover, width=width, deadline=deadline, clock=clock)
        if clock() >= deadline:
            return None
        for action in found[0][1]:
            state.apply_unchecked(mover, action)
        turns += 1
        if mover == seat:
            break
    return turns


def _answer(
    ranked: list[_Node], iterations: int, depth_sum: int, start: float, clock: Callable[[], float]
) -> tuple[_Node, dict[str, Any]]:
    """The decision: the best-ranked arm (its first step is played), and the search's
    `info` (its `seconds` on the search's clock)."""
    best = ranked[0]
    elapsed = clock() - start
    return best, {
        "value": best.total / best.visits,
        "visits": best.visits,
        "iterations": iterations,
        "iterations_per_second": iterations / elapsed if elapsed else None,
        "mean_depth": depth_sum / iterations if iterations else 0,
        "seconds": elapsed,
        "plan": [a.notation() for a in best.macro],
        "arms": len(ranked),
        "top": [
            {
                "action": arm.macro[0].notation(),
                "turn": [a.notation() for a in arm.macro],
                "visits": arm.visits,
                "value": arm.total / arm.visits,
                "evaluation": arm.prior,
            }
            for arm in ranked[:5]
        ],
    }
