"""Consequences before confirming (issue 37), Coffee Rush: ending the turn with an order on
counter 4 says, before the click and in the warning colour, that it becomes a penalty card
(the Café placement's warning is in test_defects.py). Screenshot: rush-end-warning."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from tests.server.live import ServerProcess
from tests.web.ui import Client, rush_step, text_and_colour


def test_ending_a_turn_with_an_order_on_counter_4_warns_first(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        c.guest()
        c.create_table("coffee-rush", ["random"])
        c.start()
        page.wait_for_selector("#rush-board")
        rng = random.Random(11)
        deadline = time.monotonic() + 150
        doomed = ".rush-player.mine [data-counter-col='4'] .order"
        while True:
            assert time.monotonic() < deadline, "no order reached counter 4 on our End"
            assert not c.over(), "the game ended before an order reached counter 4"
            if c.my_turn() and page.locator("#rush-end").count():
                n = page.locator(doomed).count()
                if n:
                    break
                assert page.locator("#end-warning").count() == 0
            if page.locator("#rush-end").count() and not page.locator(doomed).count():
                # end the turn at once: orders age faster when nothing is served
                before = c.version
                page.click("#rush-end")
                c.wait_change(before)
            elif rush_step(c, rng) is None:
                page.wait_for_timeout(50)
        text, colour = text_and_colour(page, "#end-warning")
        assert "counter 4" in text and ("penalty card" in text), text
        assert f"−{n} point" in text, text
        assert colour == "rgb(179, 38, 30)", colour  # --danger
        assert "warn" in (page.get_attribute("#rush-end", "class") or "")
        assert page.get_attribute("#rush-end", "aria-describedby") == "end-warning"
        assert page.locator(f"{doomed}.doomed").count() == n
        c.screenshot(artifacts, "rush-end-warning", full_page=False)
        # ending the turn puts them on the penalty pile, as said
        before_pen = int(page.inner_text(".rush-player.mine [data-stat=penalties]").split()[-1])
        before = c.version
        page.click("#rush-end")
        c.wait_change(before)
        page.wait_for_function(
            "(want) => Number(document.querySelector("
            "'.rush-player.mine [data-stat=penalties]').textContent.split(' ').pop()) >= want",
            arg=before_pen + n,
        )
        assert not c.errors, c.errors
    finally:
        c.close()
