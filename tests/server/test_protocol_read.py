"""Reading a client's message (`protocol.parse_client_message`): orjson reads it where it
agrees with the standard library, which reads the rest, so that every message, good or bad,
gets exactly the value or the error it got from `json.loads` alone."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from coffeetable.server import protocol
from coffeetable.server.protocol import ProtocolError, parse_client_message

CORPUS: list[str | bytes] = [
    '{"type":"act","version":3,"action":"place 1 at A2"}',
    '{"type":"act","version":3,"action":"x","ref":"r1"}',
    '{"type":"undo","version":0}',
    '{"type":"abandon","seat":1,"vote":"bot"}',
    '{"type":"sync"}',
    '{"type":"ping","ref":"p"}',
    '{"type":"chat","text":"hello \\ud83d\\ude00"}',
    '{"type":"chat","preset":"good_game"}',
    # numbers: beyond 64 bits orjson gives a float, the standard library an integer
    '{"type":"act","version":18446744073709551616,"action":"x"}',
    '{"type":"act","version":-9223372036854775809,"action":"x"}',
    '{"type":"act","version":123456789012345678901234567890,"action":"x"}',
    '{"type":"abandon","seat":18446744073709551617,"vote":"wait"}',
    '{"type":"act","version":3.0,"action":"x"}',
    '{"type":"act","version":1e2,"action":"x"}',
    '{"type":"act","version":-0,"action":"x"}',
    '{"type":"act","version":NaN,"action":"x"}',
    '{"type":"act","version":Infinity,"action":"x"}',
    '{"type":"act","version":1e400,"action":"x"}',
    '{"type":"act","version":3,"action":"x","ref":[123456789012345678901234567890]}',
    '{"type":"act","version":3,"action":{"a":1.5}}',
    # strings: lone surrogates only the standard library takes
    '{"type":"chat","text":"\\ud800"}',
    '{"type":"act","version":1,"action":"\\udfff"}',
    '{"type":"chat","text":"a\\u0000b"}',
    # keys: the last of two wins in both
    '{"type":"act","version":1,"version":2,"action":"x"}',
    '{"type":"sync","type":"ping"}',
    # not objects, not JSON
    "[1, 2]",
    "123456789012345678901234567890",
    "1.5",
    '"act"',
    "null",
    "",
    "{",
    '{"type":"act",}',
    "{'type':'sync'}",
    '\ufeff{"type":"sync"}',
    '\t{"type":"sync"}\r\n',
    '{"type":"sync"}\x00',
    '{"type":"chat","text":"a\x01b"}',
    # bytes: UTF-8, and other encodings only the standard library reads
    b'{"type":"sync"}',
    '{"type":"sync"}'.encode("utf-16"),
    '{"type":"ping","ref":"\u00e9"}'.encode("utf-32-le"),
    b'{"type":"ping","ref":"\xff"}',
    # nesting: deeper than orjson's limit, and than the interpreter's
    '{"type":"act","version":1,"action":"x","ref":' + "[" * 1100 + "]" * 1100 + "}",
    "[" * 5000 + "]" * 5000,
]


def _outcome(raw: str | bytes) -> tuple[str, Any]:
    try:
        message = parse_client_message(raw)
    except ProtocolError as exc:
        return ("error", (exc.code, exc.message))
    return ("message", (type(message), message.model_dump()))


def _mutations(rng: random.Random, count: int) -> list[str]:
    """Messages with a character changed, dropped or doubled, numbers widened."""
    out = []
    pieces = ["1", "0", "-", ".", "e", "9" * 25, '"', "\\", "[", "{", "}", ",", ":", " ", "N"]
    for _ in range(count):
        text = rng.choice([c for c in CORPUS if isinstance(c, str) and len(c) < 200])
        at = rng.randrange(len(text) + 1)
        kind = rng.randrange(3)
        if kind == 0:
            text = text[:at] + rng.choice(pieces) + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + text[at:].replace("3", "9" * rng.randrange(15, 30), 1)
        out.append(text)
    return out


@pytest.mark.parametrize("raw", CORPUS + _mutations(random.Random(40), 400))
def test_a_message_reads_as_the_standard_library_reads_it(
    raw: str | bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = _outcome(raw)
    monkeypatch.setattr(protocol, "_json_value", json.loads)
    assert ours == _outcome(raw)


def test_the_wide_numbers_are_read_as_integers() -> None:
    """A version beyond 64 bits is an integer, as before (orjson alone would make it a
    float, which the strict model refuses with another error)."""
    message = parse_client_message('{"type":"act","version":18446744073709551616,"action":"x"}')
    assert message.version == 18446744073709551616  # type: ignore[union-attr]
    with pytest.raises(ProtocolError, match="greater than or equal to 0"):
        parse_client_message('{"type":"act","version":-9223372036854775809,"action":"x"}')
