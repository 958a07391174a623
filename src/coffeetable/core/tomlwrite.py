"""Canonical TOML text of a JSON model of a data file (`datafile.toml_model`).

The same model always gives the same text, and reading that text gives the model back, so a
file written here and read again is written identically (the round trip the deck editor and
`coffeetable deck format` rely on). Layout: in each table the keys the caller names first
(`order`), then the others as the model has them; plain values before sub-tables, sub-tables
before arrays of tables; an array of arrays one inner array per line (a card's rows). TOML
has no null: a key whose value is None is left out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}

#: key orders: table path (keys joined by ".", arrays of tables without an index; `*` for any
#: key) -> keys
Orders = Mapping[str, Sequence[str]]


def string(text: str) -> str:
    """A TOML basic string."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def key(name: str) -> str:
    return name if _BARE.fullmatch(name) else string(name)


def _is_table(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_table(v) for v in value)


def value(item: Any) -> str:
    """A value written inline."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(item)
    if isinstance(item, str):
        return string(item)
    if isinstance(item, Mapping):
        inner = ", ".join(f"{key(str(k))} = {value(v)}" for k, v in item.items() if v is not None)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(item, list):
        if item and all(isinstance(v, list) for v in item):
            return "[\n" + "".join(f"  {value(v)},\n" for v in item) + "]"
        return "[" + ", ".join(value(v) for v in item if v is not None) + "]"
    raise TypeError(f"a {type(item).__name__} cannot be written as TOML")


def _ordered(table: Mapping[str, Any], order: Sequence[str]) -> list[tuple[str, Any]]:
    first = [(k, table[k]) for k in order if k in table and table[k] is not None]
    rest = [(k, v) for k, v in table.items() if k not in order and v is not None]
    return first + rest


def _order_of(orders: Orders, path: list[str]) -> Sequence[str]:
    """The key order for `path`; `a.b.*` names every table in `a.b`."""
    exact = orders.get(".".join(path))
    if exact is None and path:
        exact = orders.get(".".join([*path[:-1], "*"]))
    return exact or ()


def _table(
    lines: list[str], table: Mapping[str, Any], path: list[str], kind: str, orders: Orders
) -> None:
    """`table` at `path` (kind: "" for the document, "[...]" or "[[...]]" for its header)."""
    items = _ordered(table, _order_of(orders, path))
    plain = [(k, v) for k, v in items if not _is_table(v) and not _is_table_array(v)]
    tables = [(k, v) for k, v in items if _is_table(v)]
    arrays = [(k, v) for k, v in items if _is_table_array(v)]
    header = ".".join(key(p) for p in path)
    # a table with no plain values but sub-tables needs no header of its own
    if kind and (plain or (not tables and not arrays) or kind == "[[]]"):
        if lines:
            lines.append("")
        lines.append(f"[[{header}]]" if kind == "[[]]" else f"[{header}]")
    for k, v in plain:
        lines.append(f"{key(k)} = {value(v)}")
    for k, v in tables:
        _table(lines, v, [*path, k], "[]", orders)
    for k, v in arrays:
        for element in v:
            _table(lines, element, [*path, k], "[[]]", orders)


def dumps(model: Mapping[str, Any], orders: Orders | None = None) -> str:
    """The canonical TOML text of `model` (keys are text; values JSON-like)."""
    lines: list[str] = []
    _table(lines, model, [], "", orders or {})
    return "\n".join(lines) + "\n"
