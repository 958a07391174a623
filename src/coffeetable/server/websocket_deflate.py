"""The WebSocket compression the server offers (permessage-deflate, RFC 7692), tuned to its
updates: uvicorn's default deflates with a 4 KiB window (`server_max_window_bits=12`), less
than many updates (1.8 KiB median, 2.9 KiB mean, up to 8.5 KiB), so each update is
compressed nearly on its own. With an 8 KiB window (13 bits) the next update of the same
socket finds most of its text in the previous one: the server's deflate takes about 40 %
less CPU per frame and the frames come out about three times smaller (docs/server.md, "The
hot path, fourth pass"), for 16 KiB more memory per socket (48 against 32 KiB of zlib
state)."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

#: log2 of the window the server compresses its frames with (zlib's 9..15)
SERVER_WINDOW_BITS = 13
#: zlib's compression level of the server's frames: 2, one of its fast levels. Over 4,102
#: updates of both games compressed per socket with the 8 KiB window, level 2 takes 30 %
#: fewer instructions a frame than zlib's default (6): 132 k against 188 k, about 110 k a
#: move of the server's 1.73 M, for frames of 376 bytes on average instead of 158 (13 % of
#: the text instead of 5.5 %). Level 1 is no faster (133 k) and makes 399 bytes; levels 4–5
#: save only 4–7 % (docs/server.md, "The hot path, ninth pass").
SERVER_LEVEL = 2
#: log2 of the window a client may compress its frames with: its frames (moves, chat) are
#: small, and this bounds the memory of the server's decoder
CLIENT_WINDOW_BITS = 12


def deflate_factory() -> ServerPerMessageDeflateFactory:
    """The permessage-deflate extension the server negotiates."""
    return ServerPerMessageDeflateFactory(
        server_max_window_bits=SERVER_WINDOW_BITS,
        client_max_window_bits=CLIENT_WINDOW_BITS,
        compress_settings={"memLevel": 5, "level": SERVER_LEVEL},
    )


class DeflateWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (`uvicorn.Config(ws=...)`) with `deflate_factory`'s
    compression in place of uvicorn's own (none when `ws_per_message_deflate` is off)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            # the handshake has not begun: the extensions are only offered from here on
            self.conn.available_extensions = [deflate_factory()]
