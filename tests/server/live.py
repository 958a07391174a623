"""A real server process and scripted clients over real sockets, for the server tests and the
load benchmark."""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from coffeetable.server.auth import SESSION_COOKIE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """`coffeetable serve` on a free loopback port, on the database at `db_url`."""

    def __init__(
        self,
        db_url: str,
        log_path: Path,
        bot_workers: int = 1,
        extra_env: dict[str, str] | None = None,
        extra_args: list[str] | None = None,
    ) -> None:
        self.extra_env = extra_env or {}
        self.extra_args = extra_args or []
        self.db_url = db_url
        self.log_path = log_path
        self.bot_workers = bot_workers
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - the process owns it
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "coffeetable",
                "serve",
                "--port",
                str(self.port),
                "--db",
                self.db_url,
                "--bot-workers",
                str(self.bot_workers),
                *self.extra_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            # tests create many accounts from one address: a larger burst than the default 20
            env={
                **os.environ,
                "PYTHONUNBUFFERED": "1",
                "COFFEETABLE_AUTH_BURST": "80",
                # and many tables and sockets from one address and one player
                "COFFEETABLE_TABLE_BURST": "100000",
                "COFFEETABLE_OPEN_TABLES": "100000",
                "COFFEETABLE_SOCKETS_PER_ADDRESS": "100000",
                **self.extra_env,
            },
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/api/games", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


class Player:
    """A person at the keyboard: an HTTP session (cookie) and WebSockets to tables."""

    def __init__(self, server: ServerProcess | Any) -> None:
        self.server = server  # anything with `url` and `ws_url`: a node, or a load balancer
        self.http = httpx.Client(base_url=server.url, timeout=30)
        self.name = ""

    def guest(self) -> Player:
        r = self.http.post("/api/guest")
        r.raise_for_status()
        self.name = r.json()["name"]
        return self

    def register(self, name: str, password: str = "correct horse battery") -> httpx.Response:
        r = self.http.post("/api/register", json={"name": name, "password": password})
        if r.status_code == 200:
            self.name = r.json()["name"]
        return r

    @property
    def token(self) -> str:
        return self.http.cookies.get(SESSION_COOKIE) or ""

    def create(self, game: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        r = self.http.post("/api/tables", json={"game": game, "seats": seats, **extra})
        assert r.status_code == 201, r.text
        table: dict[str, Any] = r.json()
        return table

    def post(self, path: str, **body: Any) -> httpx.Response:
        return self.http.post(path, json=body or None)

    def socket(self, table_id: str, query: str = "", via: Any = None) -> Socket:
        """A socket to the table, through `via` (a node: anything with `ws_url`) or the
        player's own server."""
        headers = {"Cookie": f"{SESSION_COOKIE}={self.token}"} if self.token else {}
        ws = connect(
            f"{(via or self.server).ws_url}/ws/tables/{table_id}{query}",
            additional_headers=headers,
            open_timeout=10,
            max_size=8 * 1024 * 1024,
        ).__enter__()  # the connection lives as long as the Socket; Socket.close ends it
        return Socket(ws)

    def close(self) -> None:
        self.http.close()


class Socket:
    """One table connection: keeps the latest snapshot/update it has seen."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.version = -1
        self.view: dict[str, Any] | None = None
        self.legal: list[str] = []
        self.seat: int | None = None
        self.table: dict[str, Any] | None = None
        self.received: list[dict[str, Any]] = []

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.received.append(message)
        kind = message["type"]
        if kind in ("snapshot", "update", "undo"):
            self.version = message["version"]
            if "view" in message:
                self.view = message["view"]
                self.legal = message["legal"]
            self.seat = message["seat"]
        if kind == "snapshot" or kind == "table":
            self.table = message["table"]
        return message

    def recv_until(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind:
                return message

    def send(self, message: dict[str, Any] | str) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def act(self, action: str, version: int | None = None) -> None:
        self.send(
            {
                "type": "act",
                "version": self.version if version is None else version,
                "action": action,
            }
        )

    def undo(self, version: int | None = None) -> None:
        self.send({"type": "undo", "version": self.version if version is None else version})

    def drain(self, quiet: float = 0.05) -> None:
        """Read everything already sent."""
        while True:
            try:
                self.recv(quiet)
            except TimeoutError:
                return

    @property
    def over(self) -> bool:
        return bool(self.view and self.view["over"])

    def close(self) -> None:
        self.ws.close()


def play_out(sockets: list[Socket], rng: random.Random, timeout: float = 300) -> None:
    """Play random legal moves for every socket's seat until the game is over. Updates are
    read as they come; a seat acts when the latest view says it may."""
    deadline = time.monotonic() + timeout
    while not all(s.over for s in sockets):
        if time.monotonic() > deadline:
            raise TimeoutError(f"game did not finish in time: {_stalled(sockets)}")
        moved = False
        for s in sockets:
            s.drain(0.001)
            if s.over:
                continue
            if s.legal and s.seat in (s.view or {}).get("current_seats", []):
                s.act(rng.choice(s.legal))
                reply = s.recv(30)
                while reply["type"] not in ("update", "error"):
                    reply = s.recv(30)
                if reply["type"] == "error":
                    assert reply["code"] in (
                        "stale_version",
                        "not_your_turn",
                        "illegal",
                        "rate_limited",
                    ), reply
                    if reply["code"] == "rate_limited":
                        # faster than the server's message rate: slow down, as a client must
                        time.sleep(0.2)
                moved = True
        if not moved:
            for s in sockets:
                if not s.over:
                    with contextlib.suppress(TimeoutError):
                        s.recv(0.2)


def _stalled(sockets: list[Socket]) -> str:
    """What each socket knew when a game stalled (for the failure's message): its version,
    seat, the seats to move, its legal moves' count and the last messages it got."""
    return "; ".join(
        f"seat {s.seat} at version {s.version}, to move {(s.view or {}).get('current_seats')}, "
        f"{len(s.legal)} legal, last messages {[_brief(m) for m in s.received[-6:]]}"
        for s in sockets
    )


def _brief(message: dict[str, Any]) -> dict[str, Any]:
    """A received message without its (long) view and legal moves."""
    return {k: v for k, v in message.items() if k not in ("view", "legal", "table", "log")}


def finished_record(
    game: str = "coffee-rush",
    names: tuple[str, ...] = ("Ana", "Bo"),
    seed: int = 5,
    played: Any = None,
) -> dict[str, Any]:
    """A finished game of random moves as a record (the lowest seat to move plays);
    `played`: the Game object when not the registered one (a players' deck)."""
    from coffeetable.core.record import GameRecord
    from coffeetable.core.registry import find_game

    state = (played or find_game(game)).new_initial_state(len(names), seed, {})
    options = {k: v for k, v in state.options.items() if played and k.endswith("_sha256")}
    record = GameRecord(game=game, seats=list(names), seed=seed, options=options)
    rng = random.Random(seed)
    while not state.is_over():
        seat = min(state.current_seats())
        action = rng.choice(state.legal_actions(seat))
        record.actions.append((seat, action.notation()))
        state.apply(seat, action)
    out: dict[str, Any] = record.to_json(state)
    return out


def server_tracebacks(log: str) -> list[str]:
    """The tracebacks in a server's log, but for one that is no server's: a bot pool's worker
    process that the server was killed while starting (SIGKILL mid-spawn) finds its parent's
    pipe closed before any of our code runs and Python prints that in multiprocessing's own
    `spawn_main` ("EOFError: Ran out of input"); the worker then ends, as it should."""
    found = []
    for block in log.split("Traceback (most recent call last):")[1:]:
        lines = block.splitlines()[:12]
        if any("in spawn_main" in line for line in lines) and any(
            line.startswith("EOFError: Ran out of input") for line in lines
        ):
            continue
        found.append(block[:2000])
    return found
