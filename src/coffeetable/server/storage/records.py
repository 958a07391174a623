"""The values the storage layer returns: plain frozen dataclasses, never database rows.

Every datetime is timezone-aware UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeAlias, get_args

JSONObject: TypeAlias = dict[str, Any]
SeatKind: TypeAlias = Literal["human", "bot", "open"]
TableStatus: TypeAlias = Literal["open", "running", "finished", "aborted"]

SEAT_KINDS: tuple[str, ...] = get_args(SeatKind)
TABLE_STATUSES: tuple[str, ...] = get_args(TableStatus)


@dataclass(frozen=True)
class User:
    id: int
    name: str
    password_hash: str | None  # None for guests
    is_guest: bool
    created_at: datetime


@dataclass(frozen=True)
class UserSession:
    """A login session. The server keeps the token in a cookie and stores only its hash."""

    token_hash: str
    user_id: int
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class Seat:
    """One seat at a table: a human (`user_id`), a bot (`bot`, e.g. "ismcts:easy") or open."""

    kind: SeatKind
    user_id: int | None = None
    bot: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SEAT_KINDS:
            raise ValueError(f"seat kind must be one of {', '.join(SEAT_KINDS)}, not {self.kind!r}")

    def to_json(self) -> JSONObject:
        return {"kind": self.kind, "user_id": self.user_id, "bot": self.bot}

    @classmethod
    def from_json(cls, data: JSONObject) -> Seat:
        return cls(kind=data["kind"], user_id=data.get("user_id"), bot=data.get("bot"))


@dataclass(frozen=True)
class GameTable:
    """A table in the board-game sense: one game being set up, played or finished.

    `version` counts every change to the table's moves: each action accepted (also one
    taken back later) and each undo (`remove_last_action`), so it only grows. Without
    undos it is the number of actions. The game is fully determined by (game, options, seats, seed) and the
    stored actions in version order."""

    id: str
    game: str
    options: JSONObject
    seed: int
    seats: tuple[Seat, ...]
    clock: JSONObject | None
    rated: bool
    private: bool
    invite_token: str | None
    status: TableStatus
    version: int
    created_by: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: JSONObject | None
    #: counts every change of the table (moves, undos, seats, status, clock): one order of
    #: all its changes, which every node of a site applies in turn (docs/server-storage.md)
    revision: int = 0
    #: seconds a person to move may show no sign of life before the others are asked what
    #: to do (None: the default of the table's speed; docs/server-clocks-ratings.md)
    abandon_after: float | None = None
    #: the abandonment state: the open offer and its votes, past waits, seats the others
    #: handed to a bot (`server/abandon.py`); None when nothing has happened
    abandonment: JSONObject | None = None


@dataclass(frozen=True)
class GameStats:
    """One player's results in one game: the games played to their end (a score), those
    won against others (games of two or more, with the person's own play: not after a bot
    took the seat), the mean and best score, and the solo games and best solo score."""

    game: str
    played: int
    wins: int
    mean_score: float | None
    best_score: int | None
    solo_played: int
    solo_best: int | None


@dataclass(frozen=True)
class PlayerGame:
    """A table in a player's history: the table's row as far as anyone may see it, and
    the player's seat and result there."""

    table_id: str
    game: str
    seat: int
    seats: tuple[Seat, ...]
    status: TableStatus
    rated: bool
    private: bool
    created_at: datetime
    finished_at: datetime | None
    score: int | None
    won: bool | None
    left_game: bool
    result: JSONObject | None


@dataclass(frozen=True)
class HighScore:
    """A solo game on the high-score board."""

    user_id: int
    name: str
    table_id: str
    score: int
    finished_at: datetime


@dataclass(frozen=True)
class StoredAction:
    """One stored action of a table, in the game's notation. `version` is the table version
    it made (1-based); after an undo the next action skips the version the undo took, so
    the n-th action has version n only in a game without undos."""

    table_id: str
    version: int
    seat: int
    notation: str
    created_at: datetime
    #: the table's revision after this change, as returned by `append_action` and
    #: `remove_last_action` (None in `list_actions`)
    table_revision: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Rating:
    user_id: int
    game: str
    rating: float
    games_played: int


@dataclass(frozen=True)
class LeaderboardEntry:
    user_id: int
    name: str
    rating: float
    games_played: int


@dataclass(frozen=True)
class RatingChange:
    """How one rated table changed one player's rating."""

    user_id: int
    game: str
    table_id: str
    before: float
    after: float
    created_at: datetime
