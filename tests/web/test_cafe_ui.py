"""Café in the browser: a whole game against three bots played through the page, and an
illegal placement refused."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from coffeetable.core.record import GameRecord
from tests.server.live import ServerProcess
from tests.web.ui import Client, cafe_step, click_center, play_cafe_to_the_end, shown_totals

pytestmark = pytest.mark.server


@pytest.mark.slow  # a whole game by clicks (~40 s): CI's slow pass
def test_new_user_plays_a_whole_cafe_game_against_three_bots(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    me = Client(browser, server)
    try:
        name = me.sign_up()
        me.screenshot(artifacts, "lobby")
        table_id = me.create_table("cafe", ["random", "greedy", "random"])
        me.screenshot(artifacts, "cafe-pregame")
        me.start()
        page = me.page
        page.wait_for_selector("#cafe")
        rng = random.Random(7)
        budget = {"actions": 0}
        seen: set[str] = set()
        deadline = time.monotonic() + 240
        while not me.over():
            assert time.monotonic() < deadline, "the game did not end in time"
            done = cafe_step(me, rng, budget)
            if done is None:
                page.wait_for_timeout(50)
                continue
            if done not in seen and done in ("draft", "place", "action"):
                seen.add(done)
                me.screenshot(artifacts, f"cafe-after-{done}")
        assert {"draft", "place", "action"} <= seen
        page.wait_for_selector("#score-table")
        me.screenshot(artifacts, "cafe-end", full_page=False)

        shown = shown_totals(page)
        record = httpx.get(f"{server.url}/api/tables/{table_id}/record", timeout=30)
        assert record.status_code == 200
        game_record = GameRecord.from_json(record.json())
        assert game_record.seats[0] == name
        final = game_record.replay()
        assert final.is_over()
        expected = {seat: score.total for seat, score in enumerate(final.scores())}
        assert shown == expected
        # the winners are marked
        winners = set(final.winners())
        for seat in winners:
            assert page.locator(f"#score-table tr.winner[data-seat='{seat}']").count() == 1
        assert not me.errors, me.errors
    finally:
        me.close()


def test_an_illegal_placement_is_refused_and_changes_nothing(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    me = Client(browser, server)
    try:
        me.guest()
        table_id = me.create_table("cafe", ["random"])
        me.start()
        page = me.page
        page.wait_for_selector("#cafe")
        rng = random.Random(1)
        budget = {"actions": 0}
        deadline = time.monotonic() + 60
        while not page.locator("#rotate").count():
            assert time.monotonic() < deadline
            if me.my_turn() and page.locator("#draft [data-action]").count():
                cafe_step(me, rng, budget)
            page.wait_for_timeout(50)
        # the bot plays its round at the same time: let it finish first
        page.wait_for_function(
            "document.querySelectorAll('#players .player.to-move').length === 1", timeout=30_000
        )
        page.wait_for_timeout(300)
        before = httpx.get(f"{server.url}/api/tables/{table_id}").json()["version"]
        version_seen = me.version
        # far from the start card: the card would cover no visible cell
        area = page.locator("[data-area='0']")
        box = area.bounding_box()
        page.mouse.move(box["x"] + 8, box["y"] + 8)
        frame = page.locator(".preview-frame")
        assert frame.get_attribute("data-legal") == "no"
        assert "bad" in (page.get_attribute("#place-info", "class") or "")
        page.mouse.click(box["x"] + 8, box["y"] + 8)
        toast = page.locator(".toast").last
        toast.wait_for()
        assert "2, 3 or 4" in toast.inner_text()
        assert page.locator("#confirm-place").count() == 0
        me.screenshot(artifacts, "cafe-illegal-placement", full_page=False)
        page.wait_for_timeout(300)
        after = httpx.get(f"{server.url}/api/tables/{table_id}").json()["version"]
        assert after == before
        assert me.version == version_seen
        assert page.locator("#rotate").count() == 1  # still placing
        # a legal spot is accepted
        click_center(page, page.locator(".spot").first)
        page.click("#confirm-place")
        me.wait_change(version_seen)
        page.wait_for_function("!document.querySelector('#rotate')")
        assert not me.errors, me.errors
    finally:
        me.close()


def test_a_solo_game_ends_with_its_rating(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    me = Client(browser, server)
    try:
        me.guest()
        table_id = me.create_table("cafe", [])
        me.start()
        page = me.page
        page.wait_for_selector("#cafe")
        # zoom: the boards grow and the choice is kept
        page.click("#zoom-in")
        assert (
            page.evaluate(
                "getComputedStyle(document.querySelector('#table-page')).getPropertyValue('--zoom')"
            ).strip()
            == "1.1"
        )
        page.click("#zoom-out")
        play_cafe_to_the_end(me, 3, 120)
        page.wait_for_selector("#solo-label")
        final = GameRecord.from_json(
            httpx.get(f"{server.url}/api/tables/{table_id}/record", timeout=30).json()
        ).replay()
        (score,) = final.scores()
        assert score.label is not None
        labels = {
            "Bad": "Bad",
            "Average": "Average",
            "Good": "Good",
            "Very good": "Very good",
            "Incredible": "Incredible",
            "Seriously?": "Seriously?",
        }
        assert page.inner_text("#solo-label strong") == labels[score.label]
        assert shown_totals(page) == {0: score.total}
        me.screenshot(artifacts, "cafe-solo-end", full_page=False)
        assert not me.errors, me.errors
    finally:
        me.close()
