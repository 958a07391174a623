"""The card editors and decks in the browser (issue 39): a card drawn in the editor by the
table's drawing code, an invalid card explaining itself in the player's language, a whole file
round-tripping through export and import, a photo that never leaves the page, and a table
created on an uploaded deck played to the end against a bot, its record replayed with
`coffeetable inspect --deck`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.live import ServerProcess
from tests.web.ui import STATIC, Client, play_cafe_to_the_end

pytestmark = pytest.mark.server

DEFAULT_DECK = STATIC.parents[1] / "games" / "cafe" / "data" / "deck.toml"
#: a tiny PNG (1×1 pixel): the "photo" of a printed card
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4bd0000000049454e44ae426082"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """The shared server of tests/web/conftest.py, with a calibration of one random-bot game
    (so that a run asked for in a test ends within it)."""
    tmp = tmp_path_factory.mktemp("decks-web")
    env = {"COFFEETABLE_CALIBRATION_GAMES": "1", "COFFEETABLE_CALIBRATION_BOT": "random"}
    proc = ServerProcess(f"sqlite:///{tmp / 'web.db'}", tmp / "server.log", extra_env=env)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def upload(client: Client, game: str, path: Path, name: str) -> str:
    """Upload the file at `path` through My decks (only me); the sha256 of the deck `name`."""
    page = client.page
    client.goto("#/decks")
    page.wait_for_selector("#upload-file", state="attached")
    page.select_option("#upload-game", game)
    page.select_option("#upload-visibility", "private")
    page.set_input_files("#upload-file", str(path))
    row = page.locator(".deck-row").filter(has_text=name)
    row.wait_for()
    sha = row.get_attribute("data-deck") or ""
    assert len(sha) == 64
    return sha


def upload_transcription(client: Client, tmp_path: Path, name: str) -> str:
    """Upload the default deck as a transcription named `name`; its sha256."""
    text = DEFAULT_DECK.read_text(encoding="utf-8")
    text = text.replace("reconstructed = true", "reconstructed = false")
    text = text.replace('name = "coffeetable reconstructed deck"', f'name = "{name}"')
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return upload(client, "cafe", path, name)


def strings(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / "decks" / f"{lang}.json").read_text(encoding="utf-8"))


def fill(template: str, params: dict[str, Any]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m[1], m[0])), template)


def open_editor(client: Client, game: str) -> None:
    client.goto(f"#/decks/edit/{game}")
    client.page.wait_for_selector("#deck-items li")
    client.page.wait_for_selector("#deck-status.ok")


def export_text(client: Client) -> str:
    with client.page.expect_download() as info:
        client.press("#deck-export")
    path = info.value.path()
    return Path(path).read_text(encoding="utf-8")


def test_a_card_is_drawn_and_an_invalid_card_explains_itself(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    me = Client(browser, server)
    page = me.page
    try:
        open_editor(me, "cafe")  # no login needed to edit and check
        # the default deck's 63 cards, the first one open and drawn like the table draws it
        assert page.locator("#deck-items li").count() == 63
        picture = page.locator("#item-picture svg.card-svg")
        assert picture.get_attribute("data-card") == "S-BR"
        assert picture.locator("rect").count() >= 6
        assert "Lisbon" in (picture.text_content() or "")
        assert page.locator("#deck-items li").first.locator("svg.card-svg").count() == 1
        me.screenshot(artifacts, "deck-editor-cafe", full_page=False)

        # the top-left cell becomes a second shop, which has no city yet
        page.select_option("#cell-0-0", "shop-b")
        page.wait_for_selector("[data-shop=b]")
        assert "yellow" not in (picture.get_attribute("aria-label") or "")
        page.wait_for_selector("#card-problem-list li")
        shown = page.inner_text("#card-problem-list li")
        assert shown == fill(strings("en")["deckproblem.bad_city"], {"shop": "b"})
        assert page.get_attribute("#deck-items li[data-index='0'] .badge", "data-problems") == "1"
        assert page.inner_text("#deck-status") == "1 problem"
        # the field the problem names is marked, and only that one
        assert page.get_attribute("[data-shop=b] [data-field=city]", "aria-invalid") == "true"
        assert page.locator("#item-fields [aria-invalid]").count() == 1
        # the drawing follows the edit: a shop box on the new cell
        assert page.locator("#item-picture .shop").count() == 2

        # the same problem in Russian
        page.select_option("#lang", "ru")
        page.wait_for_function(
            "document.querySelector('#card-problem-list li')?.textContent.includes('Кофейн')"
        )
        assert page.inner_text("#card-problem-list li") == fill(
            strings("ru")["deckproblem.bad_city"], {"shop": "b"}
        )

        # a city makes it valid again; the status says so
        page.fill("[data-shop=b] [data-field=city]", "Lisbon")
        page.fill("[data-shop=b] [data-field=year]", "1868")
        page.fill("[data-shop=b] [data-field=requires]", "GG")
        page.wait_for_selector("#card-problem-list li", state="detached")
        assert page.locator("#item-fields [aria-invalid]").count() == 0
        page.select_option("#cell-0-0", "bean-Y")
        page.wait_for_selector("#deck-status.ok")

        # every card marked as transcribed at once (after a question)
        assert page.is_checked("#card-reconstructed")
        me.press("#all-transcribed")
        page.wait_for_selector("#card-reconstructed:not(:checked)")
        all_of = fill(strings("ru")["decks.origin_cards"], {"transcribed": 63, "total": 63})
        assert all_of in page.inner_text("#deck-origin")
        page.wait_for_selector("#deck-status.ok")
        assert not me.errors, me.errors
    finally:
        me.close()


@pytest.mark.parametrize("game", ["cafe", "coffee-rush"])
def test_a_whole_file_round_trips_and_a_photo_stays_in_the_page(
    browser: Any, server: ServerProcess, tmp_path: Path, game: str
) -> None:
    me = Client(browser, server)
    page = me.page
    sent: list[bytes] = []
    page.on("request", lambda r: sent.append(r.post_data_buffer or b""))
    try:
        open_editor(me, game)
        page.fill("#deck-name", "Round trip")
        page.fill("#deck-version", "7")
        # a card of our own, then a duplicate of it moved up: the order is the file's order
        me.press("#add-item")
        me.press("#item-duplicate")
        me.press("#item-up")
        page.wait_for_selector("#deck-status:not(:has-text('…'))")
        first = export_text(me)
        assert 'name = "Round trip"' in first and "version = 7" in first

        # the exported file is the server's canonical text of it
        check = httpx.post(
            f"{server.url}/api/decks/check?game={game}",
            content=first.encode(),
            headers={"Content-Type": "text/plain; charset=utf-8"},
            timeout=30,
        ).json()
        assert check["toml"] == first

        # start again, import the file: the editor holds it again, and exports it identically
        me.press("#deck-new")
        page.wait_for_function("document.querySelector('#deck-name').value !== 'Round trip'")
        path = tmp_path / "deck.toml"
        path.write_text(first, encoding="utf-8")
        page.set_input_files("#deck-import", str(path))
        page.wait_for_function("document.querySelector('#deck-name').value === 'Round trip'")
        assert export_text(me) == first

        # a photo of the printed card, beside the transcription, read in the page only
        photo = tmp_path / "card.png"
        photo.write_bytes(PNG)
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#item-photo")
        assert (page.get_attribute("#item-photo", "src") or "").startswith("data:image/png")
        page.fill("#deck-name", "Round trip 2")  # one more check request after the photo
        page.wait_for_selector("#deck-status:not(:has-text('…'))")
        assert sent, "the editor sent no checks"
        assert not any(PNG[8:24] in body or b"iVBORw0KGgo" in body for body in sent)

        # the file being edited is kept in the browser: a reload loses nothing (but the photo)
        page.reload()
        page.wait_for_selector("#deck-status:not(:has-text('…'))")
        assert page.input_value("#deck-name") == "Round trip 2"
        assert page.locator("#item-photo").count() == 0

        # a file that is not TOML is refused and changes nothing
        bad = tmp_path / "bad.toml"
        bad.write_text("this is [not toml", encoding="utf-8")
        page.set_input_files("#deck-import", str(bad))
        page.wait_for_selector(".toast.error")
        assert page.input_value("#deck-name") == "Round trip 2"
        assert not me.errors, me.errors
    finally:
        me.close()


@pytest.mark.slow  # a whole game by clicks: CI's slow pass
def test_a_game_on_an_uploaded_deck_replays_with_its_file(
    browser: Any, server: ServerProcess, tmp_path: Path, artifacts: Path
) -> None:
    me = Client(browser, server)
    page = me.page
    try:
        me.sign_up()
        # the default deck transcribed (every card marked as copied from a printed card)
        sha = upload_transcription(me, tmp_path, "My printed cards")
        row = page.locator(f".deck-row[data-deck='{sha}']")
        assert row.locator("[data-kind=transcription]").count() == 1
        assert "reconstruction" in row.locator(".provenance").inner_text()  # the file's words
        me.screenshot(artifacts, "my-decks", full_page=False)

        # its canonical file, as stored
        cookies = {c["name"]: c["value"] for c in me.context.cookies()}
        stored = httpx.get(f"{server.url}/api/decks/{sha}/file", cookies=cookies, timeout=30)
        assert stored.status_code == 200
        deck_file = tmp_path / "stored.toml"
        deck_file.write_bytes(stored.content)

        table_id = me.create_table("cafe", ["greedy"], deck=sha)
        head = page.locator("#table-page .deck-label")
        assert "My printed cards" in head.inner_text()
        assert head.locator(".deck-transcription").count() == 1
        me.goto("#/")
        lobby_row = page.locator(f"[data-table='{table_id}'] .deck-label")
        lobby_row.wait_for()
        assert "My printed cards" in lobby_row.inner_text()
        me.goto(f"#/table/{table_id}")
        page.wait_for_selector("#start-game")
        me.start()
        page.wait_for_selector("#cafe")
        play_cafe_to_the_end(me, 5, 180)  # within the test's 300 s: a stuck game says why
        page.wait_for_selector("#score-table")
        me.screenshot(artifacts, "deck-game-end", full_page=False)

        with page.expect_download() as info:
            page.click("a[href$='/record']")
        record = tmp_path / "record.json"
        record.write_bytes(Path(info.value.path()).read_bytes())
        assert json.loads(record.read_text())["options"]["deck_sha256"] == sha
        # the cards it was played with, offered beside the record to who may use them
        with page.expect_download() as info:
            page.click("#end-deck-file")
        assert Path(info.value.path()).read_bytes() == deck_file.read_bytes()

        done = subprocess.run(
            [sys.executable, "-m", "coffeetable", "inspect", str(record), "--deck", str(deck_file)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "Café record" in done.stdout or "record" in done.stdout
        without = subprocess.run(
            [sys.executable, "-m", "coffeetable", "inspect", str(record)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert without.returncode != 0 and "another deck" in without.stderr
        assert not me.errors, me.errors
    finally:
        me.close()


def test_my_decks_visibility_calibration_and_refusals(
    browser: Any, server: ServerProcess, tmp_path: Path, artifacts: Path
) -> None:
    me = Client(browser, server)
    other = Client(browser, server)
    page = me.page
    try:
        me.sign_up()
        sha = upload_transcription(me, tmp_path, "Shared cards")
        row = page.locator(f".deck-row[data-deck='{sha}']")
        # the same file again: refused, nothing added
        page.set_input_files("#upload-file", str(tmp_path / "mine.toml"))
        page.wait_for_selector(".toast.error")
        assert strings("en")["error.deck_exists"] in page.locator(".toast.error").last.inner_text()
        assert page.locator(".deck-row").count() == 1
        # a file with a problem: refused with its problems named, nothing added
        broken = tmp_path / "broken.toml"
        broken.write_text(
            DEFAULT_DECK.read_text(encoding="utf-8").replace("vp = 2", "vp = 99", 1),
            encoding="utf-8",
        )
        page.set_input_files("#upload-file", str(broken))
        page.wait_for_selector("#upload-problems li[data-code=bad_vp]")
        assert "S-BR" in page.inner_text("#upload-problems")
        assert page.locator(".deck-row").count() == 1

        # private: another player does not see it; public: they do
        other.sign_up()
        other.goto("#/decks")
        other.page.wait_for_selector("#no-decks")
        row.locator("[data-visibility]").select_option("public")
        page.wait_for_selector(".toast.info >> text=everyone")
        other.page.reload()
        other.page.wait_for_selector(f".deck-row[data-deck='{sha}']")
        theirs = other.page.locator(f".deck-row[data-deck='{sha}']")
        assert theirs.locator("[data-delete]").count() == 0  # not the owner's
        assert theirs.locator("[data-visibility]").count() == 0

        # a calibration run by the bot workers, its figures shown
        row.locator("[data-calibrate]").click()
        page.wait_for_selector(f"[data-calibration='{sha}'] [data-status=done]", timeout=60_000)
        figures = page.locator(f"[data-calibration='{sha}'] [data-figure=games] td")
        assert figures.inner_text() == "1"
        assert page.locator(f"[data-calibration='{sha}'] .figure-cards tbody tr").count() > 0
        me.screenshot(artifacts, "my-decks-calibrated", full_page=False)

        # opened in the editor from the list
        row.locator("[data-edit]").click()
        page.wait_for_selector("#deck-status.ok")
        assert page.input_value("#deck-name") == "Shared cards"
        assert page.locator("#deck-items li").count() == 63
        me.goto("#/decks")
        row.wait_for()

        # deleted: gone for both
        row.locator("[data-delete]").click()
        page.wait_for_selector("#no-decks")
        other.page.reload()
        other.page.wait_for_selector("#no-decks")
        assert not me.errors and not other.errors, (me.errors, other.errors)
    finally:
        me.close()
        other.close()


def test_a_coffee_rush_table_on_a_card_file_draws_its_board(
    browser: Any, server: ServerProcess, tmp_path: Path
) -> None:
    """A table on a player's card file draws that file's board and names it, in the lobby
    and at the table; the default file's tables keep the default board."""
    cards = (STATIC.parents[1] / "games" / "coffee_rush" / "data" / "cards.toml").read_text("utf-8")
    mine = cards.replace(
        '["ice",    "caramel", "steam",     "coffee"]', '["tea",    "caramel", "steam",     "ice"]'
    ).replace('name = "Coffee Rush (public reconstruction)"', 'name = "Swapped corners"')
    assert mine != cards
    path = tmp_path / "cards.toml"
    path.write_text(mine, encoding="utf-8")
    me = Client(browser, server)
    page = me.page
    try:
        me.sign_up()
        sha = upload(me, "coffee-rush", path, "Swapped corners")
        row = page.locator(f".deck-row[data-deck='{sha}']")
        assert row.locator("[data-kind=reconstruction]").count() == 1  # unverified recipes

        # the new-table form offers the default cards first, then the player's file
        me.goto("#/")
        me.press("#create-box [data-game=coffee-rush]")
        page.wait_for_selector(f"#opt-deck option[value='{sha}']", state="attached")
        values = page.locator("#opt-deck option").evaluate_all("(os) => os.map((o) => o.value)")
        assert values == ["", sha]
        assert page.input_value("#opt-deck") == ""

        me.create_table("coffee-rush", ["greedy"], deck=sha)
        assert "Swapped corners" in page.inner_text("#table-page .deck-label")
        me.start()
        me.wait_for("#rush-board [data-square=a1]")
        assert page.get_attribute("#rush-board [data-square=a1]", "data-ing") == "tea"
        assert page.get_attribute("#rush-board [data-square=d1]", "data-ing") == "ice"

        # a table on the default file, in the same page: the default board again
        me.create_table("coffee-rush", ["greedy"])
        assert page.locator("#table-page .deck-label").count() == 0
        me.start()
        me.wait_for("#rush-board [data-square=a1]")
        assert page.get_attribute("#rush-board [data-square=a1]", "data-ing") == "ice"
        assert not me.errors, me.errors
    finally:
        me.close()
