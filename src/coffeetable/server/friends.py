"""Friends and invitations to tables: who may ask whom, who may invite whom where.

A friendship starts as a request and holds once the other accepts it (their own request, or
Accept). Guests have no friends: their accounts last a day. A player seated at an open table
(or its creator) may invite a friend to it; the friend sees the invitation in the lobby, with
the private table's invite, and may join or decline. The rules live here; the rows in storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from coffeetable.server.livetable import TableError, seat_of
from coffeetable.server.lobby import LobbyService
from coffeetable.server.storage import Friend, GameTable, NotFoundError, Storage, User

#: How many friends and requests of their own a user may have at once.
MAX_FRIENDS = 500


@dataclass(frozen=True)
class InvitationView:
    """An invitation as its receiver sees it: the table, who invited, and the private table's
    invite when there is one (the inviter, a player there, may share it)."""

    table: GameTable
    from_name: str
    created_at: datetime


class FriendNotices(Protocol):
    """Who tells a user of a friend's request or invitation (notify.Notifier): on their own
    channel at once, wherever they are on the site; an invitation also in their next mail."""

    async def invite(self, user_id: int, table: GameTable, by: str) -> None: ...

    async def friend(self, user_id: int, kind: str, by: str) -> None: ...


class _Nobody:
    async def invite(self, user_id: int, table: GameTable, by: str) -> None:
        return None

    async def friend(self, user_id: int, kind: str, by: str) -> None:
        return None


class FriendService:
    def __init__(
        self, storage: Storage, lobby: LobbyService, notices: FriendNotices | None = None
    ) -> None:
        self.storage = storage
        self.lobby = lobby
        self.notices: FriendNotices = notices or _Nobody()

    async def _other(self, user: User, name: str) -> User:
        if user.is_guest:
            raise TableError(403, "guest_friends", "guests cannot have friends; register first")
        other = await self.storage.get_user_by_name(name)
        if other is None:
            raise TableError(404, "no_user", "there is no player with this name")
        if other.id == user.id:
            raise TableError(400, "invalid", "you cannot be your own friend")
        if other.is_guest:
            raise TableError(
                403, "guest_friends", "guests have no friends list; they cannot be asked"
            )
        return other

    async def of(self, user: User) -> list[Friend]:
        return await self.storage.friends(user.id)

    async def friend_ids(self, user: User | None) -> set[int]:
        """The ids of the user's friends (accepted both ways; none for a guest or nobody):
        who may use their "friends" decks and whose they may use (decks.py)."""
        if user is None or user.is_guest:
            return set()
        return {f.user_id for f in await self.storage.friends(user.id) if f.state == "friend"}

    async def _refuse_blocked(self, user: User, other: User) -> None:
        """Nothing passes between two users when either blocked the other (moderation.py)."""
        if await self.storage.is_blocked(other.id, user.id) or await self.storage.is_blocked(
            user.id, other.id
        ):
            raise TableError(
                403, "friend_blocked", "one of you blocked the other: no requests or invitations"
            )

    async def request(self, user: User, name: str) -> Friend:
        """Ask `name` to be friends, or accept their request."""
        other = await self._other(user, name)
        await self._refuse_blocked(user, other)
        mine = await self.storage.friends(user.id)
        # requests made to you do not count: strangers cannot fill your list for you
        own = [f for f in mine if f.state != "incoming"]
        if not any(f.user_id == other.id for f in mine) and len(own) >= MAX_FRIENDS:
            raise TableError(409, "too_many_friends", f"at most {MAX_FRIENDS} friends and requests")
        try:
            friend = await self.storage.request_friend(user.id, other.id)
        except NotFoundError:  # deleted in the meantime
            raise TableError(404, "no_user", "there is no player with this name") from None
        if not any(f.user_id == other.id and f.state == friend.state for f in mine):
            kind = "accepted" if friend.state == "friend" else "request"
            await self.notices.friend(other.id, kind, user.name)
        return friend

    async def remove(self, user: User, name: str) -> bool:
        """End the friendship, or withdraw or decline the request."""
        other = await self.storage.get_user_by_name(name)
        if other is None:
            raise TableError(404, "no_user", "there is no player with this name")
        return await self.storage.remove_friend(user.id, other.id)

    async def invite(self, user: User, table_id: str, name: str) -> bool:
        """Invite the friend `name` to the open table; False if invited there already."""
        other = await self._other(user, name)
        table = await self.lobby.get(table_id)
        if seat_of(table, user) is None and table.created_by != user.id:
            raise TableError(403, "not_your_table", "only the table's players may invite to it")
        if table.status != "open":
            raise TableError(409, "not_open", "this table has already started")
        friends = await self.storage.friends(user.id)
        if not any(f.user_id == other.id and f.state == "friend" for f in friends):
            raise TableError(403, "not_friend", "you may invite your friends only")
        if seat_of(table, other) is not None:
            raise TableError(409, "friend_seated", "this player sits at the table already")
        await self._refuse_blocked(user, other)
        try:
            new = await self.storage.invite(table_id, user.id, other.id)
        except NotFoundError:
            raise TableError(404, "no_table", f"there is no table {table_id!r}") from None
        if new:
            await self.notices.invite(other.id, table, user.name)
        return new

    async def invitations(self, user: User) -> list[InvitationView]:
        """Open tables the user was invited to and does not sit at, newest first."""
        out = []
        friends = {f.user_id for f in await self.storage.friends(user.id) if f.state == "friend"}
        for invitation in await self.storage.invitations(user.id):
            inviter = invitation.from_user_id
            if inviter not in friends:
                continue  # no longer friends (a block ends it too): the invitation lapses
            try:
                table = await self.lobby.get(invitation.table_id)
            except TableError:
                continue
            if table.status != "open" or seat_of(table, user) is not None:
                continue
            if table.created_by != inviter and not any(s.user_id == inviter for s in table.seats):
                continue  # the inviter left the table: it is not theirs to share any more
            out.append(InvitationView(table, invitation.from_name, invitation.created_at))
        return out

    async def decline(self, user: User, table_id: str) -> bool:
        return await self.storage.remove_invitation(table_id, user.id)
