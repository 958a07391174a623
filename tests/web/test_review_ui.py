"""Game review in a real browser (Chromium through Playwright) against a real server: a
finished game reviewed from its table's "Review this game", the graph of the estimate drawn
with the mistakes marked, and a mistake opened: the board after the move made and after
the bot's move side by side. Screenshots go to tests/web/artifacts (or $COFFEETABLE_SHOTS)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, ServerProcess, finished_record
from tests.web.conftest import web_server
from tests.web.ui import Client, wait_held

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """One deal a reviewed move (a quick review)."""
    with web_server(tmp_path_factory.mktemp("web-review"), COFFEETABLE_REVIEW_SAMPLES="1") as proc:
        yield proc


def reviewed(browser: Any, server: ServerProcess) -> Client:
    """A browser on the review of a new finished game: a solo Café game of random moves
    (26 decisions, several of them mistakes), reviewed from its table's end-of-game panel
    (asked for at once, made by the server's bot pool, then drawn)."""
    ana = Player(server).guest()
    r = ana.http.post("/api/records", json=finished_record("cafe", ("Ana",), 31))
    assert r.status_code == 201, r.text
    table_id = r.json()["id"]
    client = Client(browser, server)
    client.context.add_cookies([{"name": SESSION_COOKIE, "value": ana.token, "url": server.url}])
    try:
        client.goto(f"#/table/{table_id}")
        client.press(client.page.locator("#end-review"))
        client.page.wait_for_selector("#review-graph", timeout=120_000)
    except BaseException:
        client.close()
        raise
    return client


def test_a_finished_game_reviewed_graph_drawn_mistake_opened(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    shots = Path(os.environ.get("COFFEETABLE_SHOTS") or artifacts)
    shots.mkdir(parents=True, exist_ok=True)
    client = reviewed(browser, server)
    page = client.page
    try:
        assert page.locator("#review-graph polyline.estimate").count() == 1
        marks = page.locator("#review-graph circle.mark")
        assert marks.count() >= 1
        assert page.locator("#review-summary li[data-phase]").count() == 3
        assert "VP" in page.inner_text("#review-total")
        assert page.locator("#review-rating").count() == 1
        mistakes = page.locator("#review-mistakes a")
        assert mistakes.count() == marks.count()
        client.screenshot(shots, "review-graph")
        # Café positions said in rows and columns of the board each move was made on, as in
        # the replay's log, never in the engine's coordinates ("at -1,2")
        page.wait_for_function(
            """() => [...document.querySelectorAll('#review-mistakes a')]
                .every((a) => !/-?\\d+,-?\\d+/.test(a.textContent))""",
            timeout=30_000,
        )
        texts = [mistakes.nth(i).inner_text() for i in range(mistakes.count())]
        assert any("row" in text for text in texts), texts
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


def test_the_last_mistake_opened_is_the_one_shown(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    """Two mistakes opened one after the other, the first's boards still on their way: the
    replay is at the second, and so must the boards be. The first's answer, when it comes
    late, is dropped (it used to be drawn over the second's, and its boards' renderers were
    never destroyed)."""
    client = reviewed(browser, server)
    page = client.page
    try:
        mistakes = page.locator("#review-mistakes a")
        assert mistakes.count() >= 2
        first, second = mistakes.first, mistakes.last
        indices = [int(m.get_attribute("data-index") or "-1") for m in (first, second)]
        held: list[Any] = []
        page.route(re.compile(rf"/review/moves/{indices[0]}\?"), lambda route: held.append(route))
        client.press(first)
        wait_held(page, held)  # the first mistake's boards asked for, and held
        client.press(second)
        page.wait_for_selector("#review-suggested .review-board svg")
        shown = page.inner_text("#review-compare h3")
        held[0].continue_()
        page.wait_for_timeout(1_000)  # the first's answer arrives, and is dropped
        assert page.inner_text("#review-compare h3") == shown
        assert page.input_value("#replay-slider") == str(indices[1] + 1)
        assert page.locator("#review-compare .review-board").count() == 2
        client.screenshot(Path(os.environ.get("COFFEETABLE_SHOTS") or artifacts), "review-race")
        assert client.errors == []
    finally:
        client.close()
