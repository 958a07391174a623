"""Game reviews online (server/reviews.py, review_routes.py): a finished game reviewed on the
bot workers and stored once per game and budget; never a running game; each user's queue
and daily budget; the Redis workers take reviews after bot seats' decisions and hints."""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import Iterator
from importlib import resources
from typing import Any

import httpx
import orjson
import pytest

from coffeetable.bots.review import ReviewSettings, analyse, decision_job, decisions
from coffeetable.core.record import GameRecord
from coffeetable.server.jobs import (
    BOT_STREAM,
    HINT_STREAM,
    REVIEW_STREAM,
    STREAMS,
    RedisJobs,
    Worker,
)
from tests.server.conftest import serve_on
from tests.server.live import Player, ServerProcess, finished_record
from tests.server.site import REDIS_URL, unavailable


def random_record(game: str, players: int, seed: int) -> dict[str, Any]:
    return finished_record(game, ("Ana", "Bo", "Cy", "Di")[:players], seed)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A node with its own bot pool; one deal a reviewed move (fast), two reviews a day."""
    env = {"COFFEETABLE_REVIEW_SAMPLES": "1", "COFFEETABLE_REVIEW_DAILY": "2"}
    with serve_on("sqlite", tmp_path_factory.mktemp("review"), extra_env=env) as proc:
        yield proc


def error(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


def imported(player: Player, record: dict[str, Any]) -> str:
    r = player.http.post("/api/records", json=record)
    assert r.status_code == 201, r.text
    table_id: str = r.json()["id"]
    return table_id


def wait_done(player: Player, table_id: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        answer: dict[str, Any] = player.http.get(f"/api/tables/{table_id}/review").json()
        seen.append(answer["status"])
        if answer["status"] in ("done", "failed"):
            assert answer["status"] == "done", answer
            return answer
        time.sleep(0.3)
    raise AssertionError(f"the review did not end: {seen[-5:]}")


@pytest.mark.slow  # a whole Coffee Rush game reviewed (~25 s idle): CI's slow pass
def test_a_game_on_a_players_deck_is_reviewed_on_that_deck(server: ServerProcess) -> None:
    """The review replays the record, and its jobs analyse the moves, on the card file the
    table was played with (the registered game refuses that record's options)."""
    from coffeetable.games.coffee_rush import CoffeeRushGame
    from coffeetable.games.coffee_rush.cards import parse_cards

    owner = Player(server)
    assert owner.register(f"Deck{secrets.token_hex(3)}").status_code == 200
    default = resources.files("coffeetable.games.coffee_rush").joinpath("data/cards.toml")
    text = default.read_text(encoding="utf-8").replace(
        'name = "Coffee Rush (public reconstruction)"', 'name = "reviewed cards"'
    )
    r = owner.http.post(
        "/api/decks?game=coffee-rush&visibility=private",
        content=text.encode(),
        headers={"Content-Type": "text/plain"},
    )
    assert r.status_code == 201, r.text
    sha = r.json()["sha256"]
    stored = owner.http.get(f"/api/decks/{sha}/file").content
    played = CoffeeRushGame(parse_cards(stored, "stored"))
    record = finished_record("coffee-rush", ("Ana", "Bo"), 7, played=played)
    assert record["options"]["cards_sha256"] == sha
    table_id = imported(owner, record)
    r = owner.http.post(f"/api/tables/{table_id}/review", json={"budget": "quick"})
    assert r.status_code == 202, r.text
    done = wait_done(owner, table_id)
    moves = done["review"]["moves"]
    assert moves and all(m["loss"] >= 0 for m in moves)
    # every decision of the game on that card file was analysed
    found = list(decisions(GameRecord.from_json(record), played))
    assert [m["index"] for m in moves] == [d.index for d in found]


def test_a_finished_game_is_reviewed_once_and_shown_to_whoever_may_read_it(
    server: ServerProcess,
) -> None:
    ana = Player(server).guest()
    record = random_record("cafe", 1, 7)
    table_id = imported(ana, record)
    assert error(ana.http.get(f"/api/tables/{table_id}/review")) == (404, "no_review")
    r = ana.http.post(f"/api/tables/{table_id}/review", json={"budget": "quick"})
    assert r.status_code == 202 and r.json()["status"] in ("queued", "running", "done")
    answer = wait_done(ana, table_id)
    review = answer["review"]
    assert answer["budget"] == "quick" and review["format"] == "coffeetable.review/1"
    assert review["settings"]["samples"] == 1 and review["settings"]["bot"] == "greedy"
    # the same review as the library makes of the record (deterministic for the settings)
    settings = ReviewSettings("greedy", samples=1, seed=0)
    found = list(decisions(GameRecord.from_json(record)))
    assert [m["index"] for m in review["moves"]] == [d.index for d in found]
    for i in (0, len(found) // 2):
        local = analyse(found[i], settings).to_json()
        del local["seconds"]
        assert {k: v for k, v in review["moves"][i].items() if k != "seconds"} == local
    (summary,) = review["summaries"]
    assert summary["rating"] and summary["biggest"] and summary["phases"]
    # no hidden card in anything shown: the review, the boards of a move
    assert '"deck"' not in json.dumps(review)
    worst = max(review["moves"], key=lambda m: m["loss"])
    moves = ana.http.get(f"/api/tables/{table_id}/review/moves/{worst['index']}").json()
    assert moves["move"] == worst and moves["played"] and moves["suggested"]
    # public views (a spectator's), as the replay shows them
    replay = ana.http.get(f"/api/tables/{table_id}/replay/{worst['index'] + 1}").json()
    assert moves["played"] == replay["view"] and moves["played"]["seat"] is None
    before = ana.http.get(f"/api/tables/{table_id}/replay/{worst['index']}").json()
    assert moves["before"] == before["view"]
    assert (
        moves["suggested"] != moves["played"] and moves["suggested"].keys() == replay["view"].keys()
    )
    # anyone may read it; asking again is answered with the stored review, at no cost
    bo = Player(server).guest()
    assert bo.http.get(f"/api/tables/{table_id}/review").json() == answer
    again = bo.http.post(f"/api/tables/{table_id}/review", json={})
    assert again.status_code == 202 and again.json() == answer
    assert error(bo.http.get(f"/api/tables/{table_id}/review/moves/99999")) == (404, "no_move")
    assert error(bo.http.get(f"/api/tables/{table_id}/review?budget=deep")) == (404, "no_review")
    assert error(bo.http.get(f"/api/tables/{table_id}/review?budget=huge")) == (
        400,
        "unknown_budget",
    )
    assert error(Player(server).http.post(f"/api/tables/{table_id}/review")) == (401, "login")


def test_a_running_game_is_never_reviewed(server: ServerProcess) -> None:
    ana = Player(server).guest()
    table = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    assert error(ana.http.post(f"/api/tables/{table['id']}/review")) == (409, "not_finished")
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    assert error(ana.http.post(f"/api/tables/{table['id']}/review")) == (409, "not_finished")
    assert error(ana.http.get(f"/api/tables/{table['id']}/review/moves/0")) == (404, "no_review")


@pytest.mark.slow  # two whole games reviewed one after the other (~20 s idle): CI's slow pass
def test_each_user_has_a_queue_of_one_and_a_daily_budget(server: ServerProcess) -> None:
    cy = Player(server).guest()
    # short games: 26 to 31 decisions
    first, second, third = (imported(cy, random_record("cafe", 1, s)) for s in (31, 26, 39))
    assert cy.http.post(f"/api/tables/{first}/review").status_code == 202
    # while that one is under way, no other
    assert error(cy.http.post(f"/api/tables/{second}/review")) == (429, "rate_limited")
    wait_done(cy, first)
    assert cy.http.post(f"/api/tables/{second}/review").status_code == 202
    wait_done(cy, second)
    # two a day on this server
    assert error(cy.http.post(f"/api/tables/{third}/review")) == (429, "rate_limited")
    assert cy.http.post(f"/api/tables/{first}/review").status_code == 202  # stored: free


# ==== the Redis workers =======================================================================
def redis_worker() -> Worker:
    try:
        worker = Worker(REDIS_URL)
        worker.redis.ping()
    except Exception as exc:
        unavailable(f"Redis at {REDIS_URL} is not reachable ({exc})")
    worker.redis.delete(*STREAMS)
    worker._groups()
    return worker


def test_workers_take_bot_decisions_then_hints_then_reviews() -> None:
    worker = redis_worker()
    for stream in (REVIEW_STREAM, REVIEW_STREAM, HINT_STREAM, BOT_STREAM):
        worker.redis.xadd(stream, {"job": orjson.dumps({"id": stream})})
    taken = []
    for _ in range(4):
        item = worker._next(100)
        assert item is not None
        taken.append(item[0])
        worker.redis.xack(item[0], "workers", item[1])
    assert taken == [BOT_STREAM, HINT_STREAM, REVIEW_STREAM, REVIEW_STREAM]
    assert worker._next(50) is None

    # jobs on several streams at once, read together while waiting: none is lost
    def later() -> None:
        time.sleep(0.3)
        pipe = worker.redis.pipeline()
        pipe.xadd(REVIEW_STREAM, {"job": b"{}"})
        pipe.xadd(HINT_STREAM, {"job": b"{}"})
        pipe.execute()

    threading.Thread(target=later).start()
    first = worker._next(2000)
    second = worker._next(50)
    assert first is not None and second is not None
    assert {first[0], second[0]} == {REVIEW_STREAM, HINT_STREAM}
    worker.redis.delete(*STREAMS)


@pytest.mark.slow  # 30 s: a whole review decision through Redis and a real worker
def test_a_review_decision_goes_through_the_redis_queue() -> None:
    """A node's RedisJobs queues a decision on the review stream; a worker answers it with
    the review the library makes. (The node's side runs on its own event loop in a thread,
    joined with a time limit, so that a stuck Redis client fails the test, never hangs it.)"""
    import redis.asyncio

    worker = redis_worker()
    found = list(decisions(GameRecord.from_json(random_record("coffee-rush", 2, 7))))
    decision = found[3]
    settings = ReviewSettings("greedy", samples=2, seed=1)
    answers: list[dict[str, Any]] = []

    async def ask() -> None:
        client = redis.asyncio.Redis.from_url(REDIS_URL)
        jobs = RedisJobs(client, f"test-{secrets.token_hex(4)}")
        await jobs.start()
        try:
            job = decision_job("coffee-rush", decision, settings)
            answers.append(await jobs.analyse(job, timeout=90))
        finally:
            await jobs.close()
            await client.aclose()

    node = threading.Thread(target=lambda: asyncio.run(ask()), daemon=True)
    thread = threading.Thread(target=worker.run, kwargs={"max_jobs": 1}, daemon=True)
    thread.start()
    node.start()
    thread.join(120)
    node.join(30)
    assert answers, "no answer came back through Redis"
    local = analyse(decision, settings).to_json()
    for data in (answers[0], local):
        del data["seconds"]
    assert answers[0] == local
    worker.redis.delete(*STREAMS)
