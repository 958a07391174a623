"""Boards (issue 37): the other players' boards fit the space beside the player's own (no
sideways scrolling), any board opens large in a dialog (its Enlarge button), follows the game
while open, and closes with Escape, its Close button or a tap outside, on a desktop (1400×900)
and a phone (390×844, taps);
a replay uses the whole width of a wide screen. Screenshots: boards-desktop,
boards-enlarged-desktop, boards-enlarged-phone, boards-phone-ingredients, replay-wide."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from tests.server.live import Player, ServerProcess
from tests.web.test_shell_ui import random_record
from tests.web.ui import Client, rush_step

OPEN = "#board-zoom[open]"


def _width(page: Any, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["width"])


def test_others_boards_fit_and_any_board_opens_large_on_a_desktop(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        c.guest()
        c.create_table("cafe", ["greedy", "greedy", "greedy"])
        c.start()
        page.wait_for_selector(".area-card[data-seat='3'] .area-svg")
        # the three other areas share the width beside and below the player's own
        for seat in (1, 2, 3):
            card = f".area-card[data-seat='{seat}']"
            fits = page.evaluate(
                "(s) => { const box = document.querySelector(s + ' .area-scroll');"
                " const svg = box.querySelector('svg').getBoundingClientRect();"
                " return box.scrollWidth <= box.clientWidth + 1"
                " && svg.right <= document.querySelector(s).getBoundingClientRect().right + 1; }",
                card,
            )
            assert fits, card
        tops = {
            seat: page.locator(f".area-card[data-seat='{seat}']").bounding_box()["y"]  # type: ignore[index]
            for seat in (1, 2)
        }
        assert abs(tops[1] - tops[2]) < 2, "two others' boards side by side"
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400
        c.screenshot(artifacts, "boards-desktop", full_page=False)

        # our pick: the bots wait for it, so that no redraw takes the focus meanwhile
        page.wait_for_selector("#draft [data-action]", timeout=30_000)
        # another's board, enlarged: the same cells, larger; Escape closes it
        small = _width(page, ".area-card[data-seat='2'] .area-svg")
        cells = page.locator(".area-card[data-seat='2'] .area-svg .cell").count()
        page.click(".area-card[data-seat='2'] [data-enlarge]")
        page.wait_for_selector(OPEN)
        assert page.locator("#board-zoom-body .area-svg .cell").count() == cells
        assert _width(page, "#board-zoom-body .area-svg") > 1.4 * small
        assert page.locator("#board-zoom-body [id]").count() == 0  # a copy: no ids twice
        assert "Greedy bot" in page.inner_text("#board-zoom-title")
        c.screenshot(artifacts, "boards-enlarged-desktop", full_page=False)
        page.keyboard.press("Escape")
        page.wait_for_selector(OPEN, state="detached")
        # focus is back on the button that opened it
        assert page.evaluate("document.activeElement.dataset.enlarge") == "2"
        # the keyboard opens it too (the button is focused: Enter); the Close button closes it
        page.keyboard.press("Enter")
        page.wait_for_selector(OPEN)
        page.click("#board-zoom-close")
        page.wait_for_selector(OPEN, state="detached")
        # a click outside the board (on the backdrop) closes it; the player's own board too
        page.click(".area-card.mine [data-enlarge]")
        page.wait_for_selector(OPEN)
        assert "Guest" in page.inner_text("#board-zoom-title")
        page.mouse.click(8, 450)
        page.wait_for_selector(OPEN, state="detached")
        page.keyboard.press("Escape")
        assert not c.errors, c.errors
    finally:
        c.close()


def test_an_enlarged_board_follows_the_game(browser: Any, server: ServerProcess) -> None:
    """The dialog is drawn again at every update: another person (playing from Python) moves
    while it is open."""
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        c.guest()
        tid = c.create_table("coffee-rush", [None])
        friend = Player(server).guest()
        assert friend.post(f"/api/tables/{tid}/join").status_code == 200
        page.wait_for_selector("#start-game:not([disabled])")
        c.start()
        page.wait_for_selector("#rush-board")
        sock = friend.socket(tid)
        sock.recv()
        rng = random.Random(4)
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, "the friend never had a move"
            sock.drain(0.1)
            if sock.legal:
                break
            if rush_step(c, rng) is None:
                page.wait_for_timeout(50)
        page.click(".board-wrap [data-enlarge='board']")
        page.wait_for_selector(OPEN)
        before = page.locator("#board-zoom-body [data-meeple-seat='1']").count()
        page.evaluate(
            "window.__first = document.querySelector('#board-zoom-body').firstElementChild"
        )
        action = sock.legal[0]
        assert action.startswith("place "), action  # the set-up: meeples are placed first
        sock.act(action)
        page.wait_for_function(
            "document.querySelector('#board-zoom-body').firstElementChild !== window.__first"
        )
        assert page.locator(OPEN).count() == 1  # still open, drawn anew
        square = action.split()[1]
        placed = f"#board-zoom-body [data-square='{square}'] [data-meeple-seat='1']"
        assert page.locator(placed).count() == 1
        assert page.locator("#board-zoom-body [data-meeple-seat='1']").count() == before + 1
        sock.close()
        assert not c.errors, c.errors
    finally:
        c.close()


def test_boards_open_large_on_a_phone(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    phone = Client(browser, server, viewport=(390, 844), touch=True)
    page = phone.page
    try:
        phone.guest()
        phone.create_table("coffee-rush", ["greedy"])
        phone.start()
        page.wait_for_selector(".rush-player[data-player='1']")
        rng = random.Random(3)
        deadline = time.monotonic() + 30
        while phone.version < 4:
            assert time.monotonic() < deadline
            if rush_step(phone, rng) is None:
                page.wait_for_timeout(50)
        assert page.evaluate("document.documentElement.scrollWidth") <= 392
        # the other player's cups and counters, large, inside the screen; the Close button
        phone.press(".rush-player[data-player='1'] [data-enlarge]")
        page.wait_for_selector(OPEN)
        box = page.locator("#board-zoom").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert page.locator("#board-zoom-body .rush-player .cup").count() == 3
        phone.screenshot(artifacts, "boards-enlarged-phone", full_page=False)
        phone.press("#board-zoom-close")
        page.wait_for_selector(OPEN, state="detached")
        # the ingredient board, large; a tap outside closes it
        phone.press(".board-wrap [data-enlarge='board']")
        page.wait_for_selector(OPEN)
        assert page.locator("#board-zoom-body [data-square]").count() == 16
        assert _width(page, "#board-zoom-body svg") > 300
        phone.screenshot(artifacts, "boards-phone-ingredients", full_page=False)
        zoom = page.locator("#board-zoom").bounding_box()
        assert zoom is not None
        assert zoom["y"] > 20 or zoom["y"] + zoom["height"] < 824, "no room left to tap outside"
        spot = (195, 8) if zoom["y"] > 20 else (195, 836)
        page.touchscreen.tap(*spot)
        page.wait_for_selector(OPEN, state="detached")
        assert not phone.errors, phone.errors
    finally:
        phone.close()


def test_a_replay_uses_the_whole_width(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    uploader = Player(server)
    assert uploader.register("widereplay").status_code == 200
    record = random_record("cafe", 2, 9)
    r = uploader.http.post("/api/records", content=json.dumps(record))
    assert r.status_code == 201, r.text
    c = Client(browser, server, viewport=(1900, 1000))
    page = c.page
    try:
        c.goto(f"#/table/{r.json()['id']}")
        page.wait_for_selector("#open-replay")
        table_width = _width(page, "main")
        c.goto(f"#/replay/{r.json()['id']}")
        page.wait_for_selector("#replay-results")
        width = _width(page, "main")
        assert table_width <= 1500 and width >= 1900 - 40, (table_width, width)
        assert _width(page, "#board") > 0.7 * 1900 - 100
        c.screenshot(artifacts, "replay-wide", full_page=False)
        assert not c.errors, c.errors
    finally:
        c.close()
