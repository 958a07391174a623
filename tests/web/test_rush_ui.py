"""Coffee Rush in the browser: two people play each other to the end while a third person
watches; one player reloads the page in the middle of the game."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.live import ServerProcess
from tests.web.ui import Client, rush_step, shown_totals

pytestmark = pytest.mark.server


def log_lines(client: Client) -> list[str]:
    return [t.strip() for t in client.page.locator("#log-lines li").all_inner_texts()]


def test_two_players_play_to_the_end_and_a_spectator_sees_every_move(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    alice = Client(browser, server)
    bob = Client(browser, server)
    eve = Client(browser, server)
    try:
        alice_name = alice.sign_up()
        bob_name = bob.sign_up()
        table_id = alice.create_table("coffee-rush", [None], rated=True)
        # Bob finds the table in the lobby and joins it
        bob.goto("#/")
        bob.page.click(f"[data-join='{table_id}']")
        bob.page.wait_for_selector("#pregame")
        # Eve is not logged in: she watches
        eve.goto(f"#/table/{table_id}")
        eve.page.wait_for_selector("#pregame")
        alice.page.wait_for_selector("#start-game:not([disabled])")
        alice.screenshot(artifacts, "rush-pregame")
        alice.start()
        for c in (alice, bob, eve):
            c.page.wait_for_selector("#rush-board")
        assert eve.page.locator("#spectating").count() == 1
        assert eve.page.locator("#instruction.mine").count() == 0
        # no hints in a rated game
        assert alice.page.locator("#hint-button").count() == 0

        rng = random.Random(11)
        reloaded = False
        shots = 0
        deadline = time.monotonic() + 300
        while not (alice.over() and bob.over()):
            assert time.monotonic() < deadline, "the game did not end in time"
            moved = False
            for c in (alice, bob):
                if c.over():
                    continue
                done = rush_step(c, rng)
                moved = moved or done is not None
            if not reloaded and alice.version >= 24:
                version = bob.version
                bob.page.reload()
                bob.page.wait_for_selector("#rush-board")
                bob.page.wait_for_function(
                    f"Number(document.querySelector('#table-page').dataset.version) >= {version}"
                )
                # the game resumes where it was: the whole log is back
                assert len(log_lines(bob)) == bob.version
                reloaded = True
            if shots < 3 and alice.version in (6, 16, 30):
                shots += 1
                alice.screenshot(artifacts, f"rush-play-{shots}")
                eve.screenshot(artifacts, f"rush-spectator-{shots}")
            if not moved:
                alice.page.wait_for_timeout(50)
        assert reloaded
        eve.page.wait_for_selector("#score-table")
        alice.page.wait_for_selector("#score-table")
        alice.screenshot(artifacts, "rush-end", full_page=False)

        # the spectator saw every move, in order, as the server logged them
        server_log = httpx.get(f"{server.url}/api/tables/{table_id}/log", timeout=30).json()
        assert len(server_log) > 10
        assert log_lines(eve) == [entry["text"] for entry in server_log]
        assert shown_totals(eve.page) == shown_totals(alice.page) == shown_totals(bob.page)
        final = httpx.get(f"{server.url}/api/tables/{table_id}", timeout=30).json()
        assert final["status"] == "finished"
        totals = {i: s["total"] for i, s in enumerate(final["result"]["scores"])}
        assert shown_totals(eve.page) == totals
        # the rated game moved both ratings
        alice.goto("#/leaderboard/coffee-rush")
        alice.page.wait_for_selector("#leaders")
        board = alice.page.inner_text("#leaders")
        assert alice_name in board and bob_name in board
        alice.goto(f"#/profile/{alice_name}")
        alice.page.wait_for_selector("[data-rating='coffee-rush']")
        ratings = httpx.get(f"{server.url}/api/users/{alice_name}/ratings/coffee-rush").json()
        assert len(ratings["history"]) == 1
        shown = alice.page.inner_text("[data-rating='coffee-rush']")
        assert float(shown) == ratings["rating"] != 1500
        alice.screenshot(artifacts, "profile-after-rated-game")
        for c in (alice, bob, eve):
            assert not c.errors, c.errors
    finally:
        for c in (alice, bob, eve):
            c.close()
