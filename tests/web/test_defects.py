"""The defects a new player met in the browser (issue 37), one test each: double clicks that
sent a request twice, a rotate that moved the board, clipped and overflowing labels, English
plurals, dead table URLs, the cup whose Empty button lay under the finger, a replay that
waited for a player, console errors on a plain page load, and the profile and leaderboard
of nobody."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import pytest

from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, ServerProcess, play_out
from tests.web.ui import Client, cafe_step, hold_busy_until_finished, text_and_colour, wait_held


def api(client: Client, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """An HTTP request with the browser's own cookies (the player's session)."""
    response = client.context.request.fetch(
        f"{client.server.url}{path}",
        method=method,
        headers={"Content-Type": "application/json"},
        data=json.dumps(body) if body is not None else None,
    )
    return response.status, response.json()


def python_player(client: Client) -> Player:
    """The same person as `client`, for playing over a WebSocket from the test."""
    player = Player(client.server)
    token = next(c["value"] for c in client.context.cookies() if c["name"] == SESSION_COOKIE)
    player.http.cookies.set(SESSION_COOKIE, token)
    player.name = client.page.inner_text("#me-name")
    return player


def seated_pair(host: Client, friend: Client) -> str:
    """Two guests at a new 2-player Coffee Rush table, the host's Start enabled: its id."""
    host.guest()
    friend.guest()
    tid = host.create_table("coffee-rush", [None])
    assert api(friend, "POST", f"/api/tables/{tid}/join", {"seat": 1})[0] == 200
    host.page.wait_for_selector("#start-game:not([disabled])")
    return tid


def finished_against_random(client: Client, seed: int) -> str:
    """A Coffee Rush table of `client` against the random bot, played to the end from Python
    (`random.Random(seed)` choosing the moves): its id."""
    tid = client.create_table("coffee-rush", ["random"])
    client.start()
    sock = python_player(client).socket(tid)
    sock.recv()
    play_out([sock], random.Random(seed))
    sock.close()
    return tid


def played_from_python(host: Client, friend: Client) -> tuple[str, list[Any]]:
    """A started Coffee Rush table of the two, both seats played from Python and the friend's
    page closed (one page draws: the host's): its id and the two sockets, each past its
    first snapshot."""
    tid = seated_pair(host, friend)
    host.start()
    host.page.wait_for_selector("#rush")
    sockets = [python_player(c).socket(tid) for c in (host, friend)]
    friend.page.close()
    for sock in sockets:
        sock.recv()
    return tid, sockets


def error_toasts(client: Client) -> list[str]:
    return client.page.locator(".toast.error, .toast.warn").all_inner_texts()


def rect(page: Any, selector: str) -> dict[str, float]:
    """An element's box on the page, measured in one go (the page redraws as others play)."""
    box: dict[str, float] = page.evaluate(
        "(sel) => { const r = document.querySelector(sel).getBoundingClientRect();"
        " return {x: r.x, y: r.y + scrollY, width: r.width, height: r.height}; }",
        selector,
    )
    return box


def to_placement(client: Client) -> None:
    """Play the draft in a Café table until our card waits to be placed."""
    rng = random.Random(1)
    budget = {"actions": 0}
    for _ in range(200):
        if client.page.locator("#rotate").count():
            return
        # a card that comes to be placed meanwhile is left for the test to place
        if cafe_step(client, rng, budget, stop_at_placement=True) is None:
            client.page.wait_for_timeout(100)
    raise AssertionError("no placement came")


@pytest.fixture
def client(browser: Any, server: ServerProcess) -> Any:
    c = Client(browser, server)
    c.guest()
    yield c
    c.close()


# ---- 1, 6, 7: Café placement ----------------------------------------------------------------
def test_cafe_placement_double_confirm_rotate_and_shop_names(client: Client) -> None:
    page = client.page
    client.create_table("cafe", ["greedy"])
    client.start()
    page.wait_for_selector("#cafe")
    # 7: every shop name of every card, drawn as on the draft, is written whole inside its shop
    # (the draft drawn first: its cards are dealt at random, and about one deal in 30 shows
    # no card with a shop, so the test waits for the cards, not for a shop among them)
    page.wait_for_selector("#draft .draft-card[data-card] svg")
    fits = page.evaluate(
        """async () => {
            const cafe = await import('/js/cafe.js');
            const data = await cafe.loadCafeData();
            const box = document.createElement('div');
            box.style.width = '190px';
            document.body.append(box);
            for (const card of data.cards) box.append(cafe.cardSvg(card.id));
            const out = [...box.querySelectorAll('.shop')].map((g) => {
                const shop = g.querySelector('.shop-box').getBBox();
                const text = g.querySelector('.shop-city');
                return [text.textContent, text.getComputedTextLength() <= shop.width + 0.5];
            });
            box.remove();
            return out;
        }"""
    )
    assert fits and all(ok and not name.endswith("…") for name, ok in fits), fits
    to_placement(client)
    # 6: turning the card keeps the action bar's height and the board where it was
    bar_before, area_before = rect(page, "#action-bar"), rect(page, ".area-card.mine .area-svg")
    for _ in range(4):
        page.click("#rotate")
        assert rect(page, "#action-bar")["height"] == bar_before["height"]
        assert rect(page, ".area-card.mine .area-svg")["y"] == area_before["y"]
    # 1: a double click on Confirm places the card once, with no error on the page
    spot = page.locator(".spot").first
    box = spot.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#confirm-place")
    before = client.version
    page.dblclick("#confirm-place")
    client.wait_change(before)
    page.wait_for_timeout(500)
    assert not client.errors and not error_toasts(client), (client.errors, error_toasts(client))


# ---- 8: Russian and Ukrainian pay buttons ------------------------------------------------------
@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_pay_buttons_fit_their_cards(client: Client, lang: str) -> None:
    page = client.page
    page.select_option("#lang", lang)
    client.create_table("cafe", ["greedy", "greedy"])
    client.start()
    page.wait_for_selector("#draft [data-action]", timeout=60_000)
    overflow = page.evaluate(
        """() => [...document.querySelectorAll('#draft [data-action]')].filter((b) => {
            const card = b.closest('.draft-card').getBoundingClientRect();
            const r = b.getBoundingClientRect();
            return r.right > card.right + 0.5 || r.left < card.left - 0.5
                || b.scrollWidth > b.clientWidth + 1;
        }).map((b) => b.textContent)"""
    )
    assert overflow == []


# ---- 2, 3, 5: double clicks on Start, Join and Rematch ------------------------------------------
def test_double_clicks_on_start_join_and_rematch(browser: Any, server: ServerProcess) -> None:
    host, friend = Client(browser, server), Client(browser, server)
    try:
        host.guest()
        friend.guest()
        tid = host.create_table("coffee-rush", [None])
        # 5: Join from the lobby, twice
        friend.goto("#/")
        friend.page.wait_for_selector(f"[data-join='{tid}']")
        friend.page.dblclick(f"[data-join='{tid}']")
        friend.page.wait_for_selector("#pregame [data-seat='1'] .tag.me")
        host.page.wait_for_selector("#start-game:not([disabled])")
        # 3: Start, twice
        host.page.dblclick("#start-game")
        host.page.wait_for_selector("#rush")
        friend.page.wait_for_selector("#rush")
        # finish the game from Python, then 2: Rematch, twice
        sockets = [python_player(c).socket(tid) for c in (host, friend)]
        for sock in sockets:
            sock.recv()
        play_out(sockets, random.Random(5))
        for sock in sockets:
            sock.close()
        # the page takes in the game's ~100 updates, sent in one burst by the Python players,
        # one by one (board and log redrawn each time): 21 s at a load of 9 on two cores
        host.page.wait_for_selector("#rematch", timeout=60_000)
        host.page.dblclick("#rematch")
        host.page.wait_for_function(f"!location.hash.includes('{tid}')")
        host.page.wait_for_selector("#pregame")
        _, tables = api(host, "GET", "/api/tables")
        me = host.page.inner_text("#me-name")
        assert len([t for t in tables if t["created_by"] == me and t["status"] == "open"]) == 1
        for c in (host, friend):
            assert not c.errors and not error_toasts(c), (c.errors, error_toasts(c))
    finally:
        host.close()
        friend.close()


def test_start_stays_busy_through_redraws(browser: Any, server: ServerProcess) -> None:
    """Start, while on its way and after, is never offered again: the seats redrawn (a player
    leaving and coming back, a presence mark) and the table's "running" message (it comes before
    the board) used to draw a new, enabled Start, whose click said "This game has already
    started" (CI, the double click above)."""
    host, friend = Client(browser, server), Client(browser, server)
    try:
        tid = seated_pair(host, friend)
        held: list[Any] = []
        host.page.route(f"**/api/tables/{tid}/start", lambda route: held.append(route))
        # every enabled Start drawn from the click on (not before it: a redraw for the
        # friend's arrival that comes late on a busy machine draws an enabled Start, rightly)
        host.page.evaluate(
            """() => {
                window.__startsOffered = 0;
                window.__startClicked = false;
                document.addEventListener('click', (e) => {
                    if (e.target.closest('#start-game')) window.__startClicked = true;
                }, true);
                new MutationObserver(() => {
                    const b = document.querySelector('#start-game');
                    if (window.__startClicked && b && !b.disabled) window.__startsOffered += 1;
                }).observe(document.body, { childList: true, subtree: true, attributes: true });
            }"""
        )
        host.page.click("#start-game")
        wait_held(host.page, held)
        # the seats are redrawn while Start is on its way
        assert api(friend, "POST", f"/api/tables/{tid}/leave")[0] == 200
        host.page.wait_for_selector("#pregame-status:has-text('Waiting for')")
        assert api(friend, "POST", f"/api/tables/{tid}/join", {"seat": 1})[0] == 200
        host.page.wait_for_selector("#pregame-status:has-text('Everyone is here')")
        host.page.wait_for_timeout(300)
        assert host.page.locator("#start-game").is_disabled()
        held[0].continue_()
        host.page.wait_for_selector("#rush")
        host.page.wait_for_timeout(300)
        assert host.page.evaluate("window.__startsOffered") == 0
        assert not host.errors and not error_toasts(host), (host.errors, error_toasts(host))
    finally:
        host.close()
        friend.close()


def test_a_table_left_handles_none_of_its_waiting_messages(
    browser: Any, server: ServerProcess
) -> None:
    """Leaving a table ends its page's work: messages it had received and not yet handled (a
    burst after a busy moment) used to be handled after it was gone, drawing into the page
    that was left and setting the renderer's card file for the whole site (rush.js and cafe.js
    keep one), which the next table's page shares."""
    host, friend = Client(browser, server), Client(browser, server)
    try:
        tid, sockets = played_from_python(host, friend)
        game = threading.Thread(target=play_out, args=(sockets, random.Random(7)))
        game.start()
        # the page held busy while the game is played (the burst waits), then, at its first
        # drawing, the player leaves for the lobby; the table's version as it is left
        hold_busy_until_finished(
            host.page,
            tid,
            then="""
                const page = document.querySelector('#table-page');
                window.__left = page;
                addEventListener('hashchange', () => { window.__atLeave = page.dataset.version; },
                    { once: true });
                const watch = new MutationObserver(() => {
                    watch.disconnect();
                    location.hash = '#/';
                });
                watch.observe(page, { attributes: true, attributeFilter: ['data-version'] });
            """,
        )
        game.join(60)
        assert not game.is_alive()
        final = sockets[0].version
        for sock in sockets:
            sock.close()
        host.page.wait_for_selector("#create-table")
        host.page.wait_for_function("window.__atLeave !== undefined")
        at_leave = int(host.page.evaluate("window.__atLeave"))
        # there were messages left to handle when the page was left (else this shows nothing)
        assert at_leave < final, (at_leave, final)
        host.page.wait_for_timeout(1500)
        assert host.page.evaluate("window.__left.dataset.version") == str(at_leave)
        assert not host.errors, host.errors
    finally:
        host.close()
        friend.close()


# ---- 4, 12, 10: Coffee Rush on a phone: double clicks, the Empty button, plurals -----------------
def test_rush_on_a_phone_empty_is_apart_and_double_clicks_send_once(
    browser: Any, server: ServerProcess
) -> None:
    phone = Client(browser, server, viewport=(390, 844))
    try:
        phone.guest()
        phone.create_table("coffee-rush", ["greedy", "greedy"])
        phone.start()
        page = phone.page
        # the bots place their meeples, then ours; seat 0 starts, with the set-up token in
        # cup 1: emptying it is offered
        page.locator("#rush-board .square.legal").first.click()
        page.wait_for_selector("[data-empty='1']")
        cups = page.locator(".rush-player.mine .cup")
        empty = page.locator("[data-empty='1']").bounding_box()
        for i in range(cups.count()):
            cup = cups.nth(i).bounding_box()
            apart = (
                empty["x"] >= cup["x"] + cup["width"]
                or empty["x"] + empty["width"] <= cup["x"]
                or empty["y"] >= cup["y"] + cup["height"]
                or empty["y"] + empty["height"] <= cup["y"]
            )
            assert apart, "the Empty button lies inside a cup's tap area"
        # tapping the Empty button asks first
        phone.dismiss_dialogs = True
        page.click("[data-empty='1']")
        page.wait_for_timeout(300)
        assert phone.dialogs and page.locator("[data-empty='1']").count() == 1
        phone.dismiss_dialogs = False
        # 10: the instruction counts steps with plural rules: "1 free step left"
        for _ in range(2):
            before = phone.version
            page.locator("#rush-board .square.legal").first.click()
            phone.wait_change(before)
        page.wait_for_function(
            "document.querySelector('#instruction').textContent.includes('1 free step left')"
        )
        # 4: a double tap on a square (or a button) sends the step once
        for _ in range(4):
            if not page.locator("#rush-board .square.legal").count():
                break
            before = phone.version
            page.locator("#rush-board .square.legal").first.dblclick()
            phone.wait_change(before)
            page.wait_for_timeout(300)
        page.wait_for_timeout(500)
        assert not phone.errors and not error_toasts(phone), (phone.errors, error_toasts(phone))
    finally:
        phone.close()


def test_plural_rules_for_days(client: Client) -> None:
    texts = client.page.evaluate(
        """async () => {
            const i18n = await import('/js/i18n.js');
            const lobby = await import('/js/lobby.js');
            return [1, 2, 5].map((n) => lobby.limitText(n * 86400));
        }"""
    )
    assert texts == ["1 day", "2 days", "5 days"]


# ---- 11: table URLs that name no table -----------------------------------------------------------
def test_a_table_url_that_names_no_table(client: Client) -> None:
    page = client.page
    requests: list[str] = []
    # the table's sockets (every page also keeps the user channel, /ws/user, open)
    page.on("websocket", lambda ws: requests.append(ws.url) if "/ws/tables/" in ws.url else None)
    for bad in ("<script>alert(1)</script>", "nosuchtable"):
        requests.clear()
        client.goto(f"#/table/{bad}")
        page.wait_for_selector("#table-error")
        page.wait_for_timeout(2500)
        assert "does not exist" in page.inner_text("#table-error")
        assert "Loading" not in page.inner_text("#table-page")
        assert len(requests) <= 1, requests  # no retries


# ---- 14: nobody's profile, no game's leaderboard ------------------------------------------------
def test_unknown_profile_and_leaderboard(client: Client) -> None:
    page = client.page
    client.goto("#/profile/nobody-here")
    page.wait_for_selector("#profile-page .error-page")
    assert page.locator("#profile-page .error-page").count() == 1
    assert "nobody-here's ratings" not in page.inner_text("#profile-page")
    client.goto("#/leaderboard/chess")
    page.wait_for_selector("#leaderboard-page .error-page")
    text = page.inner_text("#leaderboard-page")
    assert "Something went wrong" not in text and "chess" in text
    assert page.locator("#leaderboard-page [data-game='cafe']").count() == 1


# ---- 15: a replay does not wait for anyone -----------------------------------------------------
def test_replay_instruction_does_not_wait(client: Client) -> None:
    tid = finished_against_random(client, seed=2)
    client.goto(f"#/replay/{tid}?n=3")
    # the replay's own bar (the table page's instruction stays a moment, until the route swaps)
    client.page.wait_for_selector("#replay-slider", timeout=30_000)
    client.page.wait_for_selector("#instruction", timeout=30_000)
    assert "Waiting" not in client.page.inner_text("#instruction")
    assert "…" not in client.page.inner_text("#instruction")


def test_a_replay_left_while_loading_does_nothing_more(client: Client) -> None:
    """A replay page left before its table had loaded went on loading after it was gone: it
    asked for the replay, drew it into the page left, and kept listening to the arrow keys
    on every page after, each press asking for another replay (and loading its card file
    into the renderer's one current file, which a table page shares)."""
    tid = finished_against_random(client, seed=2)
    page = client.page
    held: list[Any] = []
    page.route(f"**/api/tables/{tid}", lambda route: held.append(route))
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/replay/" in r.url else None)
    client.goto(f"#/replay/{tid}")
    wait_held(page, held)
    client.goto("#/")
    page.wait_for_selector("#create-table")
    held[0].continue_()
    page.wait_for_timeout(800)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Home")
    page.wait_for_timeout(500)
    assert asked == []
    assert page.locator("#replay-slider").count() == 0
    assert not client.errors, client.errors


def test_a_review_left_before_it_is_found_is_not_asked_for(client: Client) -> None:
    """A replay opened with its review (?review=1) looks for a stored review and, with none,
    asks the server for one (a bot's analysis of every move). Left before the answer came, it
    used to ask all the same, for a page nobody was looking at."""
    tid = finished_against_random(client, seed=3)
    page = client.page
    held: list[Any] = []
    page.route(f"**/api/tables/{tid}/review?*", lambda route: held.append(route))
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.method == "POST" else None)
    client.goto(f"#/replay/{tid}?review=1")
    wait_held(page, held)
    assert held[0].request.method == "GET"
    client.goto("#/")
    page.wait_for_selector("#create-table")
    held[0].continue_()  # the server's answer: no review stored
    page.wait_for_timeout(1000)
    assert not [url for url in asked if "/review" in url], asked
    assert not client.errors, client.errors


# ---- 16: a logged-out page load logs nothing ---------------------------------------------------
def test_a_logged_out_page_load_logs_nothing(browser: Any, server: ServerProcess) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        seen: list[str] = []
        page.on("console", lambda m: seen.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: seen.append(f"page error: {e}"))
        page.goto(f"{server.url}/#/")
        page.wait_for_selector("#login-link")
        page.wait_for_timeout(500)
        assert [m for m in seen if m.startswith(("error", "page error", "warning"))] == []
    finally:
        context.close()


# ---- 9: the players panel with a long name, bots and clocks -----------------------------------
def test_players_panel_keeps_each_dot_with_its_name(browser: Any, server: ServerProcess) -> None:
    c = Client(browser, server)
    try:
        c.sign_up(f"Maximiliana{random.Random().randrange(10**8):08d}"[:20])
        c.create_table("coffee-rush", ["ismcts:hard", "ismcts:medium", "greedy"], clock=(10, 5))
        c.start()
        c.page.wait_for_selector("#players .player [data-clock]")
        lines = c.page.evaluate(
            """() => [...document.querySelectorAll('#players .player')].map((li) => {
                const dot = li.querySelector('.seat-badge .dot').getBoundingClientRect();
                const name = li.querySelector('.seat-badge .seat-name').getBoundingClientRect();
                const mid = dot.top + dot.height / 2;
                return [mid >= name.top && mid <= name.bottom, li.getBoundingClientRect().height];
            })"""
        )
        assert len(lines) == 4
        assert all(together and height < 60 for together, height in lines), lines
    finally:
        c.close()


# ---- consequences before confirming: a placement that covers a shop says so ----------------------
def test_placement_warns_before_confirm_when_it_covers_a_shop(
    client: Client, artifacts: Any
) -> None:
    page = client.page
    client.create_table("cafe", ["greedy"])
    client.start()
    to_placement(client)
    for _turn in range(4):  # the card in hand, turned each way
        spots = page.locator(".spot")
        for i in range(spots.count()):
            box = spots.nth(i).bounding_box()
            if box is None:
                continue
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            if page.locator("#place-warning").count():
                break
        if page.locator("#place-warning").count():
            break
        page.click("#rotate")
    assert page.locator("#place-warning").count(), "no placement of the first card covers a shop"
    text, colour = text_and_colour(page, "#place-warning")  # one read: redraws come meanwhile
    assert "the shop is lost" in text and "VP" in text, text
    assert colour == "rgb(208, 52, 44)" or colour.startswith("rgb(1") or colour.startswith("rgb(2")
    assert page.locator(".preview .shop-warn").count() >= 1
    # it stays in sight when the spot is chosen, next to Confirm
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#confirm-place")
    assert page.locator("#place-warning").count() == 1
    client.screenshot(artifacts, "cafe-placement-warning", full_page=False)
