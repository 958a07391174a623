"""The log in player words (issue 37): lines grouped by round (Café) and turn (Coffee Rush),
a player's deliveries to the warehouse in a row merged into one line, Café cards drawn instead
of named by id, and a line that points at the cells it names when hovered or tapped.
Screenshot: cafe-log."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

from tests.server.live import ServerProcess
from tests.web.ui import Client, cafe_step

#: Café card ids as the server's English names them (P15, E3 ...)
CARD_ID = re.compile(r"\b[A-Z]\d{1,3}\b")


def test_grouping_and_merged_deliveries(browser: Any, server: ServerProcess) -> None:
    c = Client(browser, server)
    try:
        c.goto("#/")
        c.page.wait_for_selector("#create-table, #intro, main")
        out = c.page.evaluate(
            """async () => {
              const { groupLog, mergedSay } = await import('/js/logview.js');
              const { sayText } = await import('/js/say.js');
              const { setLanguage } = await import('/js/i18n.js');
              const wh = (v, seat, colour) => ({version: v, seat, action: 'deliver 0,1 > wh',
                say: {key: 'log.cafe.deliver_warehouse', params: {colour}}});
              const cafe = [
                {version: 1, seat: 0, action: 'take P1', say: {key: 'log.cafe.take'}},
                {version: 2, seat: 1, action: 'take P2', say: {key: 'log.cafe.take'}},
                wh(3, 0, 'Y'), wh(4, 0, 'R'), wh(5, 0, 'Y'), wh(6, 1, 'B'), wh(7, 0, 'G'),
                {version: 8, seat: 0, action: 'end', say: {key: 'log.cafe.end'}},
                {version: 9, seat: 1, action: 'take P3', say: {key: 'log.cafe.take'}},
              ];
              const groups = groupLog(cafe, 'cafe');
              const rush = groupLog([
                {version: 1, seat: 1, action: 'place c3'}, {version: 2, seat: 0, action: 'place a1'},
                {version: 3, seat: 0, action: 'a1-a2'}, {version: 4, seat: 0, action: 'end'},
                {version: 5, seat: 1, action: 'c3-c4'}, {version: 6, seat: 1, action: 'end'},
              ], 'coffee-rush');
              const merged = groups[0].lines[2].entries;
              const en = sayText(mergedSay(merged));
              await setLanguage('ru');
              const ru = sayText(mergedSay(merged));
              await setLanguage('en');
              return {
                cafe: groups.map((g) => [g.kind, g.lines.map((l) => l.entries.length)]),
                rush: rush.map((g) => [g.kind, g.seat, g.lines.length]),
                en, ru,
              };
            }"""
        )
        assert out["cafe"] == [["round", [1, 1, 3, 1, 1, 1]], ["round", [1]]]
        assert out["rush"] == [["setup", 1, 2], ["turn", 0, 2], ["turn", 1, 2]]
        assert out["en"] == "delivers 3 cubes to the warehouse: 2 yellow and 1 red"
        assert out["ru"].startswith("доставляет на склад 3 куба: 2 "), out["ru"]
    finally:
        c.close()


def test_cafe_log_in_player_words(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        c.guest()
        c.create_table("cafe", ["greedy"])
        c.start()
        page.wait_for_selector("#cafe")
        rng = random.Random(4)
        budget = {"actions": 0}
        deadline = time.monotonic() + 120
        while (
            "2" not in page.inner_text("#round")
            or not page.locator(".log-group:nth-child(2)").count()
        ):
            assert time.monotonic() < deadline, "round 2 did not come"
            if cafe_step(c, rng, budget) is None:
                page.wait_for_timeout(60)
        titles = page.locator(".log-group-title").all_inner_texts()
        assert titles[:2] == ["ROUND 1", "ROUND 2"] or titles[:2] == ["Round 1", "Round 2"]
        # cards are drawn, never named by id
        lines = page.locator("#log-lines li.log-line")
        texts = lines.all_inner_texts()
        takes = page.locator("#log-lines li.log-line[data-action^='take']")
        assert takes.count() >= 2 and takes.first.locator(".log-card svg").count() == 1
        assert not [t for t in texts if CARD_ID.search(t)], texts
        # a placement's line points at the six cells of the card in its player's area
        placed = page.locator("#log-lines li.log-line[data-action^='place']").first
        placed.hover()
        # the card's six cells (a bot's move redrawing the board meanwhile keeps them marked)
        page.wait_for_function(
            "document.querySelectorAll('.area-svg .cell.log-marked').length === 6", timeout=5000
        )
        marked = "document.querySelectorAll('.area-svg .cell.log-marked').length === "
        page.mouse.move(5, 5)
        page.wait_for_function(marked + "0", timeout=5000)
        # a tap (click) pins it; a second one lets go
        placed.click()
        page.mouse.move(5, 5)
        page.wait_for_function(marked + "6", timeout=5000)
        placed.scroll_into_view_if_needed()
        c.screenshot(artifacts, "cafe-log", full_page=False)
        page.locator("#log-lines li.log-line[data-action^='place']").first.click()
        page.mouse.move(5, 5)
        page.wait_for_function(marked + "0", timeout=5000)
        assert not c.errors, c.errors
    finally:
        c.close()
