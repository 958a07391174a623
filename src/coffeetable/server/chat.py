"""Chat: lines said at a table (players and spectators) and in the lobby, on every node.

A line is checked (text: whitespace normalised, at most `MAX_CHAT_CHARS`, no control
characters; or a quick message's preset id), limited per user (a site-wide token bucket,
`node.chat_limits`), stored (`chat_lines`, never in the game's record), sent to this node's
clients and published on the bus: on the table's topic (`{"kind": "chat"}`, beside its
moves) or on `LOBBY_CHAT`. Every other node holding that table, or with lobby sockets, sends
it to its own clients. A reader never gets the lines of a user they muted or blocked: each
node keeps the hidden users of the people connected to it (`watch`), and reloads a user's
when they change them on any node (a `hidden` message on the bus's users topic).
"""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any

from coffeetable.server.bus import USERS, Bus, table_topic
from coffeetable.server.livetable import Client, LiveTable
from coffeetable.server.protocol import MAX_CHAT_CHARS, Chat, ErrorCode, ProtocolError
from coffeetable.server.storage import ChatLine, Storage, User

#: The bus topic of the lobby's chat.
LOBBY_CHAT = "lobby-chat"
#: Lines sent with a table's snapshot and a lobby socket's first messages.
HISTORY = 50
#: Lines a replay (`GET /api/tables/{id}/chat`) gets at most.
REPLAY_LINES = 2000

#: Invisible characters that turn text around or hide it; refused like control characters.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
#: Format characters that real text needs (emoji sequences, some scripts): allowed.
_ALLOWED_FORMAT = frozenset("\u200c\u200d")

WaitFor = Callable[[str], Awaitable[float | None]]


def check_text(text: str) -> str:
    """The line as it is stored: NFC, every run of whitespace one space, trimmed. Raises
    ProtocolError (`chat_text`: empty or with control characters; `chat_too_long`)."""
    text = unicodedata.normalize("NFC", text)
    words = text.split()  # every Unicode whitespace, newlines and tabs included
    line = " ".join(words)
    if not line:
        raise ProtocolError(ErrorCode.CHAT_TEXT, "the line is empty: write something")
    for ch in line:
        category = unicodedata.category(ch)
        if (
            category in ("Cc", "Cs", "Co", "Cn")
            or ch in _BIDI_CONTROLS
            or (category == "Cf" and ch not in _ALLOWED_FORMAT and not _emoji_tag(ch))
        ):
            raise ProtocolError(
                ErrorCode.CHAT_TEXT,
                f"the line holds a control character (U+{ord(ch):04X}): send plain text",
            )
    if len(line) > MAX_CHAT_CHARS:
        raise ProtocolError(
            ErrorCode.CHAT_TOO_LONG,
            f"the line has {len(line)} characters; at most {MAX_CHAT_CHARS} are allowed",
        )
    return line


def _emoji_tag(ch: str) -> bool:
    """Tag characters, which spell subdivision flags in emoji (🏴 + tags)."""
    return 0xE0020 <= ord(ch) <= 0xE007F


def line_json(line: ChatLine) -> dict[str, Any]:
    """A line as clients get it (the speaker by name; never their id)."""
    return {
        "id": line.id,
        "user": line.user_name,
        "seat": line.seat,
        "spectator": line.spectator,
        "text": line.text,
        "preset": line.preset,
        "moves": line.moves,
        "at": line.created_at.isoformat(),
    }


class ChatService:
    """The chat of this node's tables and lobby sockets."""

    def __init__(
        self,
        storage: Storage,
        bus: Bus,
        node_id: str,
        wait_for: WaitFor,
        tables: Callable[[str], LiveTable | None],
    ) -> None:
        self.storage = storage
        self.bus = bus
        self.node_id = node_id
        #: the rate limit: None if the user may say a line now, else the seconds to wait
        self.wait_for = wait_for
        #: the live table of an id, if this node holds it
        self.tables = tables
        #: users connected here -> (sockets, the users whose lines they do not get)
        self._hidden: dict[int, tuple[int, frozenset[int]]] = {}
        #: this node's lobby sockets: their queues, and who is at each (None: nobody)
        self.lobby: dict[asyncio.Queue[dict[str, Any] | str | None], User | None] = {}

    # ==== who hides whom ======================================================================
    async def watch(self, user_id: int) -> None:
        """A socket of the user opened here: know whose lines they do not get."""
        count, hidden = self._hidden.get(user_id, (0, frozenset()))
        if count == 0:
            hidden = await self.storage.hidden_users(user_id)
            count, _ = self._hidden.get(user_id, (0, hidden))  # (another opened meanwhile)
        self._hidden[user_id] = (count + 1, hidden)

    def unwatch(self, user_id: int) -> None:
        count, hidden = self._hidden.get(user_id, (0, frozenset()))
        if count <= 1:
            self._hidden.pop(user_id, None)
        else:
            self._hidden[user_id] = (count - 1, hidden)

    def hides(self, reader: User | None, speaker_id: int) -> bool:
        if reader is None:
            return False
        entry = self._hidden.get(reader.id)
        return entry is not None and speaker_id in entry[1]

    async def hidden_changed(self, user_id: int) -> None:
        """The user muted, unmuted, blocked or unblocked someone (on this node): every node
        reloads whom they hide."""
        await self.bus.publish(USERS, {"type": "hidden", "user": user_id})

    async def on_user_message(self, message: dict[str, Any]) -> None:
        user_id = message.get("user")
        if message.get("type") != "hidden" or not isinstance(user_id, int):
            return
        if user_id in self._hidden:
            hidden = await self.storage.hidden_users(user_id)
            entry = self._hidden.get(user_id)
            if entry is not None:
                self._hidden[user_id] = (entry[0], hidden)

    # ==== saying ==============================================================================
    async def _checked(self, user: User | None, message: Chat) -> tuple[User, str | None]:
        if user is None:
            raise ProtocolError(ErrorCode.LOGIN, "log in or play as a guest to chat")
        text = check_text(message.text) if message.text is not None else None
        wait = await self.wait_for(f"user:{user.id}")
        if wait is not None:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"too many chat lines; wait {max(1, round(wait))} s before the next",
            )
        return user, text

    async def say_at_table(self, live: LiveTable, client: Client, message: Chat) -> None:
        """A client says a line at the table. ProtocolError (to that client only) and
        nothing stored or sent if it cannot be said."""
        user, text = await self._checked(client.user, message)
        seat = client.seat
        line = await self.storage.add_chat_line(
            live.meta.id,
            user.id,
            text=text,
            preset=message.preset,
            seat=seat,
            spectator=seat is None,
            moves=len(live.log),
        )
        out = line_json(line)
        self._send_at_table(live, out, user.id)
        await self.bus.publish(
            table_topic(live.meta.id),
            {"kind": "chat", "node": self.node_id, "user_id": user.id, "line": out},
        )

    async def say_in_lobby(self, user: User | None, message: Chat) -> None:
        user, text = await self._checked(user, message)
        line = await self.storage.add_chat_line(None, user.id, text=text, preset=message.preset)
        out = line_json(line)
        self._send_in_lobby(out, user.id)
        await self.bus.publish(
            LOBBY_CHAT, {"kind": "chat", "node": self.node_id, "user_id": user.id, "line": out}
        )

    def _send_at_table(self, live: LiveTable, line: dict[str, Any], speaker: int) -> None:
        message = {"type": "chat", "line": line}
        for client in list(live.clients):
            if not self.hides(client.user, speaker):
                client.send(message)

    def _send_in_lobby(self, line: dict[str, Any], speaker: int) -> None:
        message = {"type": "chat", "line": line}
        for queue, reader in list(self.lobby.items()):
            if self.hides(reader, speaker):
                continue
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:  # too slow to read: closed, as the lobby feed does
                self.lobby.pop(queue, None)
                with contextlib.suppress(asyncio.QueueFull):
                    queue.put_nowait(None)

    async def on_message(self, topic: str, message: dict[str, Any]) -> None:
        """A line said on another node (this node's own come back and are skipped)."""
        line, speaker = message.get("line"), message.get("user_id")
        if message.get("node") == self.node_id or not isinstance(line, dict):
            return
        if not isinstance(speaker, int):
            return
        if topic == LOBBY_CHAT:
            self._send_in_lobby(line, speaker)
            return
        live = self.tables(topic.removeprefix("table:"))
        if live is not None:
            self._send_at_table(live, line, speaker)

    # ==== history =============================================================================
    async def history(
        self, table_id: str | None, reader: User | None, limit: int = HISTORY
    ) -> list[dict[str, Any]]:
        """The last lines of a table (or the lobby: None) that `reader` may read."""
        lines = await self.storage.chat_lines(
            table_id, limit=limit, reader=reader.id if reader is not None else None
        )
        return [line_json(line) for line in lines]
