"""The edge keeps a socket's own ASGI `receive` and `send` in its scope
(`guard.ASGI_CHANNEL`): the sockets' frames go through them, under the framework's
per-frame layers (docs/server.md, "The hot path, ninth pass")."""

from __future__ import annotations

import asyncio
from typing import Any

from coffeetable.server.guard import ASGI_CHANNEL, EdgeGuard


def _guarded(seen: dict[str, Any]) -> EdgeGuard:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen["scope"] = scope
        seen["args"] = (receive, send)

    return EdgeGuard(app, allowed_origins=[], secure=False, sockets_per_address=10)


def test_a_socket_s_scope_holds_the_server_s_own_receive_and_send() -> None:
    seen: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, Any]) -> None:
        pass

    scope = {"type": "websocket", "headers": [], "client": ("127.0.0.1", 1), "path": "/ws"}
    asyncio.run(_guarded(seen)(scope, receive, send))
    assert seen["scope"][ASGI_CHANNEL] == (receive, send)
    assert seen["args"] == (receive, send)


def test_an_http_request_s_scope_has_no_channel() -> None:
    seen: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        pass

    scope = {"type": "http", "method": "GET", "headers": [], "path": "/"}
    asyncio.run(_guarded(seen)(scope, receive, send))
    assert ASGI_CHANNEL not in seen["scope"]
