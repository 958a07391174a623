"""The conformance suite every registered game passes, through the core protocol only.

Parametrized over `game_names()`, so a newly registered game (Coffee Rush) is checked too:
random playouts reach the end, a live state never leaves a seat to act without a legal
action, clones are independent, states and actions serialise and read back, a record
replays to the same final state, per-seat views never peek at hidden information, and
every legal action can be put in words (`describe`).
"""

from __future__ import annotations

import json
import random

import pytest

from coffeetable.core.errors import DataError, IllegalActionError, NotYourTurnError
from coffeetable.core.game import Action, Game, ScoreBreakdown, State
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game, game_names
from tests.games.view_checks import check_no_peek, check_view_basics

MAX_STEPS = 50_000  # far beyond any real game; a playout that gets here is stuck
SEEDS = range(5)


def cases() -> list:
    out = []
    for name in game_names():
        info = find_game(name).info
        for players in range(info.min_players, info.max_players + 1):
            out.append(pytest.param(name, players, id=f"{name}-{players}p"))
    return out


def round_trip(game: Game, state: State) -> State:
    data = state.to_json()
    restored = game.state_from_json(json.loads(json.dumps(data)))
    assert restored.to_json() == data
    return restored


def check_live(state: State) -> None:
    current = state.current_seats()
    assert isinstance(current, frozenset)
    if state.is_over():
        assert current == frozenset()
        return
    assert current, "a live state with nobody to act"
    for seat in range(state.num_players):
        actions = state.legal_actions(seat)
        if seat in current:
            assert actions, f"seat {seat} must act but has no legal action"
        else:
            assert actions == []
        # what a search tries: some of the legal actions, in their order, never none of them
        searched = iter(actions)
        chosen = state.search_actions(seat)
        assert all(any(a == b for b in searched) for a in chosen), "not a legal subsequence"
        assert bool(chosen) == bool(actions)


def playout(
    game: Game, players: int, seed: int, *, checks: bool = True
) -> tuple[State, GameRecord]:
    state = game.new_initial_state(players, seed)
    record = GameRecord(game.info.name, [f"bot{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    for count in range(MAX_STEPS):
        if checks:
            check_live(state)
        if state.is_over():
            break
        seat = rng.choice(sorted(state.current_seats()))
        legal = state.legal_actions(seat)
        action = rng.choice(legal)
        if checks and count % 7 == 0:
            text = action.notation()
            assert game.parse_action(text) == action
            assert game.decode_action(game.encode_action(action)) == action
        applied = state.apply(seat, action)
        record.actions.append((seat, applied.notation()))
    else:
        pytest.fail(f"no end after {MAX_STEPS} actions")
    return state, record


@pytest.mark.parametrize(("name", "players"), cases())
def test_random_playouts_reach_the_end(name: str, players: int) -> None:
    game = find_game(name)
    for seed in SEEDS:
        state, _ = playout(game, players, seed)
        assert state.is_over()
        scores = state.scores()
        assert len(scores) == players
        assert all(isinstance(s, ScoreBreakdown) for s in scores)
        assert all(s.total == sum(p for _, p in s.parts) for s in scores)
        winners = state.winners()
        assert winners and set(winners) <= set(range(players))
        best = max((s.total, *s.tiebreak) for s in scores)
        assert {w for w in range(players) if (scores[w].total, *scores[w].tiebreak) == best} == set(
            winners
        )


@pytest.mark.parametrize(("name", "players"), cases())
def test_replay_is_deterministic(name: str, players: int) -> None:
    game = find_game(name)
    state, record = playout(game, players, seed=42, checks=False)
    again, record_again = playout(game, players, seed=42, checks=False)
    assert record_again == record
    assert again.to_json() == state.to_json()
    restored = GameRecord.from_json(json.loads(json.dumps(record.to_json(final=state))))
    assert restored.replay().to_json() == state.to_json()
    # replaying a prefix then the rest gives the same state as replaying everything
    half = len(record.actions) // 2
    partial = restored.replay(upto=half)
    for seat, text in record.actions[half:]:
        partial.apply(seat, game.parse_action(text))
    assert partial.to_json() == state.to_json()


@pytest.mark.parametrize(("name", "players"), cases())
def test_clone_is_independent(name: str, players: int) -> None:
    game = find_game(name)
    state = game.new_initial_state(players, 7)
    rng = random.Random(7)
    while not state.is_over():
        before = state.to_json()
        twin = state.clone()
        assert twin.to_json() == before
        seat = rng.choice(sorted(state.current_seats()))
        action = rng.choice(state.legal_actions(seat))
        twin.apply(seat, action)
        assert state.to_json() == before  # the original did not move
        state.apply(seat, action)
        assert state.to_json() == twin.to_json()
        # and the other way round: moving the original leaves an older clone alone
        older = twin.clone()
        snapshot = older.to_json()
        if not state.is_over():
            seat = min(state.current_seats())
            state.apply(seat, state.legal_actions(seat)[0])
            assert older.to_json() == snapshot


@pytest.mark.parametrize(("name", "players"), cases())
def test_serialise_round_trips(name: str, players: int) -> None:
    game = find_game(name)
    state = game.new_initial_state(players, 11)
    rng = random.Random(11)
    steps = 0
    while not state.is_over():
        if steps % 5 == 0:
            restored = round_trip(game, state)
            for seat in range(players):
                assert restored.legal_actions(seat) == state.legal_actions(seat)
            assert restored.scores() == state.scores()
            assert state.render().strip()
            assert state.render(0).strip()
        seat = rng.choice(sorted(state.current_seats()))
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1
    restored = round_trip(game, state)
    assert restored.is_over()
    assert restored.scores() == state.scores()
    assert restored.winners() == state.winners()
    json.dumps(state.to_json())  # plain JSON all the way down


@pytest.mark.parametrize(("name", "players"), cases())
def test_views_never_peek(name: str, players: int) -> None:
    """A seat's view (and the spectator's) is the same when everything the seat cannot see
    is drawn again; views are plain, stable JSON, equal for a clone and a JSON round trip."""
    game = find_game(name)
    state = game.new_initial_state(players, 13)
    rng = random.Random(13)
    steps = 0
    while True:
        if steps % 10 == 0 or state.is_over():
            check_no_peek(state, seeds=(1, 2))
            check_view_basics(game, state)
        if state.is_over():
            break
        seat = rng.choice(sorted(state.current_seats()))
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1


@pytest.mark.parametrize(("name", "players"), cases())
def test_describe_puts_every_legal_action_in_words(name: str, players: int) -> None:
    """`describe(seat, action)` is a short single line for every legal action, the same
    every time and on a state whose hidden part is drawn again, changes nothing, and never
    raises: not for another seat's action, nor once the game is over."""
    game = find_game(name)
    state = game.new_initial_state(players, 17)
    rng = random.Random(17)
    steps = 0
    last: Action | None = None
    while True:
        if state.is_over():
            assert last is not None
            for seat in range(players):
                assert isinstance(state.describe(seat, last), str)
            break
        before = state.to_json() if steps % 20 == 0 else None
        current = sorted(state.current_seats())
        for seat in current:
            twin = state.resample_hidden(seat, random.Random(steps))
            for action in state.legal_actions(seat):
                text = state.describe(seat, action)
                assert isinstance(text, str) and text and text == text.strip()
                assert "\n" not in text and len(text) <= 160, text
                assert state.describe(seat, action) == text
                assert twin.describe(seat, action) == text
        action = state.legal_actions(current[0])[0]
        for other in range(-1, players + 1):
            if other not in current:
                assert isinstance(state.describe(other, action), str)  # not legal: no raise
        if before is not None:
            assert state.to_json() == before
        seat = rng.choice(current)
        action = rng.choice(state.legal_actions(seat))
        assert State.describe(state, seat, action) == action.notation()  # the base default
        last = state.apply(seat, action)
        steps += 1


@pytest.mark.parametrize("name", game_names())
def test_player_counts_outside_the_range_are_rejected(name: str) -> None:
    game = find_game(name)
    for players in (game.info.min_players - 1, game.info.max_players + 1):
        with pytest.raises(DataError):
            game.new_initial_state(players, 1)


@pytest.mark.parametrize("name", game_names())
def test_actions_of_other_seats_and_after_the_end_are_rejected(name: str) -> None:
    game = find_game(name)
    info = game.info
    state = game.new_initial_state(info.max_players, 3)
    seat = min(state.current_seats())
    idle = [s for s in range(info.max_players) if s not in state.current_seats()]
    action = state.legal_actions(seat)[0]
    before = state.to_json()
    for other in idle:
        with pytest.raises(NotYourTurnError):
            state.apply(other, action)
    assert state.to_json() == before
    final, _ = playout(game, info.min_players, 3, checks=False)
    with pytest.raises(IllegalActionError):
        final.apply(0, action)


#: The position-JSON keys that hold hidden information (docs/views.md): what a step that may
#: be taken back must never change.
HIDDEN_PARTS = {"cafe": ("deck", "removed", "rng"), "coffee-rush": ("deck",)}


@pytest.mark.parametrize(("name", "players"), cases())
def test_take_back_restores_the_state_and_never_hides_a_draw(name: str, players: int) -> None:
    """`may_take_back` (an online table's undo): over random games, a step it allows leaves
    the seat to act, does not end the game and changes no hidden part; replaying the game
    without it gives exactly the state before, and the step can then be played again to the
    same state. Every step that changes the deck (or the unseen cards, or the RNG) is
    refused. Asking changes nothing, and told the state after the step the answer is the
    same."""
    game = find_game(name)
    hidden = HIDDEN_PARTS[name]
    allowed = refused = replays = 0
    for seed in range(3):
        state = game.new_initial_state(players, seed)
        record = GameRecord(name, [f"p{i}" for i in range(players)], seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = rng.choice(sorted(state.current_seats()))
            action = rng.choice(state.legal_actions(seat))
            before = state.to_json()
            may = state.may_take_back(seat, action)
            assert state.to_json() == before  # asking changed nothing
            # told the state after it (as the server does), the answer is the same
            played = state.clone()
            played.apply(seat, action)
            played_json = played.to_json()
            assert state.may_take_back(seat, action, played) == may
            assert state.to_json() == before and played.to_json() == played_json
            applied = state.apply(seat, action)
            after = state.to_json()
            changed_hidden = any(before[k] != after[k] for k in hidden)
            if changed_hidden:
                assert not may, f"{applied.notation()} changed hidden information"
            if not may:
                refused += 1
            else:
                allowed += 1
                assert not state.is_over() and seat in state.current_seats()
                if allowed % 4 == 1:  # the undo the server does: replay without the step
                    replays += 1
                    undone = record.replay()
                    assert undone.to_json() == before
                    undone.apply(seat, game.parse_action(applied.notation()))
                    assert undone.to_json() == after
            record.actions.append((seat, applied.notation()))
        # nothing is taken back once the game is over, nor for a seat that may not act
        last_seat, last = record.actions[-1]
        assert not state.may_take_back(last_seat, game.parse_action(last))
    assert allowed > 10 and refused > 10 and replays > 2, (allowed, refused, replays)


@pytest.mark.parametrize("name", game_names())
def test_take_back_refuses_what_ends_a_turn(name: str) -> None:
    """The steps that confirm a seat's part of the turn are never taken back: Coffee Rush
    `end` and meeple placement, Café draft picks and placements (rules docs, Ruling UNDO1)."""
    game = find_game(name)
    state = game.new_initial_state(2, 5)
    rng = random.Random(5)
    checked: set[str] = set()
    while not state.is_over():
        seat = rng.choice(sorted(state.current_seats()))
        for action in state.legal_actions(seat):
            word = action.notation().split()[0]
            if word in ("end", "take", "place", "bid", "pass") and word not in checked:
                assert not state.may_take_back(seat, action), action.notation()
                checked.add(word)
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    other = game.new_initial_state(2, 5)
    seat = min(other.current_seats())
    action = other.legal_actions(seat)[0]
    assert not other.may_take_back(1 - seat, action)  # not this seat's turn
    assert "end" in checked and ("take" in checked or "place" in checked)


@pytest.mark.parametrize(("name", "players"), cases())
def test_say_is_the_described_sentence_as_data(name: str, players: int) -> None:
    """`say(seat, action)` (the log sentence as a key and parameters, for other languages)
    renders with the game's English templates to exactly `describe(seat, action)`, uses only
    keys the game has templates for, is plain JSON, and is the same on a state whose hidden
    part is drawn again."""
    from coffeetable.core.say import placeholders, render

    game = find_game(name)
    templates = game.log_templates
    used: set[str] = set()
    for seed in (3, 4):
        state = game.new_initial_state(players, seed)
        rng = random.Random(seed)
        steps = 0
        while not state.is_over():
            current = sorted(state.current_seats())
            for seat in current:
                twin = state.resample_hidden(seat, random.Random(steps))
                for action in state.legal_actions(seat):
                    said = state.say(seat, action)
                    assert said.keys() <= set(templates), said
                    used |= said.keys()
                    assert render(said, templates) == state.describe(seat, action)
                    data = said.to_json()
                    assert json.loads(json.dumps(data)) == data
                    assert twin.say(seat, action).to_json() == data
            seat = rng.choice(current)
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            steps += 1
    assert "log.plays" in templates
    for key, template in templates.items():
        assert key.startswith("log."), key
        if not isinstance(template, str):
            assert set(template) == {"one", "other"} and "n" in placeholders(template), key
    assert len(used) > 10, used


def _position_without_hidden_order(state: State) -> str:
    """The position JSON less what a search key leaves out: the RNG, and the order of the
    deck and of the cards out of play (their numbers count)."""
    data = state.to_json()
    for key in ("rng", "deck", "removed", "discard", "discarded"):
        if key in data:
            value = data.pop(key)
            if isinstance(value, list):
                data[f"{key}#"] = len(value)
    return json.dumps(data, sort_keys=True)


@pytest.mark.parametrize(("name", "players"), cases())
def test_search_key_tells_positions_apart_exactly(name: str, players: int) -> None:
    """Positions up to two steps of one seat from the same state have equal search keys
    exactly when they are the same position (bots merge transpositions by this key): steps
    in another order that reach the same position get the same key, and no two different
    positions share one."""
    game = find_game(name)
    rng = random.Random(players)
    pairs = merged = 0
    for seed in range(3):
        state = game.new_initial_state(players, seed)
        step = 0
        while not state.is_over():
            if step % 9 == 0:
                assert state.search_key() == state.clone().search_key()
                seat = min(state.current_seats())
                reached = []
                for first in state.legal_actions(seat)[:12]:
                    child = state.clone()
                    child.apply_unchecked(seat, first)
                    reached.append(child)
                    for second in child.legal_actions(seat)[:12]:
                        grandchild = child.clone()
                        grandchild.apply_unchecked(seat, second)
                        reached.append(grandchild)
                keyed = [(s.search_key(), _position_without_hidden_order(s)) for s in reached]
                for i, (key_a, json_a) in enumerate(keyed):
                    hash(key_a)
                    for key_b, json_b in keyed[i + 1 :]:
                        pairs += 1
                        assert (key_a == key_b) == (json_a == json_b)
                        merged += key_a == key_b
            seat = rng.choice(sorted(state.current_seats()))
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            step += 1
    assert pairs > 1000
    assert merged > 0  # transpositions do occur, and are recognised


@pytest.mark.parametrize(("name", "players"), cases())
def test_say_of_a_listed_action_is_its_sentence_without_checking_it(
    name: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`say(seat, action, listed=True)`, the caller's word that the action is from
    `legal_actions(seat)` (a server's legal list), is the same sentence as `say(seat,
    action)`, and the game words it without listing or canonicalising actions again."""
    game = find_game(name)
    state = game.new_initial_state(players, 5)
    rng = random.Random(5)
    cls = type(state)
    steps = 0
    while not state.is_over():
        current = sorted(state.current_seats())
        listed = {seat: state.legal_actions(seat) for seat in current}
        expected = {
            seat: [state.say(seat, action).to_json() for action in actions]
            for seat, actions in listed.items()
        }

        def refuse(*args: object, **kwargs: object) -> object:
            raise AssertionError("a listed action was checked again")

        with monkeypatch.context() as patched:
            for method in ("legal_actions", "canonical_action"):
                patched.setattr(cls, method, refuse)
            for seat, actions in listed.items():
                said = [state.say(seat, a, listed=True).to_json() for a in actions]
                assert said == expected[seat]
        seat = rng.choice(current)
        state.apply(seat, rng.choice(listed[seat]))
        steps += 1
    assert steps > 10


@pytest.mark.parametrize(("name", "players"), cases())
def test_kept_legal_actions_are_the_same_list(name: str, players: int) -> None:
    """`legal_actions_kept` (a server keeps another seat's legal list across a move): over
    random games, whenever it says a seat's list is kept, the list after the move is the one
    before, action for action, and the seat may act in both states. Asking changes neither
    state, and it never says so for the seat that moved's own list across its move."""
    game = find_game(name)
    kept = 0
    for seed in range(4):
        state = game.new_initial_state(players, seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = rng.choice(sorted(state.current_seats()))
            action = rng.choice(state.legal_actions(seat))
            before = state.clone()
            lists = {s: before.legal_actions(s) for s in range(players)}
            state.apply(seat, action)
            before_json, after_json = before.to_json(), state.to_json()
            for other in range(players):
                if other == seat or not state.legal_actions_kept(other, before):
                    continue
                kept += 1
                assert other in state.current_seats() and other in before.current_seats()
                assert state.legal_actions(other) == lists[other], (other, action.notation())
            assert before.to_json() == before_json and state.to_json() == after_json
    if name == "cafe" and players > 1:
        assert kept > 0  # the simultaneous action phase keeps most lists (docs/server.md)
