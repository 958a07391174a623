"""What a chat line may be (server/chat.py `check_text`) and how a `chat` message is read
(server/protocol.py), without a server."""

from __future__ import annotations

import json

import pytest

from coffeetable.server.chat import check_text
from coffeetable.server.protocol import (
    CHAT_PRESETS,
    LOBBY_TYPES,
    MAX_CHAT_CHARS,
    Chat,
    ProtocolError,
    client_schema,
    parse_client_message,
)


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("hello", "hello"),
        ("  two\n\nlines\t here  ", "two lines here"),
        ("\u00a0non-breaking\u2003spaces\u00a0", "non-breaking spaces"),
        ("e\u0301", "é"),  # NFC
        ("👩\u200d💻 ok", "👩\u200d💻 ok"),  # a zero-width joiner inside an emoji
        ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", None),  # a flag
        ("Привіт, як справи?", None),
        ("x" * MAX_CHAT_CHARS, None),
        ("  " + "y" * MAX_CHAT_CHARS + "  ", "y" * MAX_CHAT_CHARS),
    ],
)
def test_good_lines_are_normalised(raw: str, stored: str | None) -> None:
    assert check_text(raw) == (stored if stored is not None else raw)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "chat_text"),
        (" \n\t\u3000", "chat_text"),
        ("bell\x07", "chat_text"),
        ("nul\x00", "chat_text"),
        ("escape \x1b[31mred", "chat_text"),
        ("right\u202eto left", "chat_text"),
        ("isolate\u2066x\u2069", "chat_text"),
        ("zero\u200bwidth space", "chat_text"),
        ("soft\u00adhyphen", "chat_text"),
        ("private \ue000 use", "chat_text"),
        ("unassigned \U000e0000", "chat_text"),
        ("z" * (MAX_CHAT_CHARS + 1), "chat_too_long"),
    ],
)
def test_bad_lines_are_refused_with_the_reason(raw: str, code: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        check_text(raw)
    assert refused.value.code == code and refused.value.message


def test_a_chat_message_has_text_or_a_known_preset() -> None:
    said = parse_client_message(json.dumps({"type": "chat", "preset": "good_game", "ref": "x"}))
    assert isinstance(said, Chat) and said.preset == "good_game" and said.text is None
    for bad in (
        {"type": "chat"},
        {"type": "chat", "text": "a", "preset": "bye"},
        {"type": "chat", "preset": "nope"},
        {"type": "chat", "text": None, "preset": None},
        {"type": "chat", "text": ["a"]},
    ):
        with pytest.raises(ProtocolError) as refused:
            parse_client_message(json.dumps(bad))
        assert refused.value.code == "invalid"
    assert set(CHAT_PRESETS) >= {"good_game", "thinking", "sorry_misclick"}
    assert "chat" in json.dumps(client_schema())


def test_a_lobby_socket_may_send_only_chat_and_ping() -> None:
    assert isinstance(parse_client_message('{"type": "chat", "text": "hi"}', LOBBY_TYPES), Chat)
    with pytest.raises(ProtocolError) as refused:
        parse_client_message('{"type": "act", "version": 0, "action": "x"}', LOBBY_TYPES)
    assert refused.value.code == "unknown_type"
