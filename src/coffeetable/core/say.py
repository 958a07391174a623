"""Game-log sentences as data: a message key and its parameters (`State.say`), so that a
client can write the sentence in any language, and an English renderer (`render`) that
`State.describe` uses for the CLI, the server's `text` and the tests.

A `Say` is `{"key": ..., "params": {...}}` in JSON. A parameter's value is one of:

- a string (a card id, a square, a drink's name, a notation) or an integer, put in as is;
- a `Say`: rendered first, then put in;
- a list of values: rendered and joined as a list ("a", "a and b", "a, b and c");
- a `Join` (`{"join": SEP, "items": [...]}`): rendered and joined with SEP (", ", "; ", "").

Some parameter names are typed (the client translates them): `colour` ("Y", "B", "G",
"R": the template may use `{colour}`, `{colour_pl}` and `{colour_gpl}`, the forms after
one cube, several cubes and numbers in languages whose adjectives agree), `ingredient`
(a Coffee Rush ingredient), `upgrade` (a Coffee Rush upgrade), `city` (a Café shop's city,
by its English name). A template is a string or, when it depends on the number `n`, a
mapping of plural forms ("one", "other" in English).
The templates live next to each game's `say` (e.g. `games/cafe/describe.py`), and the web
client's `i18n/en.json` holds the same English text under the same keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: English names of the typed parameters' values.
COLOURS = {"Y": "yellow", "B": "brown", "G": "green", "R": "red"}
UPGRADES = {
    "double-meeples": "Double Meeples",
    "diagonal": "Diagonal Move",
    "double-corners": "Double Corners",
    "double-specialties": "Double Specialties",
}

Template = str | Mapping[str, str]


@dataclass(frozen=True)
class Say:
    """One sentence (or part of one) as a key and parameters; see the module doc."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "params": {k: _json(v) for k, v in self.params.items()}}

    def keys(self) -> set[str]:
        """This key and every key nested in its parameters."""
        out = {self.key}
        for value in self.params.values():
            out |= _keys(value)
        return out


@dataclass(frozen=True)
class Join:
    """Values joined with a fixed separator (a list joins with "and")."""

    items: Sequence[Any]
    sep: str

    def to_json(self) -> dict[str, Any]:
        return {"join": self.sep, "items": [_json(v) for v in self.items]}


def render(say: Say, templates: Mapping[str, Template]) -> str:
    """The English sentence: `templates[key]` with its parameters filled in. KeyError for
    a key without a template (a bug: tests check every key a game can produce)."""
    template = templates[say.key]
    if not isinstance(template, str):
        n = say.params.get("n")
        template = template["one" if n == 1 else "other"]
    values: dict[str, str] = {}
    for name, value in say.params.items():
        text = _text(value, templates, name)
        values[name] = text
        if name == "colour":
            values["colour_pl"] = values["colour_gpl"] = text
    parts = _PARTS.get(template)
    if parts is None:
        parts = _PLACEHOLDER.split(template)
        if len(_PARTS) < _PARTS_KEPT:
            _PARTS[template] = parts
    if len(parts) == 1:
        return template
    # literal, name, literal, ...: each `{name}` filled in, or left as it is without a value
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        name = parts[i]
        out.append(values.get(name, "{" + name + "}"))
        out.append(parts[i + 1])
    return "".join(out)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")

#: each template string split at its `{name}` placeholders (literal text and names
#: alternating, starting and ending with literal text), once: a game's templates are a
#: fixed set, and the server renders a log sentence for every move it stores
_PARTS: dict[str, list[str]] = {}
_PARTS_KEPT = 4096


def join_and(words: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def placeholders(template: Template) -> set[str]:
    texts = [template] if isinstance(template, str) else list(template.values())
    return {name for text in texts for name in re.findall(r"\{(\w+)\}", text)}


def _text(value: Any, templates: Mapping[str, Template], name: str = "") -> str:
    if isinstance(value, Say):
        return render(value, templates)
    if isinstance(value, Join):
        return value.sep.join(_text(v, templates) for v in value.items)
    if isinstance(value, list | tuple):
        return join_and([_text(v, templates) for v in value])
    if name == "colour":
        return COLOURS[value]
    if name == "upgrade":
        return UPGRADES[value]
    return str(value)


def _json(value: Any) -> Any:
    if isinstance(value, Say | Join):
        return value.to_json()
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def _keys(value: Any) -> set[str]:
    if isinstance(value, Say):
        return value.keys()
    if isinstance(value, Join):
        return set().union(*(_keys(v) for v in value.items)) if value.items else set()
    if isinstance(value, list | tuple):
        return set().union(*(_keys(v) for v in value)) if value else set()
    return set()


__all__ = ["COLOURS", "UPGRADES", "Join", "Say", "Template", "join_and", "placeholders", "render"]
