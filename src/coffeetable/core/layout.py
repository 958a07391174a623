"""Named slices of a flat observation tensor: the layout each game's `observation.py` declares.

A :class:`TensorLayout` is an ordered list of :class:`Field` objects. Each field has a name,
a shape (flattened row-major, last axis fastest), an upper bound per element (the lower
bound is always 0) and a one-line description. The layout gives every field its offset in
the flat vector, the bounds of the whole vector (for a Gymnasium ``Box``) and a Markdown
table of the slices (docs/rl.md shows them).

Pure Python: numpy is imported only by `low()` / `high()`, so importing this module costs
nothing for code that never builds tensors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Field:
    """One slice of the tensor. `high` is the largest value of every element, or a sequence
    of bounds along the last axis (e.g. one per colour or per channel)."""

    name: str
    shape: tuple[int, ...]
    high: float | tuple[float, ...]
    doc: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class TensorLayout:
    """Fields laid end to end in one flat float32 vector."""

    def __init__(self, fields: Sequence[Field]) -> None:
        self.fields: tuple[Field, ...] = tuple(fields)
        self.offsets: dict[str, int] = {}
        offset = 0
        for field in self.fields:
            if field.name in self.offsets:
                raise ValueError(f"field {field.name!r} is declared twice")
            if isinstance(field.high, tuple) and len(field.high) != field.shape[-1]:
                raise ValueError(f"field {field.name!r}: one bound per element of the last axis")
            self.offsets[field.name] = offset
            offset += field.size
        self.size = offset
        self._by_name = {f.name: f for f in self.fields}

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def field(self, name: str) -> Field:
        return self._by_name[name]

    def span(self, name: str) -> tuple[int, int]:
        """(start, stop) of a field in the flat vector."""
        start = self.offsets[name]
        return start, start + self._by_name[name].size

    def low(self) -> Any:
        import numpy as np

        return np.zeros(self.size, dtype=np.float32)

    def high(self) -> Any:
        import numpy as np

        out = np.empty(self.size, dtype=np.float32)
        for field in self.fields:
            start, stop = self.span(field.name)
            part = out[start:stop].reshape(field.shape)
            part[...] = np.asarray(field.high, dtype=np.float32)
        return out

    def markdown(self) -> str:
        """The layout as a Markdown table: name, offsets, shape, bound, meaning."""
        lines = ["| slice | offsets | shape | max | meaning |", "|---|---|---|---|---|"]
        for field in self.fields:
            start, stop = self.span(field.name)
            shape = " × ".join(str(d) for d in field.shape)
            if isinstance(field.high, tuple):
                high = "per element" if len(set(field.high)) > 1 else _num(field.high[0])
            else:
                high = _num(field.high)
            lines.append(
                f"| `{field.name}` | {start}–{stop - 1} | {shape} | {high} | {field.doc} |"
            )
        return "\n".join(lines)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.4g}"


__all__ = ["Field", "TensorLayout"]
