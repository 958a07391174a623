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
    #: "player", or "admin" (may see reports and suspend accounts)
    role: str = "player"
    #: when the account was suspended (it cannot log in), or None
    suspended_at: datetime | None = None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def suspended(self) -> bool:
        return self.suspended_at is not None


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


FriendState = Literal["friend", "incoming", "outgoing"]


@dataclass(frozen=True)
class Friend:
    """Another user as one user sees them: a friend, or a request either way."""

    user_id: int
    name: str
    #: "friend": accepted; "incoming": they asked, you may accept; "outgoing": you asked
    state: FriendState
    #: when the request was made, or accepted for a friend
    since: datetime


@dataclass(frozen=True)
class Invitation:
    """An invitation to an open table, as its receiver sees it."""

    table_id: str
    from_user_id: int
    from_name: str
    created_at: datetime


@dataclass(frozen=True)
class ChatLine:
    """A line said at a table (`table_id`) or in the lobby (`table_id` None): its words
    (`text`) or a quick message's id (`preset`), never both."""

    id: int
    table_id: str | None
    user_id: int
    user_name: str
    seat: int | None
    spectator: bool
    text: str | None
    preset: str | None
    #: moves made at the table before it was said (where a replay shows it)
    moves: int | None
    created_at: datetime


@dataclass(frozen=True)
class Report:
    """A player's report of a chat line or of a player, for an admin."""

    id: int
    reporter_id: int
    reporter_name: str
    target_id: int
    target_name: str
    target_suspended: bool
    line_id: int | None
    #: the reported line's words (or preset id) as they were when reported
    line_text: str | None
    table_id: str | None
    reason: str
    created_at: datetime
    handled_at: datetime | None
    handled_by: int | None


# ---- presence, "my games", notifications (issue 38) --------------------------------------
@dataclass(frozen=True)
class PlayerTable:
    """A table a user holds a seat at ("my games"): whose move it is there, since when."""

    table: GameTable
    seat: int
    to_move: bool
    turn_since: datetime | None


@dataclass(frozen=True)
class UserSettings:
    """A user's notification settings: `email` (None: none given; shown to its owner only),
    `language` of the mail, and `prefs` (server/notify.py: PREFS, with their defaults)."""

    user_id: int
    email: str | None
    language: str
    prefs: JSONObject
    next_mail_at: datetime | None = None


@dataclass(frozen=True)
class MailEvent:
    """Something to be mailed to a user (a digest gathers every pending one): `kind` is
    "your_move", "ended" or "invitation"."""

    id: int
    user_id: int
    kind: str
    table_id: str | None
    params: JSONObject
    created_at: datetime


DeckVisibility: TypeAlias = Literal["private", "friends", "public"]
DECK_VISIBILITIES: tuple[str, ...] = get_args(DeckVisibility)
CalibrationStatus: TypeAlias = Literal["queued", "running", "done", "failed"]


@dataclass(frozen=True)
class DeckFile:
    """A stored deck or card file: its canonical text, addressed by its SHA-256, and what
    the lobby shows of it."""

    sha256: str
    game: str
    name: str
    cards: int
    reconstructed: bool
    provenance: JSONObject
    text: str
    created_at: datetime


@dataclass(frozen=True)
class UserDeck:
    """A deck file as one of its owners keeps it (the file's text left out)."""

    sha256: str
    game: str
    name: str
    cards: int
    reconstructed: bool
    provenance: JSONObject
    owner_id: int
    owner_name: str
    visibility: DeckVisibility
    created_at: datetime


@dataclass(frozen=True)
class Calibration:
    """A deck's bot calibration run: queued, running, done (with its figures) or failed."""

    sha256: str
    status: CalibrationStatus
    requested_by: int | None
    requested_at: datetime
    finished_at: datetime | None
    figures: JSONObject | None
    error: str | None


@dataclass(frozen=True)
class StoredReview:
    """A finished game's review at one budget (reviews table): `review` once `status` is
    "done", `error` once it is "failed"."""

    table_id: str
    budget: str
    status: str  # queued, running, done, failed
    requested_by: int | None
    created_at: datetime
    updated_at: datetime
    review: JSONObject | None = None
    error: str | None = None
