"""`coffeetable serve` with the lobby's random draws (each new table's seed and id) taken from
a seeded generator, and without uvicorn's keepalive pings, for `load_instructions.py`: two
runs of the server then deal the same games, so their instruction counts differ only by what
the runs did differently.

    python3 benchmarks/_seeded_serve.py SEED serve --port PORT --db URL ...

For benchmarks only: a site whose decks can be predicted is no site. Session tokens and
everything else stay drawn from the system's randomness.
"""

from __future__ import annotations

import random
import secrets
import sys
from typing import Any


class _SeededSecrets:
    """Stands in for the `secrets` module inside `coffeetable.server.lobby`."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def randbits(self, k: int) -> int:
        return self._rng.getrandbits(k)

    def token_urlsafe(self, nbytes: int | None = None) -> str:
        import base64

        raw = self._rng.randbytes(nbytes or 32)
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    def __getattr__(self, name: str) -> Any:
        return getattr(secrets, name)


def _no_keepalive_pings() -> None:
    """uvicorn pings every socket every 20 s: under callgrind, where a move takes ~50 times
    as long, those pings would add a count that follows the wall clock, not the moves."""
    import uvicorn

    init = uvicorn.Config.__init__

    def without_pings(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs["ws_ping_interval"] = None
        init(self, *args, **kwargs)

    uvicorn.Config.__init__ = without_pings  # type: ignore[method-assign]


def main() -> int:
    seed = int(sys.argv[1])
    from coffeetable.server import lobby

    lobby.secrets = _SeededSecrets(seed)  # type: ignore[assignment]
    _no_keepalive_pings()
    from coffeetable.cli.main import main as cli_main

    return cli_main(sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
