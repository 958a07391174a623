"""The log in player words (issue 37): lines grouped by round (Café) and turn (Coffee Rush),
a player's deliveries to the warehouse in a row merged into one line, Café cards drawn instead
of named by id, and a line that points at the cells it names when hovered or tapped.
Screenshot: cafe-log."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from pathlib import Path
from typing import Any

from coffeetable import find_game
from tests.server.live import Player, ServerProcess, play_out
from tests.web.test_defects import played_from_python
from tests.web.test_shell_ui import random_record
from tests.web.ui import Client, cafe_step, hold_busy_until_finished

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
        marked = "document.querySelectorAll('.area-svg .cell.log-marked').length === "
        page.wait_for_function(marked + "6", timeout=5000)
        # the log redrawn under a pointer that has not moved (as every update redraws it; here
        # a change of palette, which moves no line) keeps pointing at the line under it: the
        # new line is found by the layout, not by `:hover`, which the browser matches on the
        # new lines only at its next hover update
        # A bot's move may shift the log under the resting pointer before this check (the
        # players' box above it can change height); the page then rightly marks the line now
        # under the pointer. So the pointer is put back on the line's centre first, in the
        # same synchronous step as the redraw, where no update can come between
        redrawn = page.evaluate(
            """async () => {
              const { setPalette } = await import('/js/a11y.js');
              const line = () => document.querySelector("#log-lines li.log-line[data-action^='place']");
              const before = line();
              const box = before.getBoundingClientRect();
              before.dispatchEvent(new PointerEvent("pointermove", { bubbles: true,
                clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 }));
              setPalette('safe');
              const again = line() !== before;
              const cells = document.querySelectorAll('.area-svg .cell.log-marked').length;
              setPalette('standard');
              // the pointer leaves the log: the line drawn anew under it never saw the pointer
              // come in (no mouseenter), so it sees none leave either; the log itself does
              document.querySelector('#game-log').dispatchEvent(new PointerEvent('pointerleave'));
              const left = document.querySelectorAll('.area-svg .cell.log-marked').length;
              return [again, cells, left];
            }"""
        )
        # drawn again, still the card's six cells; none once the pointer has left the log (they
        # stayed marked in CI: a redraw came between the hover and the pointer's leaving)
        assert redrawn == [True, 6, 0], redrawn
        # (not checked again here: the bot's next move may shift the log under the pointer)
        page.mouse.move(5, 5)
        page.wait_for_function(marked + "0", timeout=5000)
        # a line focused from the keyboard keeps the focus, and its cells stay marked, when
        # the log is redrawn (the focused element itself is replaced)
        placed.focus()
        page.wait_for_function(marked + "6", timeout=5000)
        focused = page.evaluate(
            """async () => {
              const { setPalette } = await import('/js/a11y.js');
              const before = document.activeElement;
              setPalette('safe');
              const now = document.activeElement;
              const cells = document.querySelectorAll('.area-svg .cell.log-marked').length;
              setPalette('standard');
              return [now !== before, now.matches('li.log-line'),
                      now.dataset.version === before.dataset.version, cells];
            }"""
        )
        assert focused == [True, True, True, 6], focused  # a new line, the same one, marked
        page.evaluate("document.activeElement.blur()")
        page.wait_for_function(marked + "0", timeout=5000)
        # a tap (click) pins it; a second one lets go
        placed.click()
        page.mouse.move(5, 5)
        page.wait_for_function(marked + "6", timeout=5000)
        # scrolled in one step of the page's own script: the bot's moves redraw the log, so a
        # line found by Playwright may be replaced before its scroll (it then fails as detached)
        page.evaluate(
            "document.querySelector(\"#log-lines li.log-line[data-action^='place']\")"
            ".scrollIntoView({block: 'nearest'})"
        )
        c.screenshot(artifacts, "cafe-log", full_page=False)
        page.locator("#log-lines li.log-line[data-action^='place']").first.click()
        page.mouse.move(5, 5)
        page.wait_for_function(marked + "0", timeout=5000)
        assert not c.errors, c.errors
    finally:
        c.close()


def _expected_summaries(record: dict[str, Any]) -> list[list[int]]:
    """Each round's (Café) or turn cycle's (Coffee Rush) score change per seat, worked out
    by replaying the record in the engine."""
    game = find_game(record["game"])
    seats = len(record["seats"])
    state = game.new_initial_state(seats, record["seed"], record["options"])
    totals = lambda: [s.total for s in state.scores()]  # noqa: E731
    actions = record["actions"]
    out: list[list[int]] = []
    start = totals()
    for i, (seat, text) in enumerate(actions):
        round_before = getattr(state, "round", None)
        state.apply(seat, game.parse_action(text))
        last = i == len(actions) - 1
        if record["game"] == "cafe":
            ends = last or state.round != round_before
        elif text.startswith("place "):
            start = totals()  # the set-up changes no score and is no turn
            continue
        else:
            ends = last or actions[i + 1][0] < seat
        if ends:
            now = totals()
            out.append([a - b for a, b in zip(now, start, strict=True)])
            start = now
    return out


def test_round_summaries_and_positions_in_words(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    uploader = Player(server)
    assert uploader.register("summaries").status_code == 200
    c = Client(browser, server, viewport=(1400, 900))
    page = c.page
    try:
        for game, seats, seed in (("cafe", 2, 9), ("coffee-rush", 2, 5)):
            record = random_record(game, seats, seed)
            r = uploader.http.post("/api/records", content=json.dumps(record))
            assert r.status_code == 201, r.text
            c.goto(f"#/table/{r.json()['id']}")
            page.wait_for_selector("#log-lines .log-line")
            page.wait_for_selector("#end-close")
            page.click("#end-close")
            shown = page.evaluate(
                """() => [...document.querySelectorAll('.round-summary')].map((box) => ({
                  n: Number(box.dataset.summary),
                  gains: [...box.querySelectorAll('.summary-line')].map((li) => Number(li.dataset.gain)),
                  totals: [...box.querySelectorAll('.summary-line')].map((li) => Number(li.dataset.total)),
                  text: box.innerText,
                }))"""
            )
            expected = _expected_summaries(record)
            assert [s["gains"] for s in shown] == expected, game
            assert [s["n"] for s in shown] == list(range(1, len(expected) + 1))
            assert any(any(g) for g in expected), "no score changed: the check could not fail"
            final = [s["total"] for s in record["result"]["scores"]]
            assert shown[-1]["totals"] == final
            # the words: "+2 points (now 5)", "−1 point", "no change"
            for s in shown:
                for gain, total in zip(s["gains"], s["totals"], strict=True):
                    if gain > 0:
                        word = "point" if gain == 1 else "points"
                        assert f"+{gain} {word} (now {total})" in s["text"], s["text"]
                    elif gain < 0:
                        word = "point" if gain == -1 else "points"
                        assert f"−{-gain} {word} (now {total})" in s["text"], s["text"]
                    else:
                        assert f"no change (now {total})" in s["text"], s["text"]
            title = "End of round 1" if game == "cafe" else "After turn cycle 1"
            assert page.inner_text(".round-summary-title >> nth=0").startswith(title)
            if game == "cafe":
                # Café: the round's real number of rounds, and positions in words
                assert page.inner_text("#round") == "Round 8 of 8"
                texts = page.locator("#log-lines li.log-line").all_inner_texts()
                assert not [t for t in texts if re.search(r"-?\d+,-?\d+", t)], texts
                assert any(re.search(r"row \d+, column \d+", t) for t in texts), texts
                page.locator(".round-summary").first.scroll_into_view_if_needed()
                c.screenshot(artifacts, "log-round-summary", full_page=False)
                page.select_option("#lang", "ru")
                page.wait_for_function(
                    "document.querySelector('.round-summary-title').textContent.startsWith('Конец раунда 1')"
                )
                ru = page.locator("#log-lines li.log-line").all_inner_texts()
                assert not [t for t in ru if re.search(r"-?\d+,-?\d+", t)], ru
                assert any(re.search(r"ряд \d+, столбец \d+", t) for t in ru), ru
                assert page.inner_text("#round") == "Раунд 8 из 8"
                page.select_option("#lang", "en")
                page.wait_for_selector("text=End of round 1")
        assert not c.errors, c.errors
    finally:
        c.close()


def test_a_burst_of_moves_is_not_drawn_move_by_move(browser: Any, server: ServerProcess) -> None:
    """Moves that come while the page is busy (here held until the game is over, as a slow
    phone or a busy tab is) are taken in together: the board and the whole log are drawn for
    the last few only (those that motion would show), not once a move. It was once a move:
    ~100 moves of a Coffee Rush game kept the page busy 1.5-2.3 s after the last came
    (`tests/web/test_defects.py`'s rematch waited 21 s on a loaded machine)."""
    host, friend = Client(browser, server), Client(browser, server)
    try:
        tid, sockets = played_from_python(host, friend)
        # every drawing of the whole log from now on
        host.page.evaluate(
            """() => {
                window.__logDrawn = 0;
                new MutationObserver((records) => {
                    for (const r of records) {
                        for (const n of r.addedNodes) if (n.id === 'log-lines') window.__logDrawn += 1;
                    }
                }).observe(document.body, { childList: true, subtree: true });
            }"""
        )
        start = sockets[0].version
        game = threading.Thread(target=play_out, args=(sockets, random.Random(5)))
        game.start()
        # the page held busy until the game is over (asked with a synchronous request), and a
        # moment more for the last updates to arrive
        hold_busy_until_finished(host.page, tid)
        game.join(60)
        assert not game.is_alive()
        final = sockets[0].version
        for sock in sockets:
            sock.close()
        moves = final - start
        assert moves >= 40, moves
        host.page.wait_for_function(
            f"() => document.querySelector('#table-page').dataset.version === '{final}'"
        )
        host.page.wait_for_selector("#end-screen:not([hidden])")
        drawn = host.page.evaluate("window.__logDrawn")
        # the last MAX_QUEUE + 1 (9) are drawn each, as motion shows at most 8 waiting moves,
        # and a few more may come after the page is free again
        assert 1 <= drawn <= 9 + 4, (drawn, moves)
        # and what is drawn is every move: the same log as a page opened afresh draws
        caught_up = host.page.inner_text("#log-lines")
        host.page.reload()
        host.page.wait_for_selector("#end-screen:not([hidden])")
        assert host.page.inner_text("#log-lines") == caught_up
        assert not host.errors, host.errors
    finally:
        host.close()
        friend.close()
