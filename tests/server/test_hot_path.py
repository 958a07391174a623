"""Issue 40, in process: what a move skips on the server's hot path changes nothing a client
or a record sees. A move picked from the legal list the seat was sent is applied without the
rules listing the legal actions again; anything else is checked in full. The views in a
move's update are put together from the public view encoded once. SQLite stores the move in
one transaction straight on the driver. Another seat's legal list that a move left as it was
is kept (`State.legal_actions_kept`)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from coffeetable.server.bus import MemoryBus
from coffeetable.server.livetable import Client, LiveTable, encode_json
from coffeetable.server.lobby import LobbyService
from coffeetable.server.match import MatchService, _split_at_seat
from coffeetable.server.protocol import ErrorCode, ProtocolError
from coffeetable.server.storage import (
    Seat,
    StaleVersionError,
    StorageError,
    User,
    open_storage,
    sqlite_loop,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _messages(client: Client) -> list[dict[str, Any]]:
    out = []
    while not client.queue.empty():
        item = client.queue.get_nowait()
        assert item is not None
        out.append(orjson.loads(item) if isinstance(item, str) else orjson.loads(encode_json(item)))
    return out


async def _table(
    tmp_path: Path, game: str, seed: int
) -> tuple[Any, MatchService, LiveTable, list[Client]]:
    storage = open_storage(f"sqlite:///{tmp_path / 'hot.db'}")
    await storage.migrate()
    ana = await storage.create_user("Ana", None, is_guest=True)
    bo = await storage.create_user("Bo", None, is_guest=True)
    table = await storage.create_table(
        f"hot{seed}",
        game=game,
        seed=seed,
        seats=[Seat("human", ana.id), Seat("human", bo.id)],
        created_by=ana.id,
    )
    match = MatchService(storage, MemoryBus())
    await LobbyService(match).start(table.id, ana)
    live = await match.live(table.id)
    clients = []
    for user in (ana, bo, None):
        client = Client(user=user if isinstance(user, User) else None)
        client.seat = None if user is None else [ana.id, bo.id].index(user.id)
        live.clients.add(client)
        client.send(match.snapshot(live, client))
        clients.append(client)
    return storage, match, live, clients


@pytest.mark.parametrize(("game", "seed"), [("cafe", 3), ("coffee-rush", 4)])
async def test_moves_from_the_legal_list_play_as_checked_moves_do(
    tmp_path: Path, game: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage, match, live, clients = await _table(tmp_path, game, seed)
    try:
        assert live.state is not None
        shadow = live.state.clone()  # the same game, every move applied by the checked path
        rng = random.Random(seed)
        state_type = type(live.state)
        latest = {c.seat: _messages(c)[-1] for c in clients}

        real_apply = state_type.apply
        checked: list[object] = []  # the states the checked apply ran on

        def apply(state: Any, *args: Any) -> Any:
            checked.append(state)
            return real_apply(state, *args)

        real_kept = state_type.legal_actions_kept
        kept: list[bool] = []  # the answers of `legal_actions_kept` (a kept list is sent)

        def legal_actions_kept(state: Any, *args: Any) -> bool:
            kept.append(real_kept(state, *args))
            return kept[-1]

        for _ in range(60):
            if live.state.is_over():
                break
            seat = min(live.state.current_seats())
            text = rng.choice(latest[seat]["legal"])
            checked.clear()
            with monkeypatch.context() as patch:
                patch.setattr(state_type, "apply", apply)
                patch.setattr(state_type, "legal_actions_kept", legal_actions_kept)
                await match.act(live, clients[seat], live.meta.version, text)
            # the new state came from the unchecked apply (the rules may use the checked one
            # on their own trial copies, e.g. in `may_take_back`)
            assert all(state is not live.state for state in checked)
            # the log's sentence, worded without checking the listed move, is the one
            # `say` words after checking it
            said = shadow.say(seat, shadow.game.parse_action(text)).to_json()
            assert orjson.loads(live.log[-1][2])["say"] == said
            shadow.apply(seat, shadow.game.parse_action(text))
            assert live.state.to_json() == shadow.to_json()
            for client in clients:
                update = _messages(client)[-1]
                assert update["type"] == "update" and update["move"]["action"] == text
                # the views spliced from the public view encoded once are the seats' views
                assert update["view"] == shadow.view(client.seat)
                assert update["legal"] == (
                    [a.notation() for a in shadow.legal_actions(client.seat)]
                    if client.seat is not None and client.seat in shadow.current_seats()
                    else []
                )
                latest[client.seat] = update
        stored = await storage.list_actions(live.meta.id)
        assert [a.notation for a in stored] == [
            orjson.loads(line[2])["action"] for line in live.log
        ]
        assert len(stored) == live.meta.version > 10
        # Café's action phase keeps the other seat's list across most moves (and the
        # updates above got it); Coffee Rush has one seat to act at a time
        assert any(kept) == (game == "cafe")
    finally:
        await storage.close()


async def test_an_unlisted_move_is_checked_in_full_and_changes_nothing(tmp_path: Path) -> None:
    storage, match, live, clients = await _table(tmp_path, "cafe", 5)
    try:
        assert live.state is not None
        before = live.state.to_json()
        seat = min(live.state.current_seats())
        with pytest.raises(ProtocolError) as refused:
            await match.act(live, clients[seat], live.meta.version, "place Z9 nowhere")
        assert refused.value.code == ErrorCode.ILLEGAL
        assert live.state.to_json() == before and live.meta.version == 0
        # a legal move spelled otherwise than the list has it still plays, through the rules
        text = _messages(clients[seat])[-1]["legal"][0]
        await match.act(live, clients[seat], 0, f"  {text}  ")
        assert live.meta.version == 1
        assert orjson.loads(live.log[-1][2])["action"] == text
    finally:
        await storage.close()


async def test_a_move_against_a_stale_version_stores_nothing(tmp_path: Path) -> None:
    storage, _match, live, _clients = await _table(tmp_path, "coffee-rush", 6)
    try:
        with pytest.raises(StaleVersionError) as stale:
            await storage.append_action(live.meta.id, 3, 0, "x")
        assert stale.value.actual == 0
        assert await storage.list_actions(live.meta.id) == []
        assert (await storage.get_table(live.meta.id)).version == 0  # type: ignore[union-attr]
    finally:
        await storage.close()


@pytest.mark.parametrize(
    "public",
    [
        {"format": "f", "options": {"seat": None}, "seat": None, "scores": [{"total": 1}]},
        {"seat": None, "over": False},
        {"format": "f", "seat": None},
        {"seat": None},
    ],
)
def test_a_seats_view_spliced_from_the_public_one_is_its_encoding(public: dict[str, Any]) -> None:
    head, tail = _split_at_seat(public)
    for seat in (0, 1, 3):
        assert head + str(seat).encode() + tail == encode_json({**public, "seat": seat}).encode()


async def test_a_move_waits_for_another_processs_write_lock_then_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage, _match, live, _clients = await _table(tmp_path, "cafe", 7)
    try:
        monkeypatch.setattr(sqlite_loop, "BUSY_TIMEOUT", 0.3)
        other = sqlite3.connect(tmp_path / "hot.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        asyncio.get_running_loop().call_later(0.1, other.execute, "COMMIT")
        stored = await storage.append_action(live.meta.id, 0, 0, "a")  # waited, then stored
        assert stored.version == 1
        other.execute("BEGIN IMMEDIATE")  # now for longer than the busy timeout
        with pytest.raises(StorageError, match="database is locked"):
            await storage.append_action(live.meta.id, 1, 0, "b")
        other.execute("ROLLBACK")
        other.close()
        assert [a.notation for a in await storage.list_actions(live.meta.id)] == ["a"]
        await storage.append_action(live.meta.id, 1, 0, "b")  # the writer works again
        assert (await storage.get_table(live.meta.id)).version == 2  # type: ignore[union-attr]
    finally:
        await storage.close()


def _plain_area_json(area: Any) -> dict[str, Any]:
    """A Café area's JSON built afresh from its fields (the reading docs/records.md gives),
    beside the one `position.py` assembles from parts kept in `area.memo`."""
    from coffeetable.games.cafe.area import CellKind
    from coffeetable.games.cafe.deck import COLOURS, format_colours

    cells = []
    for pos in sorted(area.top):
        cell = area.top[pos]
        entry: dict[str, Any] = {"at": list(pos)}
        if cell.kind is CellKind.SHOP:
            entry["cell"] = "shop"
            entry["shop"] = area.shop_at[pos]
        else:
            entry["cell"] = cell.token
        if pos in area.cubes:
            colour, count = area.cubes[pos]
            entry["cubes"] = COLOURS[colour] * count
        cells.append(entry)
    shops = []
    for shop in area.shops:
        s: dict[str, Any] = {
            "city": shop.spec.city,
            "year": shop.spec.year,
            "requires": format_colours(shop.spec.requires),
            "vp": shop.spec.vp,
            "cells": [list(q) for q in shop.cells],
            "cubes": format_colours(shop.cubes),
        }
        if shop.spec.name:
            s["name"] = shop.spec.name
        if shop.card:
            s["card"] = shop.card
        shops.append(s)
    cards = [{"card": p.card, "at": [p.row, p.col], "rot": p.rotation * 90} for p in area.cards]
    return {"cards": cards, "cells": cells, "shops": shops}


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, None), (3, {"variant": "advanced", "espresso": True, "promos": ["leao", "atlas"]})],
)
def test_a_cafe_areas_json_from_kept_parts_is_the_json_built_afresh(
    players: int, options: dict[str, Any] | None
) -> None:
    from coffeetable.games.cafe.game import CafeGame
    from coffeetable.games.cafe.position import player_to_json

    steps = 0
    first = CafeGame().new_initial_state(players, players, options)
    for state in _played_with_copies(first, random.Random(players), 400):
        steps += 1
        for player in state.players:
            made = player_to_json(player)["area"]
            assert orjson.dumps(made) == orjson.dumps(_plain_area_json(player.area))
            # the output is the caller's: changing it leaves the kept parts as they were
            for entry in (*made["cells"], *made["cards"], *made["shops"]):
                entry["at" if "at" in entry else "city"] = "changed"
            again = player_to_json(player)["area"]
            assert orjson.dumps(again) == orjson.dumps(_plain_area_json(player.area))
    assert steps == 400


def _played_with_copies(first: Any, rng: random.Random, steps: int) -> Any:
    """Random play from `first` with copies taken at random and played on apart (Café's
    copies share the kept parts until either places a card): yields each state after a
    random legal move of a random seat to act, `steps` times unless every game ended."""
    games = [first]
    made = 0
    while games and made < steps:
        state = games.pop(rng.randrange(len(games)))
        if state.is_over():
            continue
        if rng.random() < 0.2:
            games.append(state.clone())
        seat = rng.choice(sorted(state.current_seats()))
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        games.append(state)
        made += 1
        yield state


def test_serve_parses_http_with_httptools() -> None:
    """`serve`'s HTTP protocol (the header time limit over uvicorn's choice) is httptools's,
    a dependency: a game's set-up costs the server about 15 % less CPU than with h11
    (benchmarks/load_setup.py; docs/server.md, "The hot path, fifth pass")."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from coffeetable.server.http_limits import header_timeout_protocol

    assert issubclass(header_timeout_protocol(5.0), HttpToolsProtocol)


def test_moved_table_is_replace() -> None:
    """`livetable.moved_table` (a move's new row, without `dataclasses.replace`'s
    `__init__`) makes the same table as `replace`, leaves the old one as it was, and
    refuses a field the row does not have as `replace` does."""
    import dataclasses
    from datetime import UTC, datetime

    from coffeetable.server.livetable import moved_table
    from coffeetable.server.storage import GameTable, Seat
    from tests.server.test_abandon_rules import _table

    now = datetime(2026, 11, 28, tzinfo=UTC)
    meta = dataclasses.replace(
        _table([Seat("human", 1), Seat("human", 2)]), rated=True, started_at=now
    )
    changes: list[dict[str, Any]] = [
        {"version": 4, "revision": 9},
        {"version": 5, "revision": 10, "status": "finished", "finished_at": now, "result": {}},
        {"version": 6, "revision": 11, "abandonment": None, "clock": {"state": {}}},
    ]
    for fields in changes:
        made = moved_table(meta, **fields)
        assert made == dataclasses.replace(meta, **fields)
        assert type(made) is GameTable and made is not meta
        assert meta.version == 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.version = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        moved_table(meta, version=4, no_such_field=1)


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("cafe", 2, None),
        ("cafe", 3, {"variant": "advanced", "espresso": True, "promos": ["leao", "atlas"]}),
        ("cafe", 4, None),
        ("coffee-rush", 2, None),
        ("coffee-rush", 3, None),
    ],
)
def test_a_shared_view_is_the_view_and_stays_so(
    game: str, players: int, options: dict[str, Any] | None
) -> None:
    """`State.view(seat, shared=True)` (what the server asks for) encodes to the bytes of
    `view(seat)` for every seat and spectator, over random games with copies taken at random
    (Café's copies share the kept entries); and the shared views stay as they were while
    play goes on and later views share their parts."""
    from coffeetable.core.registry import find_game

    seen: list[tuple[dict[str, Any], bytes]] = []
    steps = 0
    first = find_game(game).new_initial_state(players, players, options)
    for state in _played_with_copies(first, random.Random(players), 300):
        steps += 1
        for seat in (None, *range(players)):
            view = state.view(seat, shared=True)
            made = orjson.dumps(view)
            assert made == orjson.dumps(state.view(seat))
            seen.append((view, made))
    assert steps == 300
    assert all(orjson.dumps(view) == made for view, made in seen)
    if game == "cafe":  # the seats that did not change kept their entries
        assert len({id(entry) for view, _ in seen for entry in view["seats"]}) < len(seen)


@pytest.mark.parametrize(("game", "seed"), [("cafe", 5), ("coffee-rush", 6)])
async def test_the_server_sends_each_seat_its_fresh_view_and_changes_no_view(
    tmp_path: Path, game: str, seed: int
) -> None:
    """Every update a seat or spectator gets carries, byte for byte, the JSON of a fresh
    `state.view(seat)` of the table's state, though the server builds them from shared
    views (`State.view(seat, shared=True)`, the public view encoded once); and no view the
    server held is changed later by the moves that follow (its parts live on in later
    states' views)."""
    storage, match, live, clients = await _table(tmp_path, game, seed)
    try:
        rng = random.Random(seed)
        for client in clients:
            _messages(client)
        held: list[tuple[dict[str, Any], str]] = []
        moves = 0
        while moves < 150 and live.state is not None and not live.state.is_over():
            seat = rng.choice(sorted(live.state.current_seats()))
            text = rng.choice(match._legal(live, seat)[0])
            await match.act(live, clients[seat], live.meta.version, text)
            moves += 1
            state = live.state
            for client in clients:
                items = []
                while not client.queue.empty():
                    items.append(client.queue.get_nowait())
                # the update (then, at the end, the table's new status)
                assert isinstance(items[0], str) and len(items) == 1 + state.is_over()
                sent = items[0].encode()
                fresh = encode_json(state.view(client.seat)).encode()
                assert b'"view":' + fresh + b',"legal":' in sent
            held.extend((view, encode_json(view)) for view in live.cache.views.values())
        assert moves == 150 or live.state.is_over()
        assert all(encode_json(view) == made for view, made in held)
    finally:
        await storage.close()
