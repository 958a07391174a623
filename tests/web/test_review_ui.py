"""Game review in a real browser (Chromium through Playwright) against a real server: a
finished game reviewed from its table's "Review this game", the graph of the estimate drawn
with the mistakes marked, and a mistake opened: the board after the move made and after
the bot's move side by side. Screenshots go to tests/web/artifacts (or $COFFEETABLE_SHOTS)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game
from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, ServerProcess
from tests.web.ui import Client

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """A real server on a fresh SQLite file; one deal a reviewed move (a quick review)."""
    tmp = tmp_path_factory.mktemp("web-review")
    proc = ServerProcess(
        f"sqlite:///{tmp / 'web.db'}",
        tmp / "server.log",
        extra_env={"COFFEETABLE_REVIEW_SAMPLES": "1"},
    )
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        assert "Traceback" not in proc.log_text()


def solo_record(seed: int) -> dict[str, Any]:
    """A solo Café game of random moves (seed 31: 26 decisions, several of them mistakes)."""
    game = find_game("cafe")
    state = game.new_initial_state(1, seed, {})
    record = GameRecord(game="cafe", seats=["Ana"], seed=seed, options={})
    rng = random.Random(seed)
    while not state.is_over():
        action = rng.choice(state.legal_actions(0))
        record.actions.append((0, action.notation()))
        state.apply(0, action)
    out: dict[str, Any] = record.to_json(state)
    return out


def test_a_finished_game_reviewed_graph_drawn_mistake_opened(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    shots = Path(os.environ.get("COFFEETABLE_SHOTS") or artifacts)
    shots.mkdir(parents=True, exist_ok=True)
    ana = Player(server).guest()
    r = ana.http.post("/api/records", json=solo_record(31))
    assert r.status_code == 201, r.text
    table_id = r.json()["id"]
    client = Client(browser, server)
    client.context.add_cookies([{"name": SESSION_COOKIE, "value": ana.token, "url": server.url}])
    page = client.page
    try:
        client.goto(f"#/table/{table_id}")
        client.press(page.locator("#end-review"))  # the end-of-game panel offers it
        # the review is asked for at once, made by the server's bot pool, then drawn
        page.wait_for_selector("#review-graph", timeout=120_000)
        assert page.locator("#review-graph polyline.estimate").count() == 1
        marks = page.locator("#review-graph circle.mark")
        assert marks.count() >= 1
        assert page.locator("#review-summary li[data-phase]").count() == 3
        assert "VP" in page.inner_text("#review-total")
        assert page.locator("#review-rating").count() == 1
        mistakes = page.locator("#review-mistakes a")
        assert mistakes.count() == marks.count()
        client.screenshot(shots, "review-graph")
        # a mistake opened: the replay goes there, the two boards side by side
        first = mistakes.first
        index = int(first.get_attribute("data-index") or "-1")
        words = first.inner_text()
        client.press(first)
        page.wait_for_selector("#review-played .review-board svg")
        page.wait_for_selector("#review-suggested .review-board svg")
        assert page.input_value("#replay-slider") == str(index + 1)
        played = page.inner_text("#review-played figcaption")
        suggested = page.inner_text("#review-suggested figcaption")
        assert played.split(": ", 1)[1] in words and played != suggested
        assert "VP" in page.inner_text("#review-compare h3")
        client.screenshot(shots, "review-mistake")
        # a mark on the graph opens its move too, from the keyboard
        page.locator("#review-close").click()
        assert page.locator("#review-played").count() == 0
        marks.last.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#review-suggested .review-board svg")
        assert client.errors == []
    finally:
        client.close()
