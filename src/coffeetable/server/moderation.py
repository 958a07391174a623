"""Moderation: what a player does about another (mute, block, report) and what an admin does
(read reports, mark them handled, suspend accounts).

- A **mute** hides a user's chat lines from the one who muted them, everywhere.
- A **block** hides them too, and more: the blocked user cannot take a seat at a table the
  blocker created or sits at (`LobbyService.join`), and cannot invite them
  (`is_blocked(by_user_id, user_id)`, for invitations).
- A **report** (of a line, with a copy of its words, or of a player) waits for an admin.
- An admin (`coffeetable admin grant NAME`) may **suspend** an account: it can no longer log
  in, and every session of it ends at once on every node (the bus's logout, as "log out
  everywhere").

Every method raises `TableError` (an HTTP status, a code, a message) for what it refuses,
and changes nothing then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from coffeetable.server.chat import ChatService, check_text, line_json
from coffeetable.server.livetable import TableError
from coffeetable.server.protocol import ProtocolError
from coffeetable.server.storage import NotFoundError, Report, Storage, User

#: Longest reason a report may give, in characters.
MAX_REASON_CHARS = 500


class ModerationService:
    def __init__(
        self,
        storage: Storage,
        chat: ChatService,
        logged_out: Callable[[int, str | None], Awaitable[None]],
    ) -> None:
        self.storage = storage
        self.chat = chat
        #: end a user's sessions' sockets on every node (`Node.logged_out`)
        self.logged_out = logged_out

    async def other(self, me: User, name: str) -> User:
        """The user called `name`, who is not `me` (404 `no_user`, 400 `yourself`)."""
        user = await self.storage.get_user_by_name(name)
        if user is None:
            raise TableError(404, "no_user", f"there is no player {name!r}")
        if user.id == me.id:
            raise TableError(400, "yourself", "you cannot do that to yourself")
        return user

    # ==== a player about another ==============================================================
    async def set_muted(self, me: User, name: str, muted: bool) -> User:
        other = await self.other(me, name)
        if await self.storage.set_muted(me.id, other.id, muted):
            await self.chat.hidden_changed(me.id)
        return other

    async def set_blocked(self, me: User, name: str, blocked: bool) -> User:
        other = await self.other(me, name)
        if await self.storage.set_blocked(me.id, other.id, blocked):
            await self.chat.hidden_changed(me.id)
        if blocked:  # a block ends a friendship and any request between the two
            await self.storage.remove_friend(me.id, other.id)
        return other

    async def lists(self, me: User) -> dict[str, list[str]]:
        muted, blocked = await self.storage.muted_and_blocked(me.id)
        return {"muted": [n for _, n in muted], "blocked": [n for _, n in blocked]}

    async def is_blocked(self, by_user_id: int, user_id: int) -> bool:
        """Whether `by_user_id` blocked `user_id` (for invitations: a blocked user may not
        invite the one who blocked them)."""
        return await self.storage.is_blocked(by_user_id, user_id)

    async def report(
        self,
        me: User,
        reason: str,
        *,
        name: str | None,
        line_id: int | None,
        may_read_table: Callable[[str], Awaitable[bool]],
    ) -> Report:
        """Report a line (`line_id`: its speaker is reported, with a copy of its words) or a
        player (`name`). A line of a table is reportable only by those who may read that
        table (`may_read_table`)."""
        try:
            reason = check_text(reason)
        except ProtocolError as exc:
            raise TableError(400, "invalid", f"reason: {exc.message}") from None
        if len(reason) > MAX_REASON_CHARS:
            raise TableError(400, "invalid", f"reason: at most {MAX_REASON_CHARS} characters")
        if (name is None) == (line_id is None):
            raise TableError(400, "invalid", "report either a line (`line`) or a player (`name`)")
        if line_id is not None:
            line = await self.storage.get_chat_line(line_id)
            if line is None or (
                line.table_id is not None and not await may_read_table(line.table_id)
            ):
                raise TableError(404, "no_line", f"there is no chat line {line_id}")
            if line.user_id == me.id:
                raise TableError(400, "yourself", "you cannot report your own line")
            words = line.text if line.text is not None else f"[{line.preset}]"
            return await self.storage.add_report(
                me.id,
                line.user_id,
                reason,
                line_id=line.id,
                line_text=words,
                table_id=line.table_id,
            )
        assert name is not None
        other = await self.other(me, name)
        return await self.storage.add_report(me.id, other.id, reason)

    # ==== admins ==============================================================================
    @staticmethod
    def require_admin(user: User) -> None:
        if not user.is_admin:
            raise TableError(403, "admin", "only an admin may do this")

    async def reports(self, admin: User, handled: bool) -> list[dict[str, Any]]:
        self.require_admin(admin)
        out = []
        for report in await self.storage.list_reports(handled=handled):
            context = (
                [line_json(line) for line in await self.storage.chat_context(report.line_id)]
                if report.line_id is not None
                else []
            )
            out.append({**report_json(report), "context": context})
        return out

    async def handle(self, admin: User, report_id: int) -> dict[str, Any]:
        self.require_admin(admin)
        try:
            report = await self.storage.handle_report(report_id, admin.id)
        except NotFoundError:
            raise TableError(404, "no_report", f"there is no report {report_id}") from None
        return report_json(report)

    async def set_suspended(self, admin: User, name: str, suspended: bool) -> User:
        """Suspend an account (its sessions end at once, on every node) or lift it."""
        self.require_admin(admin)
        user = await self.other(admin, name)
        if suspended and user.is_admin:
            raise TableError(
                409, "admin_account", "an admin cannot be suspended: revoke the role first"
            )
        await self.storage.set_suspended(user.id, suspended)
        if suspended:
            await self.storage.delete_user_sessions(user.id)
            await self.logged_out(user.id, None)
        return user


def report_json(report: Report) -> dict[str, Any]:
    return {
        "id": report.id,
        "reporter": report.reporter_name,
        "target": report.target_name,
        "target_suspended": report.target_suspended,
        "line": report.line_id,
        "text": report.line_text,
        "table": report.table_id,
        "reason": report.reason,
        "at": report.created_at.isoformat(),
        "handled_at": report.handled_at.isoformat() if report.handled_at else None,
    }
