"""The WebSocket compression the server negotiates (server/websocket_deflate.py): an 8 KiB
window for the server's frames, so that an update is compressed against the one before it
on the same socket; the clients still read every update."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import orjson
import pytest

from coffeetable.server.websocket_deflate import SERVER_LEVEL, SERVER_WINDOW_BITS, deflate_factory
from tests.server.conftest import serve_on
from tests.server.live import Player, play_out

pytestmark = pytest.mark.server


def test_the_server_negotiates_its_window_and_its_updates_decode(tmp_path: Path) -> None:
    with serve_on("sqlite", tmp_path) as server:
        players = [Player(server).guest() for _ in range(2)]
        table = players[0].create("cafe", [{"kind": "human"}, {"kind": "open"}])
        assert players[1].post(f"/api/tables/{table['id']}/join").status_code == 200
        assert players[0].post(f"/api/tables/{table['id']}/start").status_code == 200
        sockets = [p.socket(table["id"]) for p in players]
        try:
            negotiated = sockets[0].ws.response.headers["Sec-WebSocket-Extensions"]
            assert "permessage-deflate" in negotiated
            assert f"server_max_window_bits={SERVER_WINDOW_BITS}" in negotiated
            for s in sockets:
                assert s.recv()["type"] == "snapshot"
            play_out(sockets, random.Random(3))
            assert all(s.over for s in sockets)
        finally:
            for s in sockets:
                s.close()
            for p in players:
                p.close()


def _deflated_size(frames: list[bytes], window_bits: int) -> int:
    encoder = zlib.compressobj(level=SERVER_LEVEL, wbits=-window_bits, memLevel=5)
    return sum(len(encoder.compress(f) + encoder.flush(zlib.Z_SYNC_FLUSH)) for f in frames)


def test_a_window_an_update_fits_in_compresses_the_next_against_it() -> None:
    """Why 13 bits: of two updates of the same table that differ a little, each of 4 to 8 KiB
    (a Café view), the second costs almost nothing with an 8 KiB window, and about as much as
    the first with uvicorn's 4 KiB one."""
    rng = random.Random(1)
    # a view's text has many distinct tokens: made of a handful repeated, a fast level's
    # short hash chains would be filled by near matches and never reach the update before
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(7)) for _ in range(400)]
    view = {"cells": [[rng.choice(words), rng.randrange(9)] for _ in range(400)]}
    first = orjson.dumps(view)
    view["cells"][7][1] += 1
    second = orjson.dumps(view)
    assert 4_096 < len(first) < 8_192
    ours = _deflated_size([first, second], SERVER_WINDOW_BITS) - _deflated_size([first], 13)
    uvicorns = _deflated_size([first, second], 12) - _deflated_size([first], 12)
    assert ours * 5 < uvicorns
    factory = deflate_factory()
    assert factory.server_max_window_bits == SERVER_WINDOW_BITS


def test_the_server_deflates_its_frames_at_its_level() -> None:
    """The extension the server negotiates compresses at `SERVER_LEVEL` (a fast one),
    with the 8 KiB window, each frame against the ones before it on the socket."""
    from websockets.frames import Frame, Opcode

    _, extension = deflate_factory().process_request_params([], [])
    rng = random.Random(2)
    frames = [
        orjson.dumps({"cells": [[rng.choice("abcdef") * 3, rng.randrange(9)] for _ in range(300)]})
        for _ in range(3)
    ]
    sent = [bytes(extension.encode(Frame(Opcode.TEXT, f)).data) for f in frames]

    def deflated(level: int) -> list[bytes]:
        encoder = zlib.compressobj(level=level, wbits=-SERVER_WINDOW_BITS, memLevel=5)
        return [(encoder.compress(f) + encoder.flush(zlib.Z_SYNC_FLUSH))[:-4] for f in frames]

    assert sent == deflated(SERVER_LEVEL)
    assert deflated(1) != deflated(
        6
    )  # the levels' outputs differ: the check above tells them apart
    decoder = zlib.decompressobj(wbits=-SERVER_WINDOW_BITS)
    assert [decoder.decompress(s + b"\x00\x00\xff\xff") for s in sent] == frames
