"""Help where you stand (issue 37): every icon and counter on the table explains itself on
hover (a mouse), on focus (the keyboard) and on tap (a phone), in the player's language, with
How to play's own legend words (help/{lang}.json) or the access strings (i18n/access/); a tap
on an icon opens its tooltip and plays nothing, a second tap or a tap elsewhere closes it; a
long press on a square that plays a move shows its tooltip and plays nothing either."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess
from tests.web.test_keyboard import tab_to
from tests.web.ui import STATIC, Client

pytestmark = pytest.mark.server

JS = STATIC / "js"


def words(lang: str) -> dict[str, str]:
    """How to play's texts and the strings (with the access part), as the client reads them."""
    out: dict[str, str] = {}
    for path in (
        STATIC / "help" / f"{lang}.json",
        STATIC / "i18n" / f"{lang}.json",
        STATIC / "i18n" / "access" / f"{lang}.json",
    ):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def expected(lang: str, key: str) -> tuple[str, str]:
    w = words(lang)
    return w[f"{key}.title"], w[f"{key}.text"].replace("**", "")


def test_every_tooltip_key_the_code_uses_has_words_in_every_language() -> None:
    used: set[str] = set()
    for path in JS.glob("*.js"):
        used |= set(re.findall(r"\"((?:help|tip)\.[a-z_.-]+)\"", path.read_text(encoding="utf-8")))
    keys = {k for k in used if k.startswith("tip.") or ".legend." in k}
    assert len(keys) > 30, keys
    for lang in ("en", "pt", "ru", "uk"):
        w = words(lang)
        for key in keys:
            assert w.get(f"{key}.title") and w.get(f"{key}.text"), (lang, key)


def _lang(client: Client, code: str) -> None:
    client.goto("#/")
    client.page.evaluate(f"localStorage.setItem('coffeetable.lang', '{code}')")
    client.page.reload()
    client.page.wait_for_function("([c]) => document.documentElement.lang === c", arg=[code])


def _play_now(client: Client, game: str) -> None:
    client.goto("#/")
    client.page.locator(f"[data-play-now='{game}']").click()
    client.page.wait_for_selector("#table-page[data-legal]", timeout=30_000)
    client.page.wait_for_selector("#instruction")


def _hover_says(client: Client, locator: Any, lang: str) -> str:
    """Hover `locator`: the tooltip opens with the words of its key in `lang`."""
    page = client.page
    page.mouse.move(1, 1)
    if page.locator("#tip").count():
        page.wait_for_selector("#tip", state="hidden")
    locator.scroll_into_view_if_needed()
    locator.hover()
    page.wait_for_selector("#tip:not([hidden])")
    key = locator.get_attribute("data-tip")
    title, text = expected(lang, key)
    page.wait_for_function("([k]) => document.querySelector('#tip').dataset.for === k", arg=[key])
    shown = page.inner_text("#tip")
    assert title in shown and text in shown, (key, shown)
    head = locator.get_attribute("data-tip-head")
    if head:
        assert shown.startswith(head), (head, shown)
    return shown


#: what must explain itself on each table (every icon and counter)
CAFE_ICONS = [
    "#round",
    "#deck-size",
    "[data-supply]",
    ".score-now",
    "[data-area] .cell",
    ".wh-cubes span",
    "[data-warehouse] .row",
    ".draft-card .card-svg",
    ".draft-card .cost",
]
RUSH_ICONS = [
    "#start-token",
    "#deck-size",
    "#rush-supply",
    ".supply-item",
    "[data-square]",
    "[data-stat]",
    ".stat.score",
    ".cup",
    ".counter-no",
    ".order",
    ".upgrade",
    ".piles span",
]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_hovering_an_icon_explains_it(
    browser: Any, server: ServerProcess, artifacts: Path, lang: str
) -> None:
    c = Client(browser, server, (1400, 900))
    page = c.page
    try:
        _lang(c, lang)
        _play_now(c, "cafe")
        page.wait_for_selector("#draft [data-action]")
        for selector in CAFE_ICONS:
            # read at one moment: a bot's move may redraw the table between two reads
            tips = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.tip)")
            assert tips and all(tips), (selector, tips)
        _hover_says(c, page.locator("#round"), lang)
        cell = page.locator("[data-area='0'] .cell-cup").first
        shown = _hover_says(c, cell, lang)
        assert expected(lang, "help.cafe.legend.cup")[1] in shown
        _hover_says(c, page.locator("[data-warehouse='0'] .row").nth(1), lang)  # action points
        _hover_says(c, page.locator(".draft-card .card-svg").first, lang)
        c.screenshot(artifacts, f"tip-cafe-hover-{lang}", full_page=False)
        page.mouse.move(1, 1)
        page.wait_for_selector("#tip", state="hidden")

        _play_now(c, "coffee-rush")
        page.wait_for_selector("#rush-board .square.legal")
        for selector in RUSH_ICONS:
            # read at one moment: a bot's move may redraw the table between two reads
            tips = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.tip)")
            assert tips and all(tips), (selector, tips)
        _hover_says(c, page.locator("#start-token"), lang)
        _hover_says(c, page.locator("[data-player='0'] [data-stat='penalties']"), lang)
        _hover_says(c, page.locator("[data-player='0'] .counter-no").nth(3), lang)
        shown = _hover_says(c, page.locator("[data-square='b1']"), lang)  # caramel: a ribbon
        assert expected(lang, "help.rush.legend.ribbon")[0] in shown
        _hover_says(c, page.locator("[data-player='0'] .order").first, lang)
        _hover_says(c, page.locator("[data-player='0'] .upgrade").first, lang)
        c.screenshot(artifacts, f"tip-rush-hover-{lang}", full_page=False)
        # the keyboard: a focused square explains itself too
        page.mouse.move(1, 1)
        page.wait_for_selector("#tip", state="hidden")
        tab_to(page, "#rush-board .square.legal")
        page.wait_for_selector("#rush-board .square:focus[aria-describedby='tip']")
        assert page.locator("#tip:not([hidden])").count() == 1
        page.keyboard.press("Escape")
        page.wait_for_selector("#tip", state="hidden")
        assert not c.errors, c.errors
    finally:
        c.close()


def _long_press(client: Client, locator: Any, ms: int = 700) -> None:
    box = locator.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = client.context.new_cdp_session(client.page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    client.page.wait_for_timeout(ms)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_tapping_an_icon_explains_it_and_plays_nothing(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    phone = Client(browser, server, (390, 844), touch=True)
    page = phone.page
    try:
        _lang(phone, "pt")
        _play_now(phone, "coffee-rush")
        page.wait_for_selector("#rush-board .square.legal")
        page.wait_for_timeout(500)
        version = phone.version
        legal = page.get_attribute("#table-page", "data-legal")

        # a tap on a counter: its tooltip in Portuguese; a second tap closes it
        stat = page.locator("[data-player='0'] [data-stat='rush']")
        stat.tap()
        page.wait_for_selector("#tip:not([hidden])")
        title, text = expected("pt", "help.rush.legend.rush")
        assert title in page.inner_text("#tip") and text in page.inner_text("#tip")
        phone.screenshot(artifacts, "tip-rush-tap-pt", full_page=False)
        stat.tap()
        page.wait_for_selector("#tip", state="hidden")

        # a tap on the start token opens it, a tap elsewhere closes it
        page.locator("#start-token").tap()
        page.wait_for_selector("#tip:not([hidden])")
        assert expected("pt", "help.rush.legend.open")[1] in page.inner_text("#tip")
        page.locator(".table-head h1").tap()
        page.wait_for_selector("#tip", state="hidden")

        # a square nobody can go to: a tap explains it
        blocked = page.locator("#rush-board .square:not(.legal)").first
        blocked.tap()
        page.wait_for_selector("#tip:not([hidden])")
        assert blocked.get_attribute("data-tip-head").split(" ")[0] in page.inner_text("#tip")
        page.locator(".table-head h1").tap()
        page.wait_for_selector("#tip", state="hidden")

        # a long press on a square that plays a move: the tooltip, and no move
        square = page.locator("#rush-board .square.legal").first
        name = square.get_attribute("data-square")
        _long_press(phone, square)
        page.wait_for_selector("#tip:not([hidden])")
        assert page.inner_text("#tip").startswith(name)
        page.wait_for_timeout(800)
        assert phone.version == version, "a long press must not play a move"
        assert page.get_attribute("#table-page", "data-legal") == legal
        assert page.locator("#tip.pinned").count() == 1
        phone.screenshot(artifacts, "tip-rush-longpress-pt", full_page=False)
        page.locator(".table-head h1").tap()
        page.wait_for_selector("#tip", state="hidden")
        # and a plain tap on it still plays it, as before
        page.locator(f"#rush-board [data-square='{name}']").tap()
        phone.wait_change(version)
        assert phone.version > version

        # Café on the phone: a tap on a cell of the area explains it, in Portuguese
        _play_now(phone, "cafe")
        page.wait_for_selector("#draft [data-action]")
        version = phone.version
        cell = page.locator("[data-area='0'] .cell-cup").first
        cell.scroll_into_view_if_needed()
        cell.tap()
        page.wait_for_selector("#tip:not([hidden])")
        assert expected("pt", "help.cafe.legend.cup")[1] in page.inner_text("#tip")
        phone.screenshot(artifacts, "tip-cafe-tap-pt", full_page=False)
        page.locator("[data-warehouse='0'] strong").tap()
        page.wait_for_selector("#tip[data-for='tip.cafe.warehouse']:not([hidden])")
        assert expected("pt", "tip.cafe.warehouse")[1] in page.inner_text("#tip")
        assert phone.version == version
        assert not phone.errors, phone.errors
    finally:
        phone.close()
