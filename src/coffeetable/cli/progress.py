"""A one-line progress bar on standard error, for long runs (shown only on a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(
        self, total: int, what: str, stream: TextIO | None = None, show: bool | None = None
    ) -> None:
        self.total = max(1, total)
        self.what = what
        self.stream = stream or sys.stderr
        self.show = self.stream.isatty() if show is None else show
        self.start = time.perf_counter()
        self.done = 0

    def step(self, n: int = 1) -> None:
        self.done += n
        if not self.show:
            return
        width = 30
        filled = int(width * self.done / self.total)
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.what}"
            f"  {elapsed:.0f} s elapsed, ~{eta:.0f} s left "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.show:
            self.stream.write("\n")
            self.stream.flush()
