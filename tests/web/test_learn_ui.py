"""Learning the games in the browser: the first page's buttons (a tutorial, a game against a
bot, both without a form), How to play in four languages with drawn pictures, and each
game's interactive tutorial played through, with a deliberate wrong move explained and not
sent. Screenshots (desktop 1400x900, phone 390x844) go to tests/web/artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess
from tests.web.ui import Client, click_center

pytestmark = pytest.mark.server

DESKTOP = (1400, 900)
PHONE = (390, 844)
LANGUAGES = ["en", "pt", "ru", "uk"]


def _lang(client: Client, code: str) -> None:
    client.goto("#/")
    client.page.evaluate(f"localStorage.setItem('coffeetable.lang', '{code}')")


def _step(page: Any, step: str, timeout: float = 60_000) -> None:
    page.wait_for_selector(f"#tutorial-text[data-step='{step}']", timeout=timeout)
    text = page.inner_text("#tutorial")
    assert "tut." not in text and "tutorial." not in text, text  # every text is there


def _menu(page: Any, kind: str) -> None:
    """Open the menu of a cell the tutorial points at, and choose its first `kind` item."""
    page.locator(".area-card.mine .tut-target[data-cell]").first.click()
    page.locator(f"#action-menu [data-action^='{kind}']").first.click()
    if page.locator("#cancel-pick").count():
        page.locator(".area-card.mine .cell.pick").first.click()


def test_first_page_buttons_need_no_form(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    for game in ["cafe", "coffee-rush"]:
        client = Client(browser, server, DESKTOP)
        try:
            client.goto("#/")
            client.page.wait_for_selector(f"[data-intro='{game}'] [data-play-now]")
            intro = client.page.locator(f"[data-intro='{game}']")
            assert intro.locator(".intro-line").count() == 2
            if game == "cafe":
                client.screenshot(artifacts, "learn-lobby")
            intro.locator(f"[data-play-now='{game}']").click()
            client.page.wait_for_selector("#table-page[data-legal]", timeout=30_000)
            assert client.page.locator("#me-name").count() == 1  # a guest, without a form
            assert client.page.locator("#table-status.running").count() == 1
            assert client.page.locator(".tag.bot").count() >= 1
            assert client.page.locator("#help-link").get_attribute("href") == f"#/help/{game}"
            client.goto("#/")
            client.page.reload()
            client.page.locator(f"[data-tutorial='{game}']").click()
            try:
                client.page.wait_for_selector("#tutorial-text[data-step='welcome']", timeout=30_000)
            except Exception:
                client.screenshot(artifacts, "debug-tutorial")
                raise AssertionError(f"{client.page.url} {client.errors}") from None
            assert client.page.locator("#table-status.running").count() == 1
            assert not client.errors, client.errors
        finally:
            client.close()
    phone = Client(browser, server, PHONE)
    try:
        phone.goto("#/")
        phone.page.wait_for_selector("[data-intro='coffee-rush'] [data-tutorial]")
        phone.screenshot(artifacts, "learn-lobby-phone")
    finally:
        phone.close()


@pytest.mark.parametrize("game", ["cafe", "coffee-rush"])
def test_how_to_play_in_four_languages(
    browser: Any, server: ServerProcess, artifacts: Path, game: str
) -> None:
    sections = {
        "cafe": ["goal", "area", "round", "actions", "scoring", "legend", "keys"],
        "coffee-rush": [
            "goal",
            "board",
            "player",
            "turn",
            "end",
            "scoring",
            "legend",
            "upgrades",
            "keys",
        ],
    }[game]
    titles: dict[str, str] = {}
    for code in LANGUAGES:
        client = Client(browser, server, DESKTOP if code != "ru" else PHONE)
        try:
            _lang(client, code)
            client.goto(f"#/help/{game}")
            client.page.reload()
            page = client.page
            page.wait_for_selector(
                ".help-section[data-section='legend'] .legend-item svg, .help-section[data-section='legend'] .legend-piece"
            )
            for name in sections:
                assert page.locator(f".help-section[data-section='{name}'] > h2").count() == 1, name
            # pictures drawn by the table's renderers, not images
            assert page.locator(".help-figure svg").count() >= 1
            assert page.locator("img").count() == 1  # only the logo
            legend = page.locator(".legend-item")
            assert legend.count() >= 14
            assert (
                page.locator(
                    ".legend-item .legend-pic svg, .legend-item .legend-pic .legend-piece"
                ).count()
                >= 12
            )
            text = page.inner_text("#help-page")
            assert "help." not in text and "intro." not in text, text[:500]
            titles[code] = page.inner_text(".help-head h1")
            client.screenshot(artifacts, f"help-{game}-{code}")
            assert not client.errors, client.errors
        finally:
            client.close()
    assert len(set(titles.values())) == 4, titles  # four languages, four titles


def test_cafe_tutorial(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    client = Client(browser, server, DESKTOP)
    page = client.page
    try:
        client.goto("#/")
        page.click("[data-tutorial='cafe']")
        _step(page, "welcome")
        client.screenshot(artifacts, "tutorial-cafe-welcome", full_page=False)
        page.click("#tutorial-next")
        _step(page, "draft")
        assert page.locator(".tut-target[data-action^='take P23 pay']").count() == 4
        # a wrong move: explained, not sent
        before = client.version
        page.click("[data-action='take P20']")
        page.wait_for_selector("#tutorial-wrong")
        assert "cup" in page.inner_text("#tutorial-wrong")
        client.screenshot(artifacts, "tutorial-cafe-wrong", full_page=False)
        page.wait_for_timeout(300)
        assert client.version == before
        page.click("[data-action='take P23 pay G']")
        _step(page, "place")
        click_center(page, page.locator(".spot[data-spot='-1,2']"))
        before = client.version
        page.click("#confirm-place")
        _step(page, "ap")
        page.click("#tutorial-next")
        _step(page, "produce")
        client.wait_change(before)  # the tutorial moves on when the move is sent, not played
        assert client.version > before
        before = client.version
        page.click("#end-turn")  # ending with 2 AP left: explained, not sent
        page.wait_for_selector("#tutorial-wrong")
        assert "AP" in page.inner_text("#tutorial-wrong")
        page.wait_for_timeout(300)
        assert client.version == before
        client.screenshot(artifacts, "tutorial-cafe-produce", full_page=False)
        _menu(page, "produce")
        _step(page, "dry")
        _menu(page, "dry")
        _step(page, "draft2", timeout=90_000)
        # round 2 on the tutorial deal: the bot takes P46 first, P25 (a cup, a ship, a dryer
        # and the Lisbon 1782 shop) is left; placed below the area it keeps the dried cube
        page.click("[data-action='take P25 pay Y']")
        _step(page, "place2")
        click_center(page, page.locator(".spot[data-spot='1,2']"))
        page.click("#confirm-place")
        done: list[str] = []
        for _ in range(4):
            page.wait_for_selector(
                "#tutorial-text[data-step='roast'], #tutorial-text[data-step='deliver'],"
                " #tutorial-text[data-step='shops']"
            )
            step = str(page.get_attribute("#tutorial-text", "data-step"))
            if step == "shops":
                break
            _menu(page, step)
            done.append(step)
            page.wait_for_function(
                f"document.querySelector('#tutorial-text').dataset.step !== '{step}'"
            )
        assert done == ["roast", "deliver"], done
        _step(page, "shops")
        page.click("#tutorial-next")
        _step(page, "warehouse")
        client.screenshot(artifacts, "tutorial-cafe-warehouse", full_page=False)
        page.click("#tutorial-next")
        _step(page, "done")
        page.click("#tutorial-finish")
        page.wait_for_selector("#tutorial-done")
        assert not client.errors, client.errors
    finally:
        client.close()


def test_coffee_rush_tutorial(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    client = Client(browser, server, DESKTOP)
    page = client.page
    try:
        client.goto("#/")
        page.click("[data-tutorial='coffee-rush']")
        _step(page, "welcome")
        page.click("#tutorial-next")
        _step(page, "place1")
        page.wait_for_selector("[data-square='a2'].legal")  # the bot has placed its first meeple
        before = client.version
        page.click("[data-square='a2']")  # a wrong square: explained, not sent
        page.wait_for_selector("#tutorial-wrong")
        assert "b1" in page.inner_text("#tutorial-wrong")
        page.wait_for_timeout(300)
        assert client.version == before
        page.click("[data-square='b1']")
        _step(page, "place2")
        page.wait_for_selector("[data-square='d1'].legal")
        page.click("[data-square='d1']")
        _step(page, "setup_pour")
        for _ in range(2):
            page.locator("#my-hand .chip.legal").first.click()
            page.click(".cup[data-seat='0'][data-cup='1']")
            page.wait_for_timeout(300)
        _step(page, "move1")
        page.wait_for_selector("[data-square='b1'].mover")
        page.click("[data-square='b1']")
        page.click("[data-square='b2']")
        _step(page, "move2")
        page.click("[data-square='c2']")
        _step(page, "stop")
        client.screenshot(artifacts, "tutorial-rush-stop", full_page=False)
        page.click("#rush-stop")
        _step(page, "pour_ice")
        before = client.version
        # the ice is in the hand while the meeple moves; it is pourable once the stop's update
        # is in (the tutorial moved on when the stop was sent), and a click before is not a pick
        page.click("#my-hand .chip.legal[data-ing='ice']")
        page.click(".cup[data-seat='0'][data-cup='1']")
        _step(page, "pour_milk")  # the tutorial moves on when the move is sent, not played
        client.wait_change(before)
        assert client.version > before
        before = client.version
        page.click("#my-hand .chip.legal[data-ing='milk']")
        page.click(".cup[data-seat='0'][data-cup='1']")  # spoils the drink: explained, not sent
        page.wait_for_selector("#tutorial-wrong")
        client.screenshot(artifacts, "tutorial-rush-wrong", full_page=False)
        page.wait_for_timeout(300)
        assert client.version == before
        page.click("#my-hand .chip.legal[data-ing='milk']")
        page.click(".cup[data-seat='0'][data-cup='2']")
        _step(page, "serve")
        page.click("[data-serve^='serve 1 1 ']")
        _step(page, "end")
        page.click("#rush-end")
        for step in ["time", "penalties", "rush", "upgrades", "ending"]:
            _step(page, step)
            page.click("#tutorial-next")
        _step(page, "done")
        page.click("#tutorial-finish")
        page.wait_for_selector("#tutorial-done")
        assert page.locator("[data-stat='completed']").first.inner_text().endswith("1")
        assert not client.errors, client.errors
    finally:
        client.close()
    phone = Client(browser, server, PHONE)
    try:
        phone.goto("#/")
        phone.page.click("[data-tutorial='coffee-rush']")
        _step(phone.page, "welcome")
        phone.page.click("#tutorial-next")
        _step(phone.page, "place1")
        phone.screenshot(artifacts, "tutorial-rush-phone", full_page=False)
        assert not phone.errors, phone.errors
    finally:
        phone.close()
