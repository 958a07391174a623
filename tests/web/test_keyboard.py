"""Keyboard-only play (issue 37): a whole Café round and a whole Coffee Rush turn (with the
set-up before it) played with Tab, the arrow keys, Enter, R and Escape only — no mouse, no
taps — from the first page's "Play now" button on. After each move the focus stays on the
board (the same square or cell, or the next thing to do), the focus is visible, and every
control reached has an accessible name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess
from tests.web.ui import Client

pytestmark = pytest.mark.server

DESKTOP = (1400, 900)


def focused(page: Any, selector: str) -> bool:
    return bool(
        page.evaluate(
            "([s]) => !!document.activeElement && document.activeElement.matches(s)", [selector]
        )
    )


def tab_to(page: Any, selector: str, limit: int = 250) -> None:
    """Press Tab until the focus is on an element matching `selector`."""
    for _ in range(limit):
        if focused(page, selector):
            return
        page.keyboard.press("Tab")
    trail = []
    for _ in range(30):
        page.keyboard.press("Tab")
        trail.append(page.evaluate("() => document.activeElement.outerHTML.slice(0, 90)"))
    raise AssertionError(f"Tab never reached {selector}: {trail}")


def named(page: Any) -> str:
    """The focused element's accessible name (its label, else its text)."""
    name = page.evaluate(
        "() => { const e = document.activeElement;"
        " return (e.getAttribute('aria-label') || e.textContent || '').trim(); }"
    )
    assert name, page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
    return str(name)


def play_now(client: Client, game: str) -> None:
    page = client.page
    client.goto("#/")
    page.wait_for_selector(f"[data-play-now='{game}']")
    tab_to(page, f"[data-play-now='{game}']")
    page.keyboard.press("Enter")
    page.wait_for_selector("#table-page[data-legal]", timeout=30_000)


def test_a_cafe_round_by_keyboard(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    c = Client(browser, server, DESKTOP)
    page = c.page
    try:
        play_now(c, "cafe")
        # the draft: Tab to a card's button, Enter takes it
        page.wait_for_selector("#draft [data-action]", timeout=30_000)
        tab_to(page, "#draft [data-action]")
        assert named(page)
        before = c.version
        page.keyboard.press("Enter")
        c.wait_change(before)

        # the placement: the area takes the focus; arrows move the card, R turns it
        page.wait_for_selector(".area-svg.placing", timeout=60_000)
        tab_to(page, ".area-svg.placing")
        assert "Enter" in named(page)
        page.wait_for_selector(".preview-frame")
        x0 = page.get_attribute(".preview-frame", "x")
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([x]) => document.querySelector('.preview-frame').getAttribute('x') !== x", arg=[x0]
        )
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(
            "([x]) => document.querySelector('.preview-frame').getAttribute('x') === x", arg=[x0]
        )
        box = page.get_attribute(".hand-card svg", "viewBox")
        page.keyboard.press("r")
        page.wait_for_function(
            "([b]) => document.querySelector('.hand-card svg').getAttribute('viewBox') !== b",
            arg=[box],
        )
        assert focused(page, ".area-svg.placing"), "turning the card keeps the focus on the area"
        outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", "the focus is visible"
        for _ in range(3):
            page.keyboard.press("r")  # all the way round, back to the first good spot
        page.wait_for_function(
            "([b]) => document.querySelector('.hand-card svg').getAttribute('viewBox') === b",
            arg=[box],
        )
        c.screenshot(artifacts, "keyboard-cafe-place", full_page=False)
        page.keyboard.press("Enter")  # fixes the spot
        page.wait_for_selector("#confirm-place")
        assert focused(page, ".area-svg.placing")
        before = c.version
        page.keyboard.press("Enter")  # confirms
        c.wait_change(before)

        # the actions: Tab (or arrows) to a highlighted cell, Enter opens its menu, the arrows
        # go through it, Enter plays; at the end, End my turn
        page.wait_for_selector("#end-turn", timeout=60_000)
        played = 0
        menus = 0
        for _ in range(14):
            if page.locator("#end-turn.primary").count():
                break  # no action points left
            if page.locator("[data-area] .cell.pick").count():
                tab_to(page, "[data-area] .cell.pick")
                before = c.version
                page.keyboard.press("Enter")
                c.wait_change(before)
                played += 1
                continue
            if not page.locator("[data-area] .cell.clickable").count():
                break
            tab_to(page, "[data-area] .cell.clickable")
            assert named(page)
            if page.locator("[data-area] .cell.clickable").count() > 1:
                here = page.evaluate("() => document.activeElement.dataset.cell")
                for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
                    page.keyboard.press(key)
                    if page.evaluate("() => document.activeElement.dataset.cell") != here:
                        break
                assert focused(page, "[data-area] .cell.clickable")
            page.keyboard.press("Enter")
            page.wait_for_selector("#action-menu")
            menus += 1
            assert focused(page, "#action-menu button")
            items = page.locator("#action-menu [data-action]")
            actions = [
                items.nth(i).get_attribute("data-action") or "" for i in range(items.count())
            ]
            choice = next((i for i, a in enumerate(actions) if not a.startswith("clear")), 0)
            for _ in range(choice):
                page.keyboard.press("ArrowDown")
            assert page.evaluate("() => document.activeElement.dataset.action") == actions[choice]
            if menus == 1:
                c.screenshot(artifacts, "keyboard-cafe-menu", full_page=False)
                page.keyboard.press("Escape")  # closes it, back on the cell
                page.wait_for_selector("#action-menu", state="detached")
                assert focused(page, "[data-area] .cell.clickable")
                page.keyboard.press("Enter")
                page.wait_for_selector("#action-menu")
                for _ in range(choice):
                    page.keyboard.press("ArrowDown")
            before = c.version
            page.keyboard.press("Enter")
            if actions[choice].endswith("from ?"):
                page.wait_for_selector("[data-area] .cell.pick")
                continue
            c.wait_change(before)
            played += 1
        assert played >= 1, "at least one action was played by keyboard"
        if page.locator("#end-turn").count():
            tab_to(page, "#end-turn")
            assert named(page)
            before = c.version
            page.keyboard.press("Enter")  # a confirm() when action points are left: accepted
            c.wait_change(before)
        # (with no action point left and nothing free to do, the engine ends the turn itself)
        page.wait_for_function(
            "() => /\\b2\\b/.test(document.querySelector('#round').textContent)", timeout=60_000
        )
        log = page.locator(".log-line[data-seat='0']")
        assert log.count() >= 3, "the draft, the placement and the actions are in the log"
        assert not c.errors, c.errors
    finally:
        c.close()


def test_a_coffee_rush_turn_by_keyboard(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server, DESKTOP)
    page = c.page
    try:
        play_now(c, "coffee-rush")
        seen: set[str] = set()
        arrows_checked = False
        for _ in range(80):
            if page.locator(".log-line[data-seat='0'][data-action='end']").count():
                break
            try:
                page.wait_for_selector("#instruction.mine", timeout=30_000)
            except Exception:
                continue
            page.wait_for_timeout(150)
            before = c.version
            if page.locator("#rush-board .square.legal").count():
                tab_to(page, "#rush-board .square.legal")
                if not arrows_checked:
                    # the arrows walk the board; the focus is visible on a square
                    width = page.evaluate(
                        "() => getComputedStyle(document.activeElement.querySelector('.sq-bg')).strokeWidth"
                    )
                    assert width == "6px", width
                    start = page.evaluate("() => document.activeElement.dataset.square")
                    key = "ArrowRight" if start[0] != "d" else "ArrowLeft"
                    page.keyboard.press(key)
                    now = page.evaluate("() => document.activeElement.dataset.square")
                    assert now[1] == start[1] and abs(ord(now[0]) - ord(start[0])) == 1, (
                        start,
                        now,
                    )
                    arrows_checked = True
                    tab_to(page, "#rush-board .square.legal")
                assert named(page)
                seen.add("square")
                page.keyboard.press("Enter")
                c.wait_change(before)
            elif page.locator("#my-hand .chip.legal").count():
                tab_to(page, "#my-hand .chip.legal")
                page.keyboard.press("Enter")  # takes the token: the focus goes on to a cup
                page.wait_for_function(
                    "() => document.activeElement && document.activeElement.matches('.cup.legal')"
                )
                assert named(page)
                seen.add("pour")
                page.keyboard.press("Enter")
                c.wait_change(before)
            elif page.locator("[data-serve]").count():
                tab_to(page, "[data-serve]")
                seen.add("serve")
                page.keyboard.press("Enter")
                c.wait_change(before)
            elif page.locator("#rush-board .square.mover").count():
                tab_to(page, "#rush-board .square.mover")
                page.keyboard.press("Enter")  # picks the meeple: the focus goes to where it may go
                page.wait_for_function(
                    "() => document.activeElement && document.activeElement.matches('#rush-board .square.legal')"
                )
                seen.add("meeple")
            elif page.locator("#rush-stop").count():
                tab_to(page, "#rush-stop")
                page.keyboard.press("Enter")
                c.wait_change(before)
            elif page.locator("#rush-end").count():
                if "pour" in seen and "end-shot" not in seen:
                    c.screenshot(artifacts, "keyboard-rush-turn", full_page=False)
                    seen.add("end-shot")
                tab_to(page, "#rush-end")
                assert named(page)
                page.keyboard.press("Enter")  # a confirm() for tokens left in hand: accepted
                c.wait_change(before)
                seen.add("end")
        page.wait_for_selector(".log-line[data-seat='0'][data-action='end']")
        moves = page.locator(".log-line[data-seat='0']").evaluate_all(
            "ls => ls.map(l => l.dataset.action)"
        )
        assert any("-" in m and not m.startswith("place") for m in moves), moves  # walked
        assert any(m.startswith("pour") for m in moves), moves  # poured
        assert {"square", "pour", "end"} <= seen, seen
        assert arrows_checked
        assert not c.errors, c.errors
    finally:
        c.close()
