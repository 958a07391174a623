"""One node of a site: the parts of the server put together, started and stopped.

Alone (no Redis URL), a node keeps everything in its own process: an in-process bus, every
lease, its own pool of bot worker processes and in-memory rate limits, on SQLite or
PostgreSQL. With `redis_url`, it is one of any number of nodes serving one site on
PostgreSQL: the bus is Redis pub/sub, the leases are Redis keys, bot decisions go to
`coffeetable bot-worker` processes through Redis Streams (unless `bot_workers` asks for a
local pool), and the rate limits are shared in Redis (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import secrets
import socket
import time
import zlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from coffeetable.core.errors import DataError
from coffeetable.server import auth
from coffeetable.server.abandonment import AbandonService
from coffeetable.server.bus import LOBBY, USERS, Bus, MemoryBus, RedisBus
from coffeetable.server.chat import LOBBY_CHAT, ChatService
from coffeetable.server.collector import CycleCollector
from coffeetable.server.decks import CalibrationPlan, DeckService
from coffeetable.server.driver import Driver
from coffeetable.server.friends import FriendService
from coffeetable.server.jobs import Jobs, PoolJobs, RedisJobs
from coffeetable.server.leases import Leases, RedisLeases, SoleLeases
from coffeetable.server.lobby import LobbyFeed, LobbyService
from coffeetable.server.mail import Mailer, SmtpSettings
from coffeetable.server.match import MatchService
from coffeetable.server.moderation import ModerationService
from coffeetable.server.notify import Notifier
from coffeetable.server.players import PlayerPages
from coffeetable.server.presence import PRESENCE, PRESENCE_REFRESH, PRESENCE_TTL, Presence
from coffeetable.server.replays import ReplayService
from coffeetable.server.reviews import ReviewService
from coffeetable.server.storage import Storage, default_database_url, open_storage
from coffeetable.server.userchannel import UserChannels

log = logging.getLogger("coffeetable.server")


class Settings(BaseModel):
    database_url: str = Field(default_factory=default_database_url)
    #: Redis of a site of several nodes (None: this node alone)
    redis_url: str | None = None
    #: processes of this node's own bot pool; with Redis, 0 sends the decisions to
    #: `coffeetable bot-worker` processes instead
    bot_workers: int = 1
    bot_mode: Literal["process", "thread"] = "process"
    #: the session cookie is Secure and HSTS is sent on every answer (a site behind TLS);
    #: answers to requests that came over HTTPS get both anyway
    secure_cookies: bool = False
    #: origins (`https://play.example`) whose pages may change things and open sockets;
    #: none listed: only the request's own host
    allowed_origins: list[str] = Field(default_factory=list)
    #: requests per second per client address on the account routes, and burst
    auth_rate: float = 2.0
    auth_burst: int = Field(default_factory=lambda: _env_int("COFFEETABLE_AUTH_BURST", 20))
    #: failed logins per name: a burst of 10, then one a minute (1,440 guesses a day at most)
    login_failure_rate: float = 1 / 60
    login_failure_burst: int = 10
    #: tables created per user and per address: a burst, then one every 6 seconds
    table_rate: float = 1 / 6
    table_burst: int = Field(default_factory=lambda: _env_int("COFFEETABLE_TABLE_BURST", 10))
    #: open tables (not yet started) a user may have created at once, counted in the database
    open_tables_per_user: int = Field(
        default_factory=lambda: _env_int("COFFEETABLE_OPEN_TABLES", 5)
    )
    #: hints per user: a burst of 5, then one every 2 seconds
    hint_rate: float = 0.5
    #: game reviews a user may ask for a day (reviews.py)
    review_daily: int = Field(default_factory=lambda: _env_int("COFFEETABLE_REVIEW_DAILY", 10))
    #: deals each reviewed move is played out on, for every budget (0: the budgets' own)
    review_samples: int = Field(default_factory=lambda: _env_int("COFFEETABLE_REVIEW_SAMPLES", 0))
    hint_burst: int = 5
    #: friend requests and invitations per user: a burst of 20, then one every 5 seconds
    friend_rate: float = 0.2
    friend_burst: int = 20
    #: chat lines per user (site-wide): a burst, then one every 2 seconds
    chat_rate: float = 0.5
    chat_burst: int = Field(default_factory=lambda: _env_int("COFFEETABLE_CHAT_BURST", 8))
    #: reports per user: a burst of 5, then one a minute
    report_rate: float = 1 / 60
    report_burst: int = 5
    #: open WebSockets per client address on this node
    sockets_per_address: int = Field(
        default_factory=lambda: _env_int("COFFEETABLE_SOCKETS_PER_ADDRESS", 32)
    )
    #: the shortest abandonment limit a table's creator may choose (docs/server-clocks-ratings.md)
    abandon_minimum: float = Field(
        default_factory=lambda: float(_env_int("COFFEETABLE_ABANDON_MINIMUM", 60))
    )
    #: seconds between two housekeeping passes (expired sessions, stale guests)
    housekeeping_every: float = 3600.0
    #: WebSocket messages per second per connection, and burst
    message_rate: float = 20.0
    message_burst: int = 60
    #: run the cycle collector on the server's own schedule once started (collector.py): for
    #: a process that is the server (`coffeetable serve`), not for an app made inside another
    #: program such as a test
    tune_gc: bool = False
    #: mail (turn notifications): the SMTP server (smtp://user:password@host:port, or smtps://
    #: for TLS at once; None: no mail at all), the From address, and the site's address for
    #: the links in the mail
    smtp_url: str | None = None
    smtp_from: str | None = None
    public_url: str = "http://127.0.0.1:8000"
    #: seconds a notification waits before it may be mailed (a move made meanwhile takes a
    #: "your move" back), and how often each node looks for digests that are due
    mail_delay: float = Field(default_factory=lambda: _env_float("COFFEETABLE_MAIL_DELAY", 60.0))
    mail_every: float = Field(default_factory=lambda: _env_float("COFFEETABLE_MAIL_EVERY", 30.0))
    #: seconds in a "minute" of the users' digest intervals (60; tests make it shorter)
    mail_minute: float = Field(default_factory=lambda: _env_float("COFFEETABLE_MAIL_MINUTE", 60.0))
    #: presence with Redis: seconds a node's entry lives without a refresh, and how often it
    #: is refreshed (watchers of a dead node's users learn within about the sum)
    presence_ttl: float = Field(
        default_factory=lambda: _env_float("COFFEETABLE_PRESENCE_TTL", PRESENCE_TTL)
    )
    presence_refresh: float = Field(
        default_factory=lambda: _env_float("COFFEETABLE_PRESENCE_REFRESH", PRESENCE_REFRESH)
    )
    #: decks (issue 39): decks a user may keep; a deck calibration's bot, players, games
    #: and time bound (seconds), and the runs a user may ask for in a day
    decks_per_user: int = 100
    calibration_bot: str = Field(
        default_factory=lambda: os.environ.get("COFFEETABLE_CALIBRATION_BOT", "greedy")
    )
    calibration_players: int = 2
    calibration_games: int = Field(
        default_factory=lambda: _env_int("COFFEETABLE_CALIBRATION_GAMES", 10)
    )
    calibration_seconds: float = Field(
        default_factory=lambda: _env_float("COFFEETABLE_CALIBRATION_SECONDS", 300.0)
    )
    calibrations_per_day: int = Field(
        default_factory=lambda: _env_int("COFFEETABLE_CALIBRATIONS_PER_DAY", 5)
    )
    #: a name for this node in logs and the health report
    node_name: str = Field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


class RateLimits:
    """A site-wide limit of one kind (the account routes per address, failed logins per name,
    table creations, hints): in memory alone, in Redis for a site (so that N nodes do not
    allow N times as much). `kind` keeps the kinds' buckets apart in Redis."""

    def __init__(self, rate: float, burst: int, redis: Any = None, kind: str = "auth") -> None:
        self.rate, self.burst, self.kind = rate, burst, kind
        self.local = auth.RateLimiter(rate, burst)
        self.redis = redis
        self._script = redis.register_script(_BUCKET) if redis is not None else None

    async def check(self, key: str, *, take: bool = True) -> float | None:
        """None if `key` may go on now, else the seconds until it may. `take=False` only
        looks (a failed login takes its token afterwards, with `check`)."""
        if self._script is not None:
            redis_key = f"ct:rate:{key}" if self.kind == "auth" else f"ct:rate:{self.kind}:{key}"
            try:
                wait = float(
                    await self._script(
                        keys=[redis_key],
                        args=[self.rate, self.burst, time.time(), 1 if take else 0],
                    )
                )
            except Exception as exc:  # Redis away: this node's own bucket meanwhile
                log.warning("shared rate limit unavailable: %s", exc)
            else:
                return None if wait <= 0 else wait
        if not take:
            wait = self.local.retry_after(key)
            return None if wait <= 0 else wait
        if self.local.allow(key):
            return None
        return self.local.retry_after(key)


# a token bucket in one Redis hash: tokens and the time they were counted
_BUCKET = """
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local take = tonumber(ARGV[4] or '1')
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then
    if take == 1 then tokens = tokens - 1 end
else
    wait = (1 - tokens) / rate
end
if take == 0 then return tostring(wait) end
redis.call('HSET', KEYS[1], 't', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
"""


class Node:
    """Storage, bus, leases, jobs and the services over them, for one process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.id = f"{settings.node_name}:{secrets.token_hex(3)}"
        self.storage: Storage
        self.redis: Any = None
        self.bus: Bus
        self.leases: Leases
        self.jobs: Jobs
        self.match: MatchService
        self.driver: Driver
        self.abandon: AbandonService
        self.lobby: LobbyService
        self.replays: ReplayService
        self.reviews: ReviewService
        self.players: PlayerPages
        self.feed: LobbyFeed
        self.limits: RateLimits
        #: failed logins per name, table creations per user and per address, hints per user
        self.login_failures: RateLimits
        self.table_limits: RateLimits
        self.hint_limits: RateLimits
        #: chat lines and reports per user
        self.chat_limits: RateLimits
        self.report_limits: RateLimits
        self.chat: ChatService
        self.moderation: ModerationService
        #: presence, the users' own channels (/ws/user), turn notifications and mail
        self.presence: Presence
        self.channels: UserChannels
        self.notifier: Notifier
        #: sockets of each user on this node (closed when the user logs out, on any node)
        self.user_sockets: dict[int, set[Any]] = {}
        self._housekeeping: asyncio.Task[None] | None = None
        self.started = time.time()
        self.stopping = False
        #: the cycle collector's schedule, in a server process (Settings.tune_gc)
        self.collector: CycleCollector | None = None

    @property
    def shared(self) -> bool:
        return self.redis is not None

    async def start(self) -> None:
        settings = self.settings
        self.storage = open_storage(settings.database_url)
        await self.storage.migrate()
        if settings.redis_url:
            import redis.asyncio

            self.redis = redis.asyncio.Redis.from_url(
                settings.redis_url, socket_connect_timeout=2, socket_timeout=5
            )
            self.bus = RedisBus(self.redis)
            self.leases = RedisLeases(self.redis, self.id)
            self.jobs = (
                PoolJobs(settings.bot_workers, settings.bot_mode)
                if settings.bot_workers > 0
                else RedisJobs(self.redis, self.id)
            )
        else:
            self.bus = MemoryBus()
            self.leases = SoleLeases(self.id)
            self.jobs = PoolJobs(max(1, settings.bot_workers), settings.bot_mode)
        self.match = MatchService(self.storage, self.bus)
        self.driver = Driver(self.match, self.leases, self.jobs)
        self.abandon = AbandonService(self.match, self.leases, on_bot=self.driver.take)
        self.driver.watchers.append(self.abandon.after_change)
        self.lobby = LobbyService(
            self.match,
            on_running=self.driver.take,
            abandon_minimum=settings.abandon_minimum,
        )
        self.replays = ReplayService(self.match)
        self.reviews = ReviewService(
            self.storage,
            self.replays,
            self.jobs,
            settings.review_daily,
            settings.review_samples or None,
        )
        self.players = PlayerPages(self.storage, self.match)
        self.feed = LobbyFeed(self.bus, self.match.names)
        self.match.on_listing = self.feed.changed
        self.limits = RateLimits(settings.auth_rate, settings.auth_burst, self.redis)
        self.login_failures = RateLimits(
            settings.login_failure_rate, settings.login_failure_burst, self.redis, "login"
        )
        self.table_limits = RateLimits(
            settings.table_rate, settings.table_burst, self.redis, "tables"
        )
        self.hint_limits = RateLimits(settings.hint_rate, settings.hint_burst, self.redis, "hint")
        self.friend_limits = RateLimits(
            settings.friend_rate, settings.friend_burst, self.redis, "friends"
        )
        self.chat_limits = RateLimits(settings.chat_rate, settings.chat_burst, self.redis, "chat")
        self.report_limits = RateLimits(
            settings.report_rate, settings.report_burst, self.redis, "report"
        )
        self.chat = ChatService(
            self.storage,
            self.bus,
            self.id,
            self.chat_limits.check,
            self.match.live_tables.get,
        )
        self.moderation = ModerationService(self.storage, self.chat, self.logged_out)
        self.presence = Presence(self.bus, self.id, self.redis, ttl=settings.presence_ttl)
        self.channels = UserChannels(
            self.storage, self.bus, self.presence, every=settings.presence_refresh
        )
        mailer = None
        if settings.smtp_url:
            smtp = SmtpSettings.from_url(settings.smtp_url)
            host = settings.public_url.split("//", 1)[-1].split("/", 1)[0].split(":", 1)[0]
            mailer = Mailer(smtp, settings.smtp_from or f"coffeetable <noreply@{host}>")
        self.notifier = Notifier(
            self.storage,
            self.bus,
            mailer,
            settings.public_url,
            mail_delay=settings.mail_delay,
            mail_every=settings.mail_every,
            mail_minute=settings.mail_minute,
        )
        self.match.on_turns = self.notifier.turns
        self.friends = FriendService(self.storage, self.lobby, self.notifier)
        self.decks = DeckService(
            self.storage,
            self.match.decks,
            self.friends,
            self.jobs,
            decks_per_user=settings.decks_per_user,
            plan=CalibrationPlan(
                bot=settings.calibration_bot,
                players=settings.calibration_players,
                games=settings.calibration_games,
                seconds=settings.calibration_seconds,
                per_day=settings.calibrations_per_day,
            ),
        )
        #: deck checks per address (the editor checks as the player types): a burst, then 2/s
        self.deck_limits = RateLimits(2.0, 60, self.redis, "deck")

        async def on_message(topic: str, message: dict[str, Any]) -> None:
            if topic == LOBBY:
                await self.feed.on_message(topic, message)
            elif topic == USERS:
                self._on_user_message(message)
                await self.chat.on_user_message(message)
            elif topic == LOBBY_CHAT or message.get("kind") == "chat":
                await self.chat.on_message(topic, message)
            elif topic == PRESENCE:
                await self.channels.on_presence(message)
            elif topic.startswith("user:"):
                self.channels.on_user_message(topic, message)
            else:
                await self.match.on_message(topic, message)

        self.bus.handler = on_message
        self.bus.on_reconnect = self.match.resync_all
        await self.bus.subscribe(LOBBY)
        await self.bus.subscribe(USERS)
        await self.bus.subscribe(LOBBY_CHAT)
        await self.bus.subscribe(PRESENCE)
        await self.bus.start()
        await self.presence.refresh()
        self.channels.start()
        self.notifier.start()
        await self.jobs.start()
        if not self.shared:
            # resume the games that were running when the server stopped
            for table_id in await self.storage.running_table_ids():
                try:
                    await self.match.live(table_id)
                except Exception:
                    log.exception("could not resume table %s", table_id)
        await self.driver.start()
        self._housekeeping = asyncio.create_task(self._keep_house(), name="housekeeping")

    # ==== sessions ending on every node =======================================================
    async def logged_out(self, user_id: int, session: str | None) -> None:
        """A session ended (`session`: its token hash), or every session of the user (None):
        close the sockets opened with it, on every node (through the bus)."""
        await self.bus.publish(USERS, {"type": "logout", "user": user_id, "session": session})

    def _on_user_message(self, message: dict[str, Any]) -> None:
        if message.get("type") != "logout":
            return
        session = message.get("session")
        for socket_ in list(self.user_sockets.get(message.get("user"), ())):  # type: ignore[arg-type]
            if session is None or socket_.session == session:
                socket_.end()

    def socket_opened(self, user_id: int, socket_: Any) -> None:
        self.user_sockets.setdefault(user_id, set()).add(socket_)

    def socket_closed(self, user_id: int, socket_: Any) -> None:
        sockets = self.user_sockets.get(user_id)
        if sockets is not None:
            sockets.discard(socket_)
            if not sockets:
                del self.user_sockets[user_id]

    async def _keep_house(self) -> None:
        """Delete expired sessions and guests nobody can use any more, now and then (any
        node may: the deletes are idempotent)."""
        while True:
            try:
                sessions, guests = await self.storage.delete_stale(
                    guests_before=datetime.now(UTC) - auth.GUEST_TTL
                )
                if sessions or guests:
                    log.info("housekeeping: %d expired sessions, %d stale guests", sessions, guests)
                await self.storage.delete_sent_mail(datetime.now(UTC) - timedelta(days=30))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("housekeeping failed: %s", exc)
            await asyncio.sleep(self.settings.housekeeping_every)

    async def stop(self) -> None:
        """Hand the leases over, close every socket with a reconnect hint (1012), and stop."""
        self.stopping = True
        if self._housekeeping is not None:
            self._housekeeping.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._housekeeping
        with contextlib.suppress(Exception):
            await self.driver.close()
        await self.match.close(code=1012)
        with contextlib.suppress(Exception):
            await self.channels.close(code=1012)
        with contextlib.suppress(Exception):
            await self.notifier.close()
        for queue in [*self.feed.clients, *self.chat.lobby]:
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)
        await self.decks.close()

        with contextlib.suppress(Exception):
            await self.reviews.close()
        await self.jobs.close()
        await self.bus.close()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()
        await self.storage.close()

    async def health(self) -> dict[str, Any]:
        """What `GET /api/health` reports: each dependency, and this node's load."""
        database = "ok"
        try:
            await self.storage.table_revisions(["-"])
        except Exception as exc:
            database = f"error: {type(exc).__name__}"
        redis = "not used"
        if self.redis is not None:
            redis = "ok" if await self.bus.healthy() else "unreachable"
        return {
            "ok": database == "ok" and redis in ("ok", "not used"),
            "node": self.id,
            "database": database,
            "redis": redis,
            "tables_loaded": len(self.match.live_tables),
            "leases_held": len(self.leases.held()) if self.shared else len(self.match.live_tables),
            "queue_depth": await self.jobs.depth(),
            "uptime_s": round(time.time() - self.started, 1),
            **({"collector": self.collector.stats()} if self.collector is not None else {}),
        }


# ==== one node alone on a database ============================================================
@contextlib.asynccontextmanager
async def database_guard(database_url: str, redis_url: str | None) -> AsyncIterator[None]:
    """Refuse to start a node that would share its database unsafely (DataError, with what
    to do): two nodes on one SQLite file, or on one PostgreSQL database without Redis (they
    would not hear of each other's moves), or a node with Redis on SQLite. Held while the
    node runs."""
    if database_url.startswith("sqlite"):
        if redis_url:
            raise DataError(
                "--redis is for a site of several nodes, and several nodes need one shared "
                "PostgreSQL database (--db postgresql://...), not SQLite"
            )
        path = database_url.split("///", 1)[-1].split("?", 1)[0]
        if not path or path == ":memory:" or database_url.startswith("sqlite://memory"):
            yield
            return
        lock_path = Path(path).expanduser().with_name(Path(path).name + ".lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(lock_path, "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise DataError(
                    f"another coffeetable serve is using {path}: one SQLite database serves "
                    "one node. To serve a site from several nodes, use PostgreSQL and Redis "
                    "(--db postgresql://... --redis redis://...; docs/deploy.md)"
                ) from None
            yield
        return
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    url = make_url(database_url)
    schema = url.query.get("schema")
    plain = url.set(drivername="postgresql").difference_update_query(["schema"])
    dsn = plain.render_as_string(hide_password=False)
    # one lock per database and schema (tests run several sites in schemas of one database)
    key = zlib.crc32(f"coffeetable:{plain.database}:{schema}".encode()) & 0x7FFFFFFF
    connection = await asyncpg.connect(dsn)
    try:
        shared = bool(redis_url)
        query = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        if not await connection.fetchval(f"SELECT {query}($1)", key):
            raise DataError(
                "another coffeetable serve runs on this database "
                + (
                    "without --redis: stop it, or give it the site's --redis too"
                    if shared
                    else "(a node of a site, or a lone node): give this one the site's "
                    "--redis redis://... too, or stop the other"
                )
            )
        yield
    finally:
        with contextlib.suppress(Exception):
            await connection.close()
