"""Motion (issue 37): another's move is shown moving (a bot's meeple walking, its ingredients
poured, Café cards and cubes travelling), while the page is already exactly the state the
server sent; the player's own moves are not animated; a key or a click skips to the end; with
`prefers-reduced-motion: reduce` nothing moves. Screenshots: motion-rush, motion-cafe."""

from __future__ import annotations

import contextlib
import random
import time
from pathlib import Path
from typing import Any

from tests.server.live import ServerProcess
from tests.web.ui import Client, cafe_step, rush_step

#: Records, every frame, the motion animations running (their ids), and whether the board's
#: DOM while a move is shown moving is what it was when that version was drawn (the same
#: version, no click or key since: a selection redraws the board too; the `aria-describedby`
#: a tooltip puts on the square under the pointer is not counted).
RECORDER = """() => {
  const m = window.__motion = { ids: [], frames: 0, pairs: [], first: null };
  const dirty = () => { if (m.first) m.first.dirty = true; };
  document.addEventListener('pointerdown', dirty, true);
  document.addEventListener('keydown', dirty, true);
  const tick = () => {
    const anims = document.getAnimations().filter((a) => String(a.id).startsWith('motion-'));
    const page = document.querySelector('#table-page');
    const board = document.querySelector('#board');
    const v = page && page.dataset.version;
    // a tooltip shown under the pointer (js/tips.js) names itself on its target: not a change
    const html = board ? board.innerHTML.replaceAll(' aria-describedby="tip"', '') : '';
    if (!m.first || m.first.v !== v) m.first = { v, html, dirty: false };
    if (anims.length) {
      m.frames += 1;
      for (const a of anims) if (!m.ids.includes(a.id)) m.ids.push(a.id);
      if (!m.first.dirty && m.pairs.length < 2000) m.pairs.push(m.first.html === html);
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

#: What the Coffee Rush board shows: each square's meeples, each player's cups, orders, piles.
WHERE = """() => ({
  squares: [...document.querySelectorAll('#rush-board [data-square]')].map((sq) =>
    sq.dataset.square + ':' + [...sq.querySelectorAll('[data-meeple-seat]')].map((m) => m.dataset.meepleSeat).join()),
  players: [...document.querySelectorAll('.rush-player')].map((p) => p.innerText),
})"""

#: Marks the motion animations running now and the copies on their way; true if there are any.
MARK = """() => {
  window.__marked = document.getAnimations().filter((a) => String(a.id).startsWith('motion-') && a.playState === 'running');
  for (const g of document.querySelectorAll('.motion-ghost')) g.dataset.marked = '1';
  return window.__marked.length > 0;
}"""
CUBES_RUNNING = (
    "document.getAnimations().some((a) => a.id === 'motion-cube' && a.playState === 'running')"
)
RUNNING = "document.getAnimations().filter((a) => String(a.id).startsWith('motion-')).length"


def _layer(page: Any, name: str) -> int:
    value = page.evaluate(f"document.querySelector('#motion-layer')?.dataset.{name} ?? '0'")
    return int(value)


def _rush_table(c: Client) -> None:
    c.guest()
    c.create_table("coffee-rush", ["greedy"])
    c.start()
    c.page.wait_for_selector("#rush-board")


def _play_until(c: Client, rng: random.Random, done: Any, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the bot's moves were not seen in time"
        assert not c.over(), "the game ended first"
        if rush_step(c, rng) is None:
            c.page.wait_for_timeout(40)


def test_a_bots_move_is_animated_and_ends_in_the_servers_state(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        _rush_table(c)
        page.evaluate(RECORDER)
        rng = random.Random(5)
        shot = {"taken": False}

        def walked() -> bool:
            ids = page.evaluate("window.__motion.ids")
            if "motion-walk" in ids and not shot["taken"] and page.evaluate(RUNNING):
                c.screenshot(artifacts, "motion-rush", full_page=False)
                shot["taken"] = True
            return "motion-walk" in ids and c.my_turn()

        _play_until(c, rng, walked)
        # the bot's turn has been shown; it ends, and the page is then what it was all along
        page.wait_for_function(f"{RUNNING} === 0 && !document.querySelector('.motion-ghost')")
        assert _layer(page, "played") >= 1
        version = c.version
        # while a move was shown moving, the board's DOM was what it is once nothing moves
        pairs = page.evaluate("window.__motion.pairs")
        assert pairs, "no animation was seen"
        assert all(pairs), "an animation changed the board's DOM"
        # and exactly what the server sends: a fresh page load draws the same board
        # (what is where; a selection of ours is not the server's state)
        shown = page.evaluate(WHERE)
        page.reload()
        page.wait_for_selector("#rush-board")
        page.wait_for_function(
            f"document.querySelector('#table-page').dataset.version === '{version}'"
        )
        assert page.evaluate(WHERE) == shown
        # our own moves are not animated
        page.evaluate(RECORDER)
        played = _layer(page, "played")
        steps = 0
        while c.my_turn() and steps < 3:
            what = rush_step(c, rng)
            if what in ("square", "serve", "pour"):
                steps += 1
                page.wait_for_timeout(150)
                if c.my_turn():
                    assert page.evaluate("window.__motion.frames") == 0, "our own move moved"
                    assert _layer(page, "played") == played
            if what in ("end", "stop", None):
                break
        assert steps, "no move of ours was made"
        assert not c.errors, c.errors
    finally:
        c.close()


def test_reduced_motion_moves_nothing(browser: Any, server: ServerProcess) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        page.emulate_media(reduced_motion="reduce")
        _rush_table(c)
        page.evaluate(RECORDER)
        rng = random.Random(6)
        bot_moves = {"n": 0}

        def bot_moved() -> bool:
            bot_moves["n"] = page.locator("#log-lines li.log-line[data-seat='1']").count()
            return bot_moves["n"] >= 4 and c.my_turn()

        _play_until(c, rng, bot_moved)
        page.wait_for_timeout(700)
        assert bot_moves["n"] >= 4
        assert page.evaluate("window.__motion.frames") == 0
        assert _layer(page, "played") == 0
        assert page.locator(".motion-ghost").count() == 0
        # the same page without the setting does animate (so the check above could fail)
        page.emulate_media(reduced_motion="no-preference")
        page.evaluate(RECORDER)
        _play_until(c, rng, lambda: "motion-walk" in page.evaluate("window.__motion.ids"))
        assert not c.errors, c.errors
    finally:
        c.close()


def test_a_key_or_a_click_skips_to_the_end(browser: Any, server: ServerProcess) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        _rush_table(c)
        page.evaluate(RECORDER)
        rng = random.Random(7)
        for skipped, how in enumerate(("key", "click"), start=1):
            deadline = time.monotonic() + 90
            while True:
                assert time.monotonic() < deadline, "no animation to skip"
                # the animations running now, and the copies travelling, are marked
                marked = page.evaluate(MARK)
                if marked:
                    break
                if rush_step(c, rng) is None:
                    with contextlib.suppress(Exception):
                        page.wait_for_function(f"{RUNNING} > 0", timeout=400, polling="raf")
            if how == "key":
                page.keyboard.press("x")
            else:
                page.mouse.click(5, 300)
            # at once: what was moving is at its end, and no copy of it is left
            assert page.evaluate(
                "window.__marked.every((a) => a.playState === 'finished' || a.playState === 'idle')"
                " && !document.querySelector('.motion-ghost[data-marked]')"
            )
            assert _layer(page, "skipped") >= skipped
        page.wait_for_function(f"{RUNNING} === 0 && !document.querySelector('.motion-ghost')")
        assert not c.errors, c.errors
    finally:
        c.close()


def test_cafe_cards_and_cubes_travel(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        c.guest()
        c.create_table("cafe", ["greedy"])
        c.start()
        page.wait_for_selector("#cafe")
        page.evaluate(RECORDER)
        rng = random.Random(8)
        budget = {"actions": 0}
        deadline = time.monotonic() + 150
        shot = False
        while not shot or not {"motion-card", "motion-cube"} <= set(
            page.evaluate("window.__motion.ids")
        ):
            assert time.monotonic() < deadline, page.evaluate("window.__motion.ids")
            if cafe_step(c, rng, budget) is None:
                page.wait_for_timeout(40)
            if not shot:
                try:
                    page.wait_for_function(CUBES_RUNNING, timeout=250, polling="raf")
                except Exception:  # no cube on its way just now
                    continue
                c.screenshot(artifacts, "motion-cafe", full_page=False)
                shot = True
        page.wait_for_function(f"{RUNNING} === 0 && !document.querySelector('.motion-ghost')")
        assert not c.errors, c.errors
    finally:
        c.close()
