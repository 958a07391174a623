"""Coffee Rush in the browser: two people play each other to the end while a third person
watches; one player reloads the page in the middle of the game."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.live import ServerProcess
from tests.web.ui import STATIC, Client, rush_step, shown_totals

pytestmark = pytest.mark.server


def log_lines(client: Client) -> list[str]:
    return [t.strip() for t in client.page.locator("#log-lines li.log-line").all_inner_texts()]


@pytest.mark.slow  # a whole game by clicks (~50 s): CI's slow pass
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


def test_undo_a_step_and_a_refused_undo(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    """Alice moves a meeple, takes the step back with the Undo button (the board is as
    before, the log line is gone) and plays it again; once her turn has ended, Ctrl+Z is
    refused with a translated message and nothing changes."""
    alice = Client(browser, server)
    bob = Client(browser, server)
    try:
        alice.guest()
        bob.guest()
        table_id = alice.create_table("coffee-rush", [None])
        bob.goto(f"#/table/{table_id}")
        bob.page.click("[data-take-seat='1']")
        alice.page.wait_for_selector("#start-game:not([disabled])")
        alice.start()
        for c in (alice, bob):
            c.page.wait_for_selector("#rush-board")
        page = alice.page
        rng = random.Random(3)
        deadline = time.monotonic() + 120
        # set-up (placements, set-up pours) until alice may move a meeple
        while not (alice.my_turn() and page.locator("#rush-board .square.mover").count()):
            assert time.monotonic() < deadline
            if rush_step(alice, rng) is None and rush_step(bob, rng) is None:
                page.wait_for_timeout(50)
        page.wait_for_timeout(200)
        assert page.locator("#undo-button").count() == 0
        board_before = page.inner_html("#rush")
        log_before = log_lines(alice)
        version = alice.version
        mover = page.locator("#rush-board .square.mover").first
        start = mover.get_attribute("data-square")
        mover.click()
        target = page.locator("#rush-board .square.legal").first
        to = target.get_attribute("data-square")
        target.click()
        alice.wait_change(version)
        page.wait_for_selector("#undo-button")
        board_after = page.inner_html("#rush")
        assert board_after != board_before
        last = page.locator("#log-lines li.log-line").last
        assert last.get_attribute("data-action") == f"{start}-{to}"
        alice.screenshot(artifacts, "rush-undo-offered")
        # undo: the board and the log are as before, and the button goes
        page.click("#undo-button")
        alice.wait_change(version + 1)
        page.wait_for_selector("#undo-button", state="detached")
        assert alice.version == version + 2
        assert page.inner_html("#rush") == board_before
        assert log_lines(alice) == log_before
        bob.page.wait_for_function(
            f"Number(document.querySelector('#table-page').dataset.version) >= {version + 2}"
        )
        assert log_lines(bob) == log_before
        # the same step can be played again
        page.click(f"#rush-board [data-square='{start}']")
        page.click(f"#rush-board [data-square='{to}']")
        alice.wait_change(version + 2)
        assert page.inner_html("#rush") == board_after
        # play on until alice's turn has ended (bob is to move and waits)
        while alice.my_turn():
            assert time.monotonic() < deadline
            rush_step(alice, rng)
        page.wait_for_timeout(300)
        assert page.locator("#undo-button").count() == 0
        ended, board_ended = alice.version, page.inner_html("#rush")
        page.select_option("#lang", "uk")
        # the board is drawn again in Ukrainian (its tooltips too) once the strings have come
        page.wait_for_function("document.documentElement.lang === 'uk'")
        page.wait_for_timeout(300)
        board_ended = page.inner_html("#rush")
        page.locator("#rush-board").click(position={"x": 2, "y": 2})
        page.keyboard.press("Control+z")
        uk = json.loads((STATIC / "i18n" / "uk.json").read_text("utf-8"))
        page.locator(".toast", has_text=uk["error.cannot_undo"]).wait_for()
        page.wait_for_timeout(300)
        assert alice.version == ended and page.inner_html("#rush") == board_ended
        alice.screenshot(artifacts, "rush-undo-refused")
        # the log is written in Ukrainian from the moves' keys: no line is the server's English
        server_log = httpx.get(f"{server.url}/api/tables/{table_id}/log", timeout=30).json()
        shown = log_lines(alice)
        assert len(shown) == len(server_log) > 5
        for line, entry in zip(shown, server_log, strict=True):
            assert line != entry["text"] and "log." not in line and "{" not in line, line
        for c in (alice, bob):
            assert not c.errors, c.errors
    finally:
        for c in (alice, bob):
            c.close()
