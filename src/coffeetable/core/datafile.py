"""Reading game data files (Café decks, Coffee Rush card lists): the file, its TOML, and the
error that lists every problem a validator found. Each game validates its own content."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from coffeetable.core.errors import DataError


class DataFileError(DataError):
    """An invalid data file. The message is one line naming the first problem; `problems`
    lists every problem (`coffeetable deck check FILE` prints them all)."""

    what = "data file"  # e.g. "deck", "Coffee Rush card file"

    def __init__(self, source: str, problems: list[str]) -> None:
        more = len(problems) - 1
        suffix = (
            f" (and {more} more problem{'s' if more > 1 else ''}: "
            f"`coffeetable deck check {source}` lists them all)"
            if more
            else ""
        )
        super().__init__(f"{source}: invalid {self.what}: {problems[0]}{suffix}")
        self.source = source
        self.problems = problems


def read_file(path: str | Path, what: str) -> tuple[bytes, str]:
    """The bytes of a data file and the name to report it by; DataError if unreadable."""
    p = Path(path)
    try:
        return p.read_bytes(), str(p)
    except OSError as exc:
        raise DataError(f"{p}: cannot read {what}: {exc.strerror or exc}") from None


def parse_toml(raw: bytes, source: str) -> dict[str, Any]:
    """UTF-8 TOML as a dict; DataError naming the source for bad text or syntax."""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"{source}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{source}: not valid TOML: {exc}") from None
