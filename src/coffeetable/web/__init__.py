"""The browser client: static HTML, CSS and JavaScript served by `coffeetable serve` at `/`.

It talks only to the server's documented HTTP API and WebSocket protocol (docs/server.md,
docs/server-protocol.md), never to the rules engines.
"""
