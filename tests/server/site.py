"""A whole site on this machine, for the several-nodes tests: `coffeetable serve` nodes on
PostgreSQL (a fresh schema) and Redis (a database of its own, emptied), `coffeetable
bot-worker` processes, and Debian's nginx in front with the shipped deploy/nginx.conf.

Without PostgreSQL, Redis or nginx the tests that use it are skipped with the reason, unless
COFFEETABLE_REQUIRE_SITE=1 (as in .ci/run), which makes that a failure."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.live import ServerProcess, free_port, server_tracebacks

REQUIRE_ENV = "COFFEETABLE_REQUIRE_SITE"
#: The Redis database the site tests use (they empty it): 9, or 9 + N for pytest-xdist's
#: worker gwN, so that two workers' sites never meet.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
REDIS_URL = os.environ.get(
    "COFFEETABLE_TEST_REDIS", f"redis://127.0.0.1:6379/{9 + int(_WORKER or 0)}"
)
ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but a site cannot run here: {reason}")
    pytest.skip(f"a several-nodes site needs PostgreSQL, Redis and nginx: {reason}")


def _redis_reason() -> str | None:
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
        client.flushdb()
        client.close()
    except Exception as exc:
        return f"Redis at {REDIS_URL} is not reachable ({exc})"
    return None


class Nginx:
    """Debian's nginx running deploy/nginx.conf with the site's nodes as its upstream."""

    def __init__(self, folder: Path, node_ports: list[int]) -> None:
        self.folder = folder
        self.port = free_port()
        self.node_ports = node_ports
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def render(self) -> str:
        text = (ROOT / "deploy" / "nginx.conf").read_text()
        servers = "".join(
            f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n"
            for port in self.node_ports
        )
        text = re.sub(
            r"(upstream coffeetable_nodes \{\n)(?:.*\n)*?(        keepalive)",
            lambda m: m.group(1) + servers + m.group(2),
            text,
        )
        text = text.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        text = text.replace("worker_processes auto;", "worker_processes 1;")
        # a private prefix: pid, logs and temporary files in the test's folder
        head = f"pid {self.folder}/nginx.pid;\nerror_log {self.folder}/nginx-error.log warn;\n" + (
            "user root;\n" if os.geteuid() == 0 else ""
        )
        temp = "".join(
            f"    {name}_temp_path {self.folder}/{name};\n"
            for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        text = text.replace("http {\n", "http {\n" + temp + "    access_log off;\n", 1)
        return head + text

    def start(self) -> None:
        conf = self.folder / "nginx.conf"
        conf.write_text(self.render())
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(self.folder), "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=open(self.folder / "nginx-stderr.log", "ab"),  # noqa: SIM115
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/games", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("nginx did not start: " + (self.folder / "nginx-error.log").read_text())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


class BotWorker:
    def __init__(self, redis_url: str, log_path: Path) -> None:
        self.redis_url = redis_url
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "coffeetable", "bot-worker", "--redis", self.redis_url],
            stdout=open(self.log_path, "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,  # kill -9 of the group takes its worker processes too
        )

    def kill(self) -> None:
        """kill -9 the worker and its processes (a crash, the OOM killer)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc = None


class RedisServer:
    """A redis-server of the test's own, on a free port, that a test may stop and start (the
    machine's Redis serves other tests)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=open(self.folder / "redis.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
        )
        import redis

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                redis.Redis(port=self.port, socket_connect_timeout=0.5).ping()
                return
            except Exception:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None


class Site:
    """N nodes, M bot workers and nginx on one PostgreSQL schema and one Redis database
    (the machine's, or with `own_redis` a redis-server of the site's own)."""

    def __init__(
        self,
        folder: Path,
        nodes: int = 3,
        workers: int = 2,
        own_redis: bool = False,
        extra_env: dict[str, str] | None = None,
        extra_args: list[str] | None = None,
    ) -> None:
        from tests.server.conftest import _postgres_schema_url

        if not Path(NGINX).exists():
            unavailable("no nginx (apt-get install nginx)")
        self.own_redis = RedisServer(folder) if own_redis else None
        reason = None if own_redis else _redis_reason()
        if reason:
            unavailable(reason)
        url, self.pg_base, why = _postgres_schema_url()
        if url is None:
            unavailable(f"PostgreSQL is not reachable ({why})")
        self.db_url: str = url  # type: ignore[assignment]
        self.folder = folder
        if self.own_redis is not None:
            self.own_redis.start()
        self.redis_url = self.own_redis.url if self.own_redis is not None else REDIS_URL
        self.nodes = [
            ServerProcess(
                self.db_url,
                folder / f"node{i}.log",
                bot_workers=0,
                extra_args=["--redis", self.redis_url, *(extra_args or [])],
                extra_env=extra_env,
            )
            for i in range(nodes)
        ]
        self.workers = [
            BotWorker(self.redis_url, folder / f"worker{i}.log") for i in range(workers)
        ]
        self.nginx = Nginx(folder, [n.port for n in self.nodes])

    def start(self) -> Site:
        for node in self.nodes:
            node.start()
        for worker in self.workers:
            worker.start()
        self.nginx.start()
        return self

    @contextlib.contextmanager
    def running(self) -> Iterator[Site]:
        """The site started, and stopped at the end; no node or worker may have logged a
        traceback meanwhile (a test module's fixture)."""
        self.start()
        try:
            yield self
        finally:
            logs = self.logs()
            self.stop()
            assert not server_tracebacks(logs), logs[-8000:]

    def kill_node(self, index: int) -> None:
        """kill -9 a node."""
        node = self.nodes[index]
        if node.proc is not None and node.proc.poll() is None:
            node.proc.kill()
            node.proc.wait(10)
        node.proc = None

    def logs(self) -> str:
        parts = []
        for path in sorted(self.folder.glob("*.log")):
            parts.append(f"==== {path.name}\n{path.read_text(errors='replace')[-4000:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        self.nginx.stop()
        for worker in self.workers:
            worker.stop()
        for node in self.nodes:
            node.stop()
        if self.own_redis is not None:
            self.own_redis.kill()
        from tests.server.storage.helpers import drop_postgres_schema

        asyncio.run(drop_postgres_schema(self.pg_base, self.db_url))

    def redis(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis_url)
