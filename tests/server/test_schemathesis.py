"""Issue 36's schemathesis suite: the HTTP API fuzzed from its own `/openapi.json`, against a
real server process (SQLite), as a logged-in guest: examples, coverage, fuzzing and the
stateful phase (sequences of calls linked by the schema), with a fixed seed and a bounded
number of cases. No answer may be a 5xx, and every answer must match the description:
its status documented, its body and content type as the schema says, a 405 with `Allow`.

Schemathesis runs as its CLI (`st run`) in a subprocess: its pytest plugin does not load
beside this test suite's plugins, and the CLI runs every phase, the stateful one included.

Left out: the two logout routes (they would end the session the run uses; tests/server/
test_auth.py and test_hardening.py test them); and 400 counts as a proper refusal of a
schema-valid body (`positive_data_acceptance`), since the rules a name, a password, a game's
options or a record must meet are checked by the server, not written in the schema."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, ServerProcess

pytestmark = pytest.mark.server

SEED = 36
MAX_EXAMPLES = 25  # per operation and phase
CONFIG = """\
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]
"""


@pytest.mark.slow  # a fuzz run of about a minute: CI's slow suite (the README's run stays short)
def test_schemathesis_finds_no_server_error_and_no_schema_mismatch(tmp_path: Path) -> None:
    pytest.importorskip("schemathesis")
    server = ServerProcess(f"sqlite:///{tmp_path / 'st.db'}", tmp_path / "server.log")
    server.start()
    try:
        guest = Player(server).guest()
        config = tmp_path / "schemathesis.toml"
        config.write_text(CONFIG)
        st = Path(sys.executable).with_name("st")
        run = subprocess.run(
            [
                str(st) if st.exists() else "st",
                "--config-file",
                str(config),
                "--no-color",
                "run",
                f"{server.url}/openapi.json",
                "--checks",
                "all",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--seed",
                str(SEED),
                "--generation-deterministic",
                "--max-examples",
                str(MAX_EXAMPLES),
                "--workers",
                "1",
                "--output-truncate",
                "false",
                "--request-timeout",
                "30",
                "--header",
                f"Cookie: {SESSION_COOKIE}={guest.token}",
                "--header",
                f"Origin: {server.url}",  # the site's own: state-changing requests pass
                "--exclude-path",
                "/api/logout",
                "--exclude-path",
                "/api/logout/everywhere",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
            env={**os.environ, "NO_COLOR": "1"},
        )
        guest.close()
        output = run.stdout + run.stderr
        summary = re.search(r"Test cases:\n\s*(.+)", output)
        print(f"\nschemathesis: {summary.group(1) if summary else output[-2000:]}")
        assert run.returncode == 0, output[-20000:]
    finally:
        server.stop()
    log = server.log_text()
    assert "Traceback" not in log, log[-8000:]
