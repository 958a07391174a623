"""Turn notifications and "my games" (docs/server.md, "Notifications").

The node that stores a change of a table (a move, an undo, the start, a seat handed to a bot)
learns from the match whose move it was before and whose it is after (`on_turns`). It then,
in order, one change after the other:

- stores whose move it is (`table_players`, in the table's revision order), which is what
  "my games" reads on any node;
- tells each player concerned on their own channel (the bus topic `user:<id>`, which every
  node with a `/ws/user` socket of theirs listens to): `turn` (your move, or no longer) and
  `ended`; so the page's title and icon say "your move" on whichever page, on any node;
- for turn-based tables, puts a mail in the player's queue (your move; the game ended), if
  the site has an SMTP server and the player wants it. A move made before its mail went takes
  that mail back.

Every node sends the digests that are due (`send_due`): a user's pending mail goes as one
message, at most once per their digest interval; a claim in the database (`claim_mail`)
makes sure that of several nodes exactly one sends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from coffeetable.server.bus import Bus
from coffeetable.server.livetable import LiveTable
from coffeetable.server.mail import (
    KINDS,
    LANGUAGES,
    Mailer,
    digest_message,
    unsubscribe_token,
)
from coffeetable.server.storage import GameTable, PlayerTable, Storage, UserSettings

log = logging.getLogger("coffeetable.server.notify")

#: A user's notification settings and their defaults (the settings page: web/js/settings.js).
PREFS: dict[str, Any] = {
    "sound": False,  # a short sound when it becomes your move
    "browser": False,  # a browser notification when the tab is hidden
    "mail": True,  # mail at all (the unsubscribe link turns this off)
    "mail_your_move": True,
    "mail_ended": True,
    "mail_invitation": True,
    "digest": 60,  # minutes: at most one mail per this long
}
#: The digest intervals one may choose, in minutes.
DIGEST_CHOICES = (5, 15, 60, 240, 1440)
#: An e-mail address as accepted (the SMTP server has the last word).
#: ASCII only: mail is sent without SMTPUTF8, so an address outside ASCII could not be carried.
EMAIL = re.compile(
    r"^[!#-'*+\-./0-9=?A-Z^-~]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,250}[A-Za-z0-9])?$"
)
MAX_EMAIL = 254
#: Finished tables "my games" shows.
RECENT_GAMES = 20


def user_topic(user_id: int) -> str:
    return f"user:{user_id}"


def prefs_of(settings: UserSettings) -> dict[str, Any]:
    """The user's preferences, each filled in with its default."""
    out = dict(PREFS)
    for key, value in settings.prefs.items():
        if key in PREFS and type(value) is type(PREFS[key]):
            out[key] = value
    return out


def settings_json(settings: UserSettings, mail_available: bool) -> dict[str, Any]:
    """The settings as their owner sees them (nobody else ever does: the e-mail is private)."""
    return {
        "email": settings.email,
        "language": settings.language,
        **prefs_of(settings),
        "mail_available": mail_available,
        "digest_choices": list(DIGEST_CHOICES),
        "languages": list(LANGUAGES),
    }


# ==== "my games" ==================================================================================
def time_left(row: PlayerTable, now: float) -> float | None:
    """Seconds left now on the player's clock at a running table: a realtime bank (from the
    clock as stored with the table's last change), or a turn-based table's limit for the
    move; None without a limit."""
    table = row.table
    clock = table.clock
    if table.status != "running" or not isinstance(clock, dict):
        return None
    if clock.get("kind") == "turn_based":
        limit = clock.get("turn_limit")
        if not isinstance(limit, int | float) or not row.to_move or row.turn_since is None:
            return None
        return max(0.0, float(limit) - max(0.0, now - row.turn_since.timestamp()))
    state = clock.get("state")
    if not isinstance(state, dict):  # no move yet: the bank as set, running since the start
        initial = clock.get("initial")
        if not isinstance(initial, int | float):
            return None
        started = table.started_at.timestamp() if table.started_at else now
        return max(0.0, float(initial) - (max(0.0, now - started) if row.to_move else 0.0))
    remaining = state.get("remaining")
    seat = row.seat
    if not isinstance(remaining, list) or seat >= len(remaining) or remaining[seat] is None:
        return None
    left = float(remaining[seat])
    wall = state.get("wall_time")
    if seat in (state.get("running") or []) and isinstance(wall, int | float):
        left -= max(0.0, now - float(wall))
    return max(0.0, left)


def my_games_json(
    rows: Iterable[PlayerTable], names: dict[int, str], now: float | None = None
) -> list[dict[str, Any]]:
    """The player's tables, in the order the page shows them: your move first (the least time
    left first, then the longest waiting), then the other running tables, the open ones, and
    the finished ones, newest first."""
    from coffeetable.server.livetable import table_json

    moment = time.time() if now is None else now
    out = []
    for row in rows:
        table = row.table
        entry = table_json(table, names)
        entry["my_seat"] = row.seat
        entry["your_move"] = row.to_move
        entry["turn_since"] = row.turn_since.isoformat() if row.turn_since else None
        entry["time_left"] = time_left(row, moment)
        out.append(entry)
    group = {"running": 1, "open": 2}

    def order(entry: dict[str, Any]) -> tuple[int, bool, float]:
        if entry["your_move"]:  # the least time left, then the longest waiting
            left = entry["time_left"]
            since = entry["turn_since"]
            waited = datetime.fromisoformat(since).timestamp() if since else moment
            return (0, left is None, left if left is not None else waited)
        when = entry["finished_at"] or entry["started_at"] or entry["created_at"]
        newest_first = -datetime.fromisoformat(when).timestamp() if when else 0.0
        return (group.get(entry["status"], 3), False, newest_first)

    out.sort(key=order)
    return out


# ==== the notifier ================================================================================
#: Most changes of turns stored in one transaction (`Notifier._work`).
TURNS_PER_TRANSACTION = 100


@dataclass(frozen=True)
class _Change:
    """A change of a table's turns, as the match saw it (the table's row at that change)."""

    table: GameTable
    before: frozenset[int]
    after: frozenset[int]
    finished: bool


class Notifier:
    """Turns of this node's changes, the players' channels, and the mail (module doc)."""

    def __init__(
        self,
        storage: Storage,
        bus: Bus,
        mailer: Mailer | None = None,
        public_url: str = "",
        mail_delay: float = 60.0,
        mail_every: float = 30.0,
        mail_minute: float = 60.0,
    ) -> None:
        self.storage = storage
        self.bus = bus
        self.mailer = mailer
        self.public_url = public_url
        #: seconds an event waits before it may be mailed (a move made meanwhile takes its
        #: "your move" back), how often the node looks for due digests, and how long a
        #: "minute" of the digest interval is (60 s; tests shorten it)
        self.mail_delay = mail_delay
        self.mail_every = mail_every
        self.mail_minute = mail_minute
        self._queue: asyncio.Queue[_Change] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self.sent = 0

    @property
    def mail_available(self) -> bool:
        return self.mailer is not None

    def start(self) -> None:
        self._tasks.append(asyncio.create_task(self._work(), name="notify"))
        if self.mailer is not None:
            self._tasks.append(asyncio.create_task(self._mail_loop(), name="mail"))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ---- turns ---------------------------------------------------------------------------------
    def turns(self, live: LiveTable, before: frozenset[int], after: frozenset[int]) -> None:
        """`MatchService.on_turns`: called by the node that made the change, lock held."""
        finished = live.meta.status == "finished" and live.state is not None
        if before == after and not finished:
            return
        self._queue.put_nowait(_Change(live.meta, before, after, finished))

    async def _work(self) -> None:
        while True:
            # every change waiting (under load, several tables' moves): their turns stored
            # in one transaction, then each one told
            changes = [await self._queue.get()]
            while not self._queue.empty() and len(changes) < TURNS_PER_TRANSACTION:
                changes.append(self._queue.get_nowait())
            try:
                await self.storage.set_turns_many(
                    [(c.table.id, c.table.revision, c.after) for c in changes]
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("storing the turns of %d changes failed", len(changes))
            for change in changes:
                try:
                    await self._handle(change)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("turn notification for table %s failed", change.table.id)

    async def _handle(self, change: _Change) -> None:
        """What a change of turns tells the players (its turns are stored already)."""
        table = change.table
        turn_based = isinstance(table.clock, dict) and table.clock.get("kind") == "turn_based"
        for user_id in sorted(change.after - change.before):
            await self.bus.publish(
                user_topic(user_id),
                {"type": "turn", "table": table.id, "game": table.game, "your_move": True},
            )
            if turn_based:
                await self._queue_mail(user_id, "your_move", table, {})
        for user_id in sorted(change.before - change.after):
            await self.bus.publish(
                user_topic(user_id),
                {"type": "turn", "table": table.id, "game": table.game, "your_move": False},
            )
            if turn_based and self.mailer is not None:
                await self.storage.drop_mail_events(user_id, table.id, ["your_move"])
        if change.finished:
            ranks = _ranks(table)
            seated = [
                (index, seat.user_id)
                for index, seat in enumerate(table.seats)
                if seat.kind == "human" and seat.user_id is not None
            ]
            for index, user_id in seated:
                await self.bus.publish(
                    user_topic(user_id), {"type": "ended", "table": table.id, "game": table.game}
                )
                if turn_based:
                    params: dict[str, Any] = {"players": len(table.seats)}
                    if ranks is not None:
                        params["rank"] = ranks[index]
                    await self._queue_mail(user_id, "ended", table, params)

    async def invite(self, user_id: int, table: GameTable, by: str) -> None:
        """Invite a user to a table: on their channel at once, and in their next digest
        (friends.py: a friend's invitation)."""
        await self.bus.publish(
            user_topic(user_id),
            {"type": "invitation", "table": table.id, "game": table.game, "by": by},
        )
        params: dict[str, Any] = {"by": by}
        if table.private and table.invite_token:
            params["invite"] = table.invite_token
        await self._queue_mail(user_id, "invitation", table, params)

    async def friend(self, user_id: int, kind: str, by: str) -> None:
        """A friend request to the user (`kind` "request"), or their request accepted
        ("accepted"): on their channel at once (no mail)."""
        await self.bus.publish(user_topic(user_id), {"type": "friend", "kind": kind, "by": by})

    async def _queue_mail(
        self, user_id: int, kind: str, table: GameTable, params: dict[str, Any]
    ) -> None:
        if self.mailer is None:
            return  # no SMTP server: no mail at all
        settings = await self.storage.get_settings(user_id)
        if not wants(settings, kind):
            return
        await self.storage.add_mail_event(user_id, kind, table.id, {"game": table.game, **params})

    # ---- digests -------------------------------------------------------------------------------
    async def _mail_loop(self) -> None:
        while True:
            await asyncio.sleep(self.mail_every)
            try:
                await self.send_due()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("sending mail failed: %s", exc)

    async def send_due(self) -> int:
        """Send every digest that is due; how many went."""
        if self.mailer is None:
            return 0
        older_than = datetime.now(UTC) - timedelta(seconds=self.mail_delay)
        sent = 0
        for user_id in await self.storage.mail_due(older_than):
            settings = await self.storage.get_settings(user_id)
            gap = timedelta(seconds=prefs_of(settings)["digest"] * self.mail_minute)
            claim = await self.storage.claim_mail(user_id, older_than, gap)
            if claim is None:
                continue  # another node has it
            batch, events = claim
            events = [e for e in events if wants(settings, e.kind)]
            user = await self.storage.get_user(user_id)
            if not events or user is None or settings.email is None:
                await self.storage.finish_mail(batch, sent=True)  # nothing wanted any more
                continue
            secret = await self.storage.site_secret("unsubscribe")
            try:
                # inside the try: a mail that cannot be written (an address stored before the
                # rules were stricter) fails alone, never the whole pass
                message = digest_message(
                    sender=self.mailer.sender,
                    to=settings.email,
                    name=user.name,
                    language=settings.language,
                    events=events,
                    public_url=self.public_url,
                    token=unsubscribe_token(secret, user_id),
                )
                await self.mailer.send(message)
            except Exception as exc:
                log.warning("mail to user %d failed: %s", user_id, exc)
                await self.storage.finish_mail(batch, sent=False)
                continue
            await self.storage.finish_mail(batch, sent=True)
            sent += 1
            self.sent += 1
        return sent


def wants(settings: UserSettings, kind: str) -> bool:
    """Whether the user wants mail of this kind now (and has an address for it)."""
    prefs = prefs_of(settings)
    return (
        settings.email is not None
        and kind in KINDS
        and bool(prefs["mail"])
        and bool(prefs.get(f"mail_{kind}", False))
    )


def _ranks(table: GameTable) -> list[int] | None:
    """Each seat's place (1 = first) in the finished game, from its stored result."""
    from coffeetable.server.ratings import ranks_from_scores

    result = table.result
    if not isinstance(result, dict):
        return None
    try:
        totals = [float(s["total"]) for s in result["scores"]]
        return [rank + 1 for rank in ranks_from_scores(totals, list(result["winners"]))]
    except (KeyError, TypeError, ValueError):
        return None
