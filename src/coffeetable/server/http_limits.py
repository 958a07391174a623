"""The HTTP server's own limit that uvicorn lacks: a connection must finish a request's
headers within a time (slowloris: a client that sends a header line every few seconds holds
a connection, and its memory, for ever). uvicorn times out an idle kept-alive connection
(`timeout_keep_alive`), but not one that dribbles its headers."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol


def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class (`uvicorn.Config(http=...)`) that closes a connection
    whose request headers are not complete `seconds` after the request's first byte (or
    after the connection was made)."""

    class HeaderTimeoutProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _header_timer: asyncio.TimerHandle | None = None

        def _watch(self, cycle: Any) -> None:
            loop = asyncio.get_running_loop()
            self._header_timer = loop.call_later(seconds, self._headers_late, cycle)

        def _headers_late(self, cycle: Any) -> None:
            self._header_timer = None
            transport = self.transport
            # still no new request (and not a WebSocket now: the transport is its protocol's)
            if (
                self.cycle is cycle
                and transport.get_protocol() is self
                and not transport.is_closing()
            ):
                transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._watch(None)

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            if self._header_timer is None and (before is None or before.response_complete):
                self._watch(before)
            super().data_received(data)
            if self.cycle is not before and self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            super().connection_lost(exc)

    return HeaderTimeoutProtocol
