"""The WebSocket protocol: every message a client may send, every message the server sends,
and the error codes (docs/server-protocol.md).

Client messages are JSON objects with a `type`; each type has a pydantic model that rejects
unknown fields, wrong types and oversized values. `parse_client_message` turns raw text into
one of them or raises `ProtocolError` (never anything else), so a malformed message gets a
clear error and changes nothing.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_args

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

#: Largest client message accepted, in bytes (an action's notation is a few dozen bytes).
MAX_MESSAGE_BYTES = 16 * 1024
#: Largest action text accepted (a Coffee Rush whole-turn text is the longest, ~150 bytes).
MAX_ACTION_CHARS = 1000


class ErrorCode:
    """The `code` of an `error` message. Clients branch on these; messages are for people."""

    BAD_JSON = "bad_json"  # not JSON, or not a JSON object
    TOO_LARGE = "too_large"  # over MAX_MESSAGE_BYTES
    UNKNOWN_TYPE = "unknown_type"  # `type` missing or not a client message type
    INVALID = "invalid"  # fields missing, unknown or of the wrong type
    NOT_SEATED = "not_seated"  # a spectator (or a stranger) tried to act
    NOT_YOUR_TURN = "not_your_turn"  # the seat may not act now
    STALE_VERSION = "stale_version"  # `version` is not the table's current version
    ILLEGAL = "illegal"  # the action cannot be read or is not legal now
    GAME_OVER = "game_over"  # the game has ended
    NOT_STARTED = "not_started"  # the table has not started yet
    CANNOT_UNDO = "cannot_undo"  # the last move is not the seat's own step it may take back
    NO_OFFER = "no_offer"  # an abandonment vote when nobody is asked about that seat
    NOT_VOTER = "not_voter"  # the person asked about, or a seat a bot plays, may not vote
    RATE_LIMITED = "rate_limited"  # too many messages; slow down
    LOGIN = "login"  # only a logged-in player (or guest) may do this (chat)
    CHAT_TOO_LONG = "chat_too_long"  # a chat line over MAX_CHAT_CHARS
    CHAT_TEXT = "chat_text"  # a chat line empty, or with control characters
    SERVER = "server_error"  # our fault; nothing changed


class ProtocolError(Exception):
    """A client message that cannot be accepted: `code` (ErrorCode) and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Act(_Message):
    """Play `action` (the game's notation) for the sender's seat, as the table's move number
    `version + 1`: `version` is the version the client last saw."""

    type: Literal["act"]
    version: int = Field(ge=0)
    action: str = Field(min_length=1, max_length=MAX_ACTION_CHARS)
    ref: str | None = Field(default=None, max_length=64)


class Undo(_Message):
    """Take back the table's last move, the sender's own step not yet confirmed (its turn goes
    on, and it revealed nothing hidden). `version` is the version the client last saw: the
    undo happens only if it is still the table's version."""

    type: Literal["undo"]
    version: int = Field(ge=0)
    ref: str | None = Field(default=None, max_length=64)


class Abandon(_Message):
    """Vote on the open abandonment offer about `seat` (the player who has gone): "bot" (a
    bot plays the seat from now on), "wait" (ask again later) or "end" (end the game as
    abandoned). A second vote replaces the first until the offer is decided."""

    type: Literal["abandon"]
    seat: int = Field(ge=0, le=3)
    vote: Literal["bot", "wait", "end"]
    ref: str | None = Field(default=None, max_length=64)


class Sync(_Message):
    """Ask for a fresh snapshot (after a reconnect, or when the client thinks it is behind)."""

    type: Literal["sync"]


#: Largest chat line, in characters, after its whitespace is normalised.
MAX_CHAT_CHARS = 500
ChatPreset = Literal[
    "hello",
    "good_luck",
    "thinking",
    "one_moment",
    "sorry_misclick",
    "well_played",
    "thanks",
    "good_game",
    "bye",
]
#: The quick messages a player may send by id; each client shows them in its reader's
#: language (the web client: i18n/chat/*.json, `chat.preset.<id>`).
CHAT_PRESETS: tuple[str, ...] = get_args(ChatPreset)


class Chat(_Message):
    """Say something at the table (or in the lobby): `text` (at most MAX_CHAT_CHARS once its
    whitespace is normalised; no control characters) or a quick message's `preset` id,
    exactly one of the two."""

    type: Literal["chat"]
    # the 500-character rule is checked after normalising (a clear `chat_too_long`); this
    # bound only keeps an absurd value from being looked at
    text: str | None = Field(default=None, max_length=4 * MAX_CHAT_CHARS)
    preset: ChatPreset | None = None
    ref: str | None = Field(default=None, max_length=64)

    @model_validator(mode="after")
    def _one_of_text_and_preset(self) -> Chat:
        if (self.text is None) == (self.preset is None):
            raise ValueError("give either text or preset")
        return self


class Ping(_Message):
    type: Literal["ping"]
    ref: str | None = Field(default=None, max_length=64)


ClientMessage = Annotated[Act | Undo | Abandon | Sync | Ping | Chat, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Act | Undo | Abandon | Sync | Ping | Chat] = TypeAdapter(ClientMessage)
CLIENT_TYPES = ("act", "undo", "abandon", "sync", "ping", "chat")
#: What a lobby socket may send.
LOBBY_TYPES = ("chat", "ping")


def parse_client_message(
    raw: str | bytes, types: tuple[str, ...] = CLIENT_TYPES
) -> Act | Undo | Abandon | Sync | Ping | Chat:
    """The message in `raw` (one of `types`), or ProtocolError with the reason."""
    size = len(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            ErrorCode.TOO_LARGE,
            f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}",
        )
    try:
        data = _json_value(raw)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(ErrorCode.BAD_JSON, "message is not valid JSON") from None
    except RecursionError:  # "[[[[...]]]]" nested thousands deep
        raise ProtocolError(ErrorCode.BAD_JSON, "message is nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_JSON, "message must be a JSON object")
    kind = data.get("type")
    if kind not in types:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {kind!r}; expected one of {', '.join(types)}",
        )
    try:
        return _ADAPTER.validate_python(data)
    except RecursionError:
        raise ProtocolError(
            ErrorCode.INVALID, f"invalid {kind!r} message: nested too deeply"
        ) from None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'message'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ProtocolError(ErrorCode.INVALID, f"invalid {kind!r} message: {problems}") from None


def _json_value(raw: str | bytes) -> Any:
    """What the standard library's `json.loads(raw)` reads, or the same error, read by orjson
    where it agrees: a fifth of the time for a move's message (docs/server.md, "The hot path,
    ninth pass"). orjson refuses what only the standard library takes (NaN, Infinity, lone
    surrogates, other encodings of bytes), and reads integers beyond 64 bits as floats: those
    messages, and any object whose top level holds a float (no message has one), are read
    again by the standard library, so every message gets the value, or the error, it got
    before. (Anything but an object is refused whatever it holds, and a float deeper down
    sits in a list or object, which no field takes.)"""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)
    if isinstance(data, dict):
        for value in data.values():
            if type(value) is float:
                return json.loads(raw)
    return data


def error_message(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}


def client_schema() -> dict[str, Any]:
    """JSON Schema of the client messages (served at /api/protocol)."""
    return _ADAPTER.json_schema()
