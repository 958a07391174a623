"""What a player does in the browser, as helpers for the web tests: open the site, sign up,
create tables, and play moves by clicking what the page offers (never through the API)."""

from __future__ import annotations

import contextlib
import random
import secrets
import time
from pathlib import Path
from typing import Any

from tests.server.live import ServerProcess

#: The web client's files (src/coffeetable/web/static).
STATIC = Path(__file__).resolve().parents[2] / "src" / "coffeetable" / "web" / "static"


class Client:
    """One browser context (one person: own cookies, own language) and its page."""

    def __init__(
        self,
        browser: Any,
        server: ServerProcess,
        viewport: tuple[int, int] = (1280, 900),
        touch: bool = False,
        permissions: list[str] | None = None,
    ) -> None:
        self.server = server
        #: a phone: a touch screen (`pointer: coarse`), and every press in the helpers is a tap
        self.touch = touch
        # bypass_csp: Playwright's wait_for_function evaluates its predicate with eval, which
        # the server's Content-Security-Policy forbids; the pages themselves are checked
        # under that policy by tests/web/test_csp.py
        self.context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            has_touch=touch,
            is_mobile=touch,
            bypass_csp=True,
            permissions=permissions or [],
        )
        # every toast the page shows, kept (a toast goes after 5 s) for a failure's message
        self.context.add_init_script(
            """new MutationObserver((records) => {
                for (const r of records) for (const n of r.addedNodes) {
                    if (n.classList && n.classList.contains('toast')) {
                        (window.__toasts ||= []).push(n.textContent);
                    }
                }
            }).observe(document, { childList: true, subtree: true });"""
        )
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.misses: list[list[str]] = []
        self.picks = 0
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(f"console: {m.text}")
                # an HTTP error answer (a wrong password, a full table) is logged by the browser
                # itself; the page shows it to the player, so it is not a fault of the page
                if m.type == "error" and "Failed to load resource" not in m.text
                else None
            ),
        )
        #: the messages of confirm() dialogs; they are accepted, unless `dismiss_dialogs`
        self.dialogs: list[str] = []
        self.dismiss_dialogs = False
        self.page.on("dialog", self._dialog)
        self.page.set_default_timeout(15_000)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        if self.dismiss_dialogs:
            dialog.dismiss()
        else:
            dialog.accept()

    def goto(self, hash_: str = "#/") -> None:
        self.page.goto(f"{self.server.url}/{hash_}")

    def close(self) -> None:
        self.context.close()

    # ---- accounts ------------------------------------------------------------------------------
    def sign_up(self, name: str | None = None, password: str = "coffee beans 123") -> str:
        name = name or f"web{secrets.token_hex(3)}"
        self.goto("#/login")
        self.press("#tab-signup")
        self.page.fill("#auth-name", name)
        self.page.fill("#auth-password", password)
        self.press("#auth-submit")
        self.page.wait_for_selector("#me-name")
        return name

    def guest(self) -> str:
        self.goto("#/login")
        self.press("#guest-button")
        self.page.wait_for_selector("#me-name")
        return self.page.inner_text("#me-name")

    # ---- tables --------------------------------------------------------------------------------
    def new_table_form(self, game: str) -> None:
        """The lobby's new-table form, set to `game`."""
        self.goto("#/")
        self.press(f"#create-box [data-game={game}]")

    def create_table(
        self,
        game: str,
        bots: list[str | None],
        *,
        options: dict[str, Any] | None = None,
        rated: bool = False,
        private: bool = False,
        clock: tuple[float, float] | None = None,
        deck: str | None = None,
    ) -> str:
        """Create a table from the lobby form: seat 1 is us, then one seat per entry of
        `bots` (a bot level, or None for a seat left open); `deck`: the sha256 of a deck
        of the player's to play with. Returns the table id."""
        page = self.page
        self.new_table_form(game)
        rows = page.locator(".seat-row")
        while rows.count() > 1 + len(bots):
            self.press(rows.nth(rows.count() - 1).locator("button"))
        while rows.count() < 1 + len(bots):
            self.press("#add-seat")
        for i, bot in enumerate(bots, start=1):
            row = page.locator(f"[data-seat-row='{i}']")
            if bot is None:
                row.locator(".seat-kind").select_option("person")
            else:
                row.locator(".seat-kind").select_option("bot")
                page.locator(f"[data-seat-row='{i}'] .seat-bot").select_option(bot)
        for key, value in (options or {}).items():
            if isinstance(value, bool):
                page.set_checked(f"#opt-{key}", value)
            elif key == "promos":
                for promo in value:
                    page.check(f"#promo-{promo}")
            else:
                page.select_option(f"#opt-{key}", value)
        if deck is not None:
            page.wait_for_selector(f"#opt-deck option[value='{deck}']", state="attached")
            page.select_option("#opt-deck", deck)
        if rated:
            page.check("#opt-rated")
        if private:
            page.check("#opt-private")
        if clock is not None:
            page.select_option("#clock-kind", "realtime")
            page.fill("#clock-initial", str(clock[0]))
            page.fill("#clock-increment", str(clock[1]))
            page.locator("#clock-increment").dispatch_event("change")
            page.locator("#clock-initial").dispatch_event("change")
        self.press("#create-table")
        page.wait_for_selector("#pregame")
        return str(page.get_attribute("#table-page", "data-table"))

    def start(self) -> None:
        self.press("#start-game")

    def toasts(self) -> list[str]:
        """Every toast this page has shown since it was loaded."""
        return list(self.page.evaluate("window.__toasts || []"))

    def wait_for(self, selector: str, timeout: float = 15_000) -> None:
        """`page.wait_for_selector`, failing with what the page showed: its address, the
        table's status, the toasts and the page's errors."""
        try:
            self.page.wait_for_selector(selector, timeout=timeout)
        except Exception as exc:
            status = self.page.locator("#table-status").all_inner_texts()
            raise AssertionError(
                f"{selector} did not come: {self.page.url}, table status {status}, "
                f"toasts {self.toasts()}, errors {self.errors}"
            ) from exc

    def press(self, target: Any) -> None:
        """Click a selector or locator, or tap it on a touch screen."""
        locator = self.page.locator(target) if isinstance(target, str) else target
        if self.touch:
            locator.tap()
        else:
            locator.click()

    @property
    def version(self) -> int:
        v = self.page.get_attribute("#table-page", "data-version")
        return int(v) if v else -1

    def my_turn(self) -> bool:
        return self.page.locator("#instruction.mine").count() > 0

    def over(self) -> bool:
        return self.page.locator("#end-screen:not([hidden])").count() > 0

    def wait_change(self, before: int, timeout: float = 10) -> None:
        """Wait until the table's version moves past `before` (our move was played)."""
        deadline = time.monotonic() + timeout
        while self.version <= before and time.monotonic() < deadline:
            self.page.wait_for_timeout(30)

    def screenshot(self, folder: Path, name: str, full_page: bool = True) -> None:
        self.page.screenshot(path=str(folder / f"{name}.png"), full_page=full_page)


def hold_busy_until_finished(page: Any, tid: str, then: str = "") -> None:
    """Keep the page busy (one long synchronous task, as a slow phone or a busy tab is) until
    table `tid` is finished, asked with synchronous requests, and 300 ms more for its last
    updates to arrive; then run the JavaScript statements `then` in the same task. What the
    table's socket receives meanwhile waits, and comes to the page as a burst."""
    page.evaluate(
        """(tid) => {
            const deadline = Date.now() + 60000;
            const status = () => {
                const xhr = new XMLHttpRequest();
                xhr.open('GET', `/api/tables/${tid}`, false);
                xhr.send();
                return JSON.parse(xhr.responseText).status;
            };
            while (status() !== 'finished' && Date.now() < deadline) {
                const until = Date.now() + 50;
                while (Date.now() < until);
            }
            const until = Date.now() + 300;
            while (Date.now() < until);
        """
        + then
        + "}",
        tid,
    )


def text_and_colour(page: Any, selector: str) -> tuple[str, str]:
    """An element's text and computed colour, read in one go once it is on the page. A
    locator's `evaluate` finds the element and then evaluates in two steps, and a redraw
    between them (another player's move) leaves an element with no style ('')."""
    found = page.wait_for_function(
        """(sel) => {
            const e = document.querySelector(sel);
            return e && e.isConnected ? [e.innerText, getComputedStyle(e).color] : null;
        }""",
        arg=selector,
    ).json_value()
    return str(found[0]), str(found[1])


def receives(locator: Any, x: float, y: float) -> bool:
    """Whether a click at (x, y) would land on the element's drawing (the element itself, or
    the SVG it is drawn in, for shapes that let the click through to their board)."""
    try:
        return bool(
            locator.evaluate(
                "(e, [x, y]) => { const hit = document.elementFromPoint(x, y);"
                " const root = e.closest('svg') || e; return !!hit && root.contains(hit); }",
                [x, y],
                timeout=2000,
            )
        )
    except Exception:
        return False


def click_center(page: Any, locator: Any, vanish_ok: bool = False, touch: bool = False) -> bool:
    """Click the middle of an element with the mouse (SVG shapes that ignore the pointer,
    such as the placement spots). Other seats' moves redraw the page meanwhile, so the
    element is looked up again until it holds still. With `vanish_ok`, an element that a
    redraw removed (the n-th of a list that got shorter) is not clicked: returns False, and
    the caller counts again."""
    for _ in range(20):
        if vanish_ok and not locator.count():
            return False
        try:
            locator.scroll_into_view_if_needed(timeout=2000)
            box = locator.bounding_box(timeout=2000)
        except Exception:
            box = None
        if box is not None:
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            if not receives(locator, x, y):
                # something else is on top there: on a phone the action bar, which stays on
                # screen, covers the board's top rows after some scrolls; a player scrolls on,
                # and so does this (Playwright's own click checks this, but these shapes
                # ignore the pointer, so the click is by coordinates)
                # (a redraw may have taken it away meanwhile: then it is looked up again)
                with contextlib.suppress(Exception):
                    locator.evaluate("e => e.scrollIntoView({block: 'center', inline: 'center'})")
                page.wait_for_timeout(50)
                continue
            if touch:
                page.touchscreen.tap(x, y)
            else:
                page.mouse.click(x, y)
            return True
        page.wait_for_timeout(50)
    raise AssertionError(f"could not click {locator}")


# ---- Coffee Rush ---------------------------------------------------------------------------------
def rush_step(client: Client, rng: random.Random) -> str | None:
    """Play one step of a Coffee Rush turn by clicking what the page highlights. Returns
    what was done, or None when the page offers nothing (not our turn)."""
    page = client.page
    if not client.my_turn():
        return None
    before = client.version
    for selector, what in (
        ("#rush-board .square.legal", "square"),
        ("[data-serve]", "serve"),
        (".cup.legal", "pour"),
        ("#my-hand .chip.legal", "token"),
        ("#rush-board .square.mover", "meeple"),
    ):
        found = page.locator(selector)
        n = found.count()
        if n:
            client.press(found.nth(rng.randrange(n)))
            if what in ("square", "serve", "pour"):
                client.wait_change(before)
            return what
    if page.locator("#rush-stop").count():
        client.press("#rush-stop")
        client.wait_change(before)
        return "stop"
    if page.locator("#rush-end").count():
        client.press("#rush-end")
        client.wait_change(before)
        return "end"
    return None


# ---- Café ----------------------------------------------------------------------------------------
def cafe_step(
    client: Client, rng: random.Random, budget: dict[str, int], stop_at_placement: bool = False
) -> str | None:
    """Play one Café move through the page: a draft pick, a bid, a placement (a green spot,
    then Confirm), an action from a cell's menu (or, for a "... from ?" item, "pick": the
    next step clicks the source cell), or End. `budget["actions"]` bounds the actions per
    round so that a random player does not clear and refill forever. With
    `stop_at_placement`, a card waiting to be placed is left alone ("placing")."""
    page = client.page
    if not client.my_turn():
        return None
    before = client.version
    for panel in ("#draft", "#auction"):
        buttons = page.locator(f"{panel} [data-action]")
        n = buttons.count()
        if n:
            # `wait_change` may have seen a bot's pick before our own came back: when it does,
            # the panel redraws with fewer cards (or none) between counting and clicking
            if not click_center(
                page, buttons.nth(rng.randrange(n)), vanish_ok=True, touch=client.touch
            ):
                return None
            client.wait_change(before)
            budget["actions"] = 0
            return panel[1:]
    if page.locator("#rotate").count():
        if stop_at_placement:
            return "placing"  # the caller looks at the placement first
        # green dots mark the good spots for the card as it is turned now; another seat's
        # move may redraw the area between finding a spot and clicking it
        for _attempt in range(10):
            # count once: a redraw between two counts can leave none to choose from
            spots = page.locator(".spot")
            n = spots.count()
            if not n:
                try:
                    if client.touch:
                        page.locator("#rotate").tap(timeout=2000)
                    else:
                        page.click("#rotate", timeout=2000)
                except Exception:
                    return None  # a redraw took the placement panel away: look again
                continue
            if not click_center(
                page, spots.nth(rng.randrange(n)), vanish_ok=True, touch=client.touch
            ):
                continue  # a redraw took that spot away: count again
            try:
                page.wait_for_selector("#confirm-place", timeout=2000)
                break
            except Exception:
                client.misses.append(page.locator(".toast").all_inner_texts())
        try:
            if client.touch:
                page.locator("#confirm-place").tap(timeout=5000)
            else:
                page.click("#confirm-place", timeout=5000)
        except Exception:
            return None  # a redraw took the placement panel away: look again
        client.wait_change(before)
        return "place"
    sources = page.locator("[data-area] .cell.pick")
    n = sources.count()
    if n:
        # pick mode (a menu item "... from ?"): several cells could give the cubes; click the
        # one to take them from
        client.picks += 1
        if not click_center(
            page, sources.nth(rng.randrange(n)), vanish_ok=True, touch=client.touch
        ):
            return None
        client.wait_change(before)
        return "action"
    cells = page.locator("[data-area] .cell.clickable")
    n = cells.count()
    # the budget ends a round's actions with End; a choice that must be made before End is
    # offered again (where a Produce's scarce cubes go, the rest of a delivery) is always
    # made: without End on the page, a spent budget left the game stuck (CI: 300 s)
    if n and (budget["actions"] < 10 or not page.locator("#end-turn").count()):
        if not click_center(page, cells.nth(rng.randrange(n)), vanish_ok=True, touch=client.touch):
            return None
        try:
            page.wait_for_selector("#action-menu", timeout=3000)
        except Exception:
            # Café's turns are simultaneous: the bots' moves, and our own last move when it
            # came back after `wait_change` had seen a bot's, redraw the area and may take the
            # cell away between finding it and clicking it. Look again on the next step.
            client.misses.append(["no menu", *page.locator(".toast").all_inner_texts()])
            return None
        items = page.locator("#action-menu [data-action]")
        actions = [items.nth(i).get_attribute("data-action") or "" for i in range(items.count())]
        useful = [i for i, a in enumerate(actions) if not a.startswith("clear")]
        choice = rng.choice(useful or list(range(len(actions))))
        client.press(items.nth(choice))
        budget["actions"] += 1
        if actions[choice].endswith("from ?"):
            return "pick"  # nothing is sent yet: the next step clicks the source cell
        client.wait_change(before)
        return "action"
    if page.locator("#end-turn").count():
        client.press("#end-turn")
        client.wait_change(before)
        budget["actions"] = 0
        return "end"
    return None


def play_cafe_to_the_end(client: Client, seed: int, seconds: float) -> None:
    """Play a started Café table by clicks (`cafe_step`) until the game is over."""
    rng = random.Random(seed)
    budget = {"actions": 0}
    deadline = time.monotonic() + seconds
    while not client.over():
        assert time.monotonic() < deadline, f"the game did not end in time: {page_state(client)}"
        if cafe_step(client, rng, budget) is None:
            client.page.wait_for_timeout(50)


def page_state(client: Client) -> dict[str, Any]:
    """What a stuck game's page shows, for an assertion's message: whose turn, the version,
    what could be clicked, and what went wrong on the way."""
    page = client.page
    shown = {
        name: page.locator(selector).count()
        for name, selector in {
            "draft": "#draft [data-action]",
            "auction": "#auction [data-action]",
            "rotate": "#rotate",
            "spots": ".spot",
            "picks": "[data-area] .cell.pick",
            "clickable": "[data-area] .cell.clickable",
            "menu": "#action-menu",
            "end": "#end-turn",
        }.items()
    }
    instruction = None
    with contextlib.suppress(Exception):
        instruction = page.locator("#instruction").inner_text(timeout=1000)
    return {
        "version": client.version,
        "mine": client.my_turn(),
        "instruction": instruction,
        "shown": shown,
        "toasts": page.locator(".toast").all_inner_texts(),
        "misses": client.misses[-5:],
        "errors": client.errors[-5:],
    }


def shown_totals(page: Any) -> dict[int, int]:
    """The totals of the end screen's score table, by seat."""
    rows = page.locator("#score-table tbody tr")
    out = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        seat = int(row.get_attribute("data-seat") or -1)
        out[seat] = int(row.locator("td.total").inner_text())
    return out


def wait_held(page: Any, held: list[Any], seconds: float = 10) -> None:
    """Wait until a request routed into `held` is there (the route's handler runs while the
    page is waited on)."""
    for _ in range(int(seconds * 10)):
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1
