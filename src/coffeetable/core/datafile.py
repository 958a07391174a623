"""Reading game data files (Café decks, Coffee Rush card lists): the file, its TOML, the
structured problems a validator finds (`Problem`: a code, where, parameters and an English
sentence) and the error that lists them all. Each game validates its own content and lists
its problem codes (`PROBLEM_CODES` in games/cafe/deck.py and games/coffee_rush/cards.py).

A file is also a JSON model (`toml_model`): the TOML document as JSON, every field kept, dates
written as ISO text. `core/tomlwrite.py` writes a model back as canonical TOML.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from coffeetable.core.errors import DataError

#: The problem codes every data file shares: code -> English template (`{param}` placeholders).
COMMON_CODES: dict[str, str] = {
    "not_utf8": "not UTF-8 text",
    "not_toml": "not valid TOML: {reason} (at line {line}, column {column})",
    "too_deep": "values are nested more than {max} levels deep",
    "number_too_large": "{got} is out of range: numbers are whole numbers from {min} to {max}",
    "bad_text": "{got} is not text that can be written in a file",
    "bad_format": "'format' must be {expected} (got {got})",
    "bad_version": "'version' must be a whole number (got {got})",
    "bad_name": "'name' must be a non-empty string (got {got})",
    "unknown_fields": "unknown field(s) {fields}",
}
#: TOML's integers are 64-bit.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: How deeply values may nest in a data file (a deck nests 4 deep).
MAX_DEPTH = 16


def shown(value: Any, limit: int = 60) -> str:
    """A value as a problem message quotes it: Python's repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a data file. `card`: the id of the card (Café) or the name of
    the drink (Coffee Rush) it concerns; `index`: that card's 0-based position in the file;
    `field`: the field path (`shops.a.vp`, `box.tokens.milk`); `params`: the values the
    English `message` was rendered with, for translations (`deckproblem.<code>`).
    `where` is how the command line names the place (`card P12`, `[box] tokens`)."""

    code: str
    message: str
    card: str | None = None
    index: int | None = None
    field: str | None = None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    where: str = ""

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "card": self.card,
            "index": self.index,
            "field": self.field,
            "params": dict(self.params),
            "message": str(self),
        }


def make_problem(
    templates: Mapping[str, str],
    code: str,
    *,
    where: str = "",
    card: str | None = None,
    index: int | None = None,
    field: str | None = None,
    **params: Any,
) -> Problem:
    """A problem with its English message rendered from `templates[code]`."""
    return Problem(
        code=code,
        message=templates[code].format(**params),
        card=card,
        index=index,
        field=field,
        params=params,
        where=where,
    )


class ProblemError(DataError):
    """One problem found while reading one part of a file (a card); the loader collects it."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class DataFileError(DataError):
    """An invalid data file. The message is one line naming the first problem; `problems`
    lists every problem as text (`coffeetable deck check FILE` prints them all) and
    `details` as `Problem`s."""

    what = "data file"  # e.g. "deck", "Coffee Rush card file"

    def __init__(self, source: str, problems: list[Problem]) -> None:
        texts = [str(p) for p in problems]
        more = len(texts) - 1
        suffix = (
            f" (and {more} more problem{'s' if more > 1 else ''}: "
            f"`coffeetable deck check {source}` lists them all)"
            if more
            else ""
        )
        super().__init__(f"{source}: invalid {self.what}: {texts[0]}{suffix}")
        self.source = source
        self.problems = texts
        self.details = problems


class UnreadableError(DataError):
    """A data file that is not UTF-8 TOML at all; `problem` says where and why."""

    def __init__(self, source: str, problem: Problem) -> None:
        super().__init__(f"{source}: {problem}")
        self.problem = problem


def read_file(path: str | Path, what: str) -> tuple[bytes, str]:
    """The bytes of a data file and the name to report it by; DataError if unreadable."""
    p = Path(path)
    try:
        return p.read_bytes(), str(p)
    except OSError as exc:
        raise DataError(f"{p}: cannot read {what}: {exc.strerror or exc}") from None


_AT = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$")


def parse_toml(raw: bytes, source: str) -> dict[str, Any]:
    """UTF-8 TOML as a dict; UnreadableError naming the source for bad text or syntax."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableError(
            source, make_problem(COMMON_CODES, "not_utf8", byte=exc.start)
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _AT.match(str(exc))
        if match:
            reason, line, column = match[1], int(match[2]), int(match[3])
        else:  # "(at end of document)": the line after the last
            reason = str(exc).removesuffix(" (at end of document)")
            line, column = text.count("\n") + 1, len(text) - text.rfind("\n")
        problem = make_problem(COMMON_CODES, "not_toml", reason=reason, line=line, column=column)
    except RecursionError:
        problem = make_problem(
            COMMON_CODES, "not_toml", reason="nested too deeply", line=0, column=0
        )
    raise UnreadableError(source, problem)


def toml_model(data: Mapping[str, Any]) -> dict[str, Any]:
    """A parsed TOML document as JSON: dates and times as ISO text, infinite and NaN floats
    as text (JSON has neither); everything else as it is."""

    def convert(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(k): convert(v) for k, v in value.items()}
        if isinstance(value, list):
            return [convert(v) for v in value]
        if isinstance(value, datetime | date | time):
            return value.isoformat()
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return value

    result: dict[str, Any] = convert(data)
    return result


def read_header(data: Mapping[str, Any], source: str, problems: list[Problem]) -> tuple[str, int]:
    """A data file's `name` (default: the source) and `version` (default 0); their
    problems (`bad_name`, `bad_version`) go into `problems`."""
    version = data.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        problems.append(
            make_problem(COMMON_CODES, "bad_version", field="version", got=shown(version))
        )
        version = 0
    name = data.get("name", source)
    if not isinstance(name, str) or not name.strip():
        problems.append(make_problem(COMMON_CODES, "bad_name", field="name", got=shown(name)))
        name = source
    return name, version


def model_problems(model: Any) -> list[Problem]:
    """What keeps a JSON model from being written as TOML: too deep, numbers TOML cannot
    hold, text that is not Unicode. Empty for a writable model (a dict)."""
    problems: list[Problem] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            problems.append(
                make_problem(COMMON_CODES, "too_deep", field=path or None, max=MAX_DEPTH)
            )
            return
        if isinstance(value, Mapping):
            for key, item in value.items():
                walk(key, path, depth + 1)
                walk(item, f"{path}.{key}" if path else str(key), depth + 1)
        elif isinstance(value, list):
            for n, item in enumerate(value):
                walk(item, f"{path}[{n}]", depth + 1)
        elif isinstance(value, int) and not isinstance(value, bool):
            if not INT_MIN <= value <= INT_MAX:
                problems.append(
                    make_problem(
                        COMMON_CODES,
                        "number_too_large",
                        field=path or None,
                        got=shown(value, 30),
                        min=INT_MIN,
                        max=INT_MAX,
                    )
                )
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                problems.append(
                    make_problem(COMMON_CODES, "bad_text", field=path or None, got=shown(value))
                )

    walk(model, "", 0)
    return problems
