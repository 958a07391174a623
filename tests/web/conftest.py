"""Browser tests of the web client: Playwright for Python driving Debian's Chromium against a
real `coffeetable serve` process (tests/server/live.py).

Without /usr/bin/chromium (or without the playwright package) these tests are skipped, unless
COFFEETABLE_REQUIRE_BROWSER=1, which makes that a failure. `playwright install` is never
needed: the system browser is used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess

CHROMIUM = Path(os.environ.get("COFFEETABLE_CHROMIUM", "/usr/bin/chromium"))
REQUIRE_ENV = "COFFEETABLE_REQUIRE_BROWSER"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _why_no_browser() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, for the tests of one module. Not for the whole session: Playwright's sync API
    keeps an asyncio loop running in this thread while it is open, and a test process
    (pytest-xdist's worker) may go on to other files whose fixtures call asyncio.run()."""
    reason = _why_no_browser()
    if reason is not None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the browser tests cannot run: {reason}")
        pytest.skip(f"browser tests need Chromium and playwright: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@contextlib.contextmanager
def web_server(folder: Path, **env: str) -> Iterator[ServerProcess]:
    """A real server on a fresh SQLite file in `folder`, with these environment variables;
    it must never log a traceback."""
    proc = ServerProcess(
        f"sqlite:///{folder / 'web.db'}", folder / "server.log", bot_workers=1, extra_env=env
    )
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        assert "Traceback" not in proc.log_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """A real server on a fresh SQLite file, shared by the tests of a module."""
    with web_server(tmp_path_factory.mktemp("web")) as proc:
        yield proc


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
