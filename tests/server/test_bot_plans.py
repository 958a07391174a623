"""A bot seat keeps its plan from move to move although the server builds its bot anew for
each one (server.bots.choose_move; docs/bots.md, "What worked: the plan of the step before")."""

from __future__ import annotations

from coffeetable.server.bots import choose_move
from tests.bots.test_bots import cafe_before_last_placement


def test_the_plan_travels_with_the_seat() -> None:
    state = cafe_before_last_placement(4000)
    move, plan = choose_move("cafe", state.to_json(), 0, "ismcts:24i", 3)
    assert plan
    after = state.clone()
    after.apply(0, after.game.parse_action(move))
    # without the plan, a step later the bot finds a turn 3 points worse (tests/bots);
    # with it, the bot plays the plan's next step and passes the rest on
    fresh, fresh_plan = choose_move("cafe", after.to_json(), 0, "ismcts:24i", 3)
    again, rest = choose_move("cafe", after.to_json(), 0, "ismcts:24i", 3, plan)
    assert (again, rest) == (plan[0], plan[1:])
    assert [fresh, *fresh_plan] != plan


def test_a_plan_the_game_cannot_read_is_ignored() -> None:
    state = cafe_before_last_placement(4000)
    move, _ = choose_move("cafe", state.to_json(), 0, "ismcts:24i", 3)
    after = state.clone()
    after.apply(0, after.game.parse_action(move))
    expected = choose_move("cafe", after.to_json(), 0, "ismcts:24i", 3)
    for junk in (["no such move"], ["deliver 99,99 > wh"], [""]):
        assert choose_move("cafe", after.to_json(), 0, "ismcts:24i", 3, junk) == expected


def test_bots_without_plans_pass_none_on() -> None:
    state = cafe_before_last_placement(4000)
    move, plan = choose_move("cafe", state.to_json(), 0, "greedy", 3, ["deliver 1,1 > wh"])
    assert plan == [] and move in {a.notation() for a in state.legal_actions(0)}
