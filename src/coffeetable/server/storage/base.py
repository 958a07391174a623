"""The storage interface the server codes against.

`open_storage(url)` returns an implementation; the SQL one serves SQLite and PostgreSQL.
Every method is one transaction: it either happens whole or raises and changes nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol, TypedDict, Unpack

from coffeetable.server.storage.records import (
    Calibration,
    ChatLine,
    DeckFile,
    DeckVisibility,
    Friend,
    GameStats,
    GameTable,
    HighScore,
    Invitation,
    JSONObject,
    LeaderboardEntry,
    MailEvent,
    PlayerGame,
    PlayerTable,
    Rating,
    RatingChange,
    Report,
    Seat,
    StoredAction,
    StoredReview,
    TableStatus,
    User,
    UserDeck,
    UserSession,
    UserSettings,
)

DEFAULT_RATING = 1500.0
#: How long a creator's `request_key` names the table it made (`create_table`).
REQUEST_KEY_WINDOW = timedelta(minutes=10)


class TableChanges(TypedDict, total=False):
    """The fields of a table that `update_table` may change (the version changes only by
    `append_action` and `remove_last_action`). A field left out is left alone; None clears a
    nullable field."""

    status: TableStatus
    seats: Sequence[Seat]
    options: JSONObject
    clock: JSONObject | None
    rated: bool
    private: bool
    invite_token: str | None
    started_at: datetime | None
    finished_at: datetime | None
    result: JSONObject | None
    abandonment: JSONObject | None


class Storage(Protocol):
    # --- life cycle ---------------------------------------------------------------------
    async def migrate(self) -> None:
        """Bring the schema up to date (safe to call on every start)."""

    async def close(self) -> None:
        """Close every connection. The object is not usable afterwards."""

    # --- users --------------------------------------------------------------------------
    async def create_user(
        self, name: str, password_hash: str | None = None, *, is_guest: bool = False
    ) -> User:
        """A new user; `DuplicateNameError` if the name is taken in any case."""

    async def get_user(self, user_id: int) -> User | None: ...

    async def get_user_by_name(self, name: str) -> User | None:
        """The user of that name, compared without regard to case."""

    # --- sessions -----------------------------------------------------------------------
    async def create_session(
        self, token_hash: str, user_id: int, expires_at: datetime
    ) -> UserSession:
        """`NotFoundError` for an unknown user, `AlreadyExistsError` for a reused hash."""

    async def get_session(self, token_hash: str) -> UserSession | None:
        """The session, or None if there is none or it has expired."""

    async def get_session_user(self, token_hash: str) -> User | None:
        """The user of the session, or None if there is no such session or it has
        expired: `get_session` and then `get_user` of its user, in one read."""

    async def delete_session(self, token_hash: str) -> bool:
        """Whether there was such a session."""

    async def delete_expired_sessions(self) -> int:
        """Remove expired sessions; return how many."""

    async def delete_user_sessions(self, user_id: int) -> int:
        """Remove every session of the user ("log out everywhere"); return how many."""

    async def delete_stale(self, guests_before: datetime) -> tuple[int, int]:
        """Housekeeping: remove expired sessions, and guests made before `guests_before`
        with no live session, no table made and no seat at any table. Returns (sessions,
        guests) removed."""

    async def count_open_tables(self, created_by: int) -> int:
        """Tables with status "open" that the user created."""

    async def import_table(
        self,
        table_id: str,
        *,
        game: str,
        seed: int,
        seats: Sequence[Seat],
        options: JSONObject,
        created_by: int,
        moves: Sequence[tuple[int, str]],
        result: JSONObject,
    ) -> GameTable:
        """A finished game, all at once (one transaction): the table with status "finished"
        and version `len(moves)`, and its moves `(seat, notation)`."""

    # --- game tables --------------------------------------------------------------------
    async def create_table(
        self,
        table_id: str,
        *,
        game: str,
        seed: int,
        seats: Sequence[Seat],
        options: JSONObject | None = None,
        clock: JSONObject | None = None,
        rated: bool = False,
        private: bool = False,
        invite_token: str | None = None,
        created_by: int | None = None,
        request_key: str | None = None,
        abandon_after: float | None = None,
    ) -> GameTable:
        """A new table with status "open" and version 0; `AlreadyExistsError` if the id is
        taken, `NotFoundError` if `created_by` is not a user.

        With `request_key` (the client's id of its request), a table that `created_by`
        created with the same key less than `REQUEST_KEY_WINDOW` ago is returned instead,
        unchanged, and no table is made: a repeated request (a double click, a retry, from
        any server process) gets the same table. An older table gives up its key."""

    async def get_table(self, table_id: str) -> GameTable | None: ...

    async def update_table(
        self,
        table_id: str,
        expected_revision: int | None = None,
        **changes: Unpack[TableChanges],
    ) -> GameTable:
        """Change some fields; return the table as it is now. Any change moves the table's
        `revision` on by one. With `expected_revision`, only if the table is still at that
        revision (a compare-and-swap: `StaleRevisionError` otherwise, and nothing changes).
        `NotFoundError`."""

    async def table_revisions(self, table_ids: Iterable[str]) -> dict[str, int]:
        """The current revision of each of these tables that exists."""

    async def load_table(self, table_id: str) -> tuple[GameTable, list[StoredAction]] | None:
        """The table and its actions as of one revision (consistent with each other), or
        None for an unknown table."""

    async def running_table_ids(self, limit: int = 100_000) -> list[str]:
        """The ids of the running tables (public and private), in id order."""

    async def list_tables(
        self,
        statuses: Iterable[TableStatus] | None = None,
        *,
        game: str | None = None,
        include_private: bool = False,
        limit: int = 100,
    ) -> list[GameTable]:
        """Tables with one of `statuses` (any by default), newest first."""

    # --- actions ------------------------------------------------------------------------
    async def append_action(
        self,
        table_id: str,
        expected_version: int,
        seat: int,
        notation: str,
        changes: TableChanges | None = None,
    ) -> StoredAction:
        """Store action number `expected_version + 1` and bump the table's version, only if
        the table is still at `expected_version`; otherwise `StaleVersionError` and
        nothing changes. `changes` (e.g. status "finished" and the result, when this action
        ends the game) are applied to the table in the same transaction. The returned
        action's `table_revision` is the table's revision after it."""

    async def list_actions(self, table_id: str) -> list[StoredAction]:
        """The table's actions in order (empty for an unknown table)."""

    async def remove_last_action(
        self, table_id: str, expected_version: int, changes: TableChanges | None = None
    ) -> StoredAction:
        """Take back the table's last action (an undo), only if the table is still at
        `expected_version`: the action is deleted and the version becomes
        `expected_version + 1`, in one transaction. The version never goes back, so every
        client that saw the table before the undo is stale after it; the number of actions
        is then `version` minus the number of undos, and action versions have a gap where
        an action was taken back. Returns the removed action. `StaleVersionError` if the
        table is at another version, `NotFoundError` for an unknown table or one without
        actions; then nothing changes. `changes` (e.g. the clock) are applied in the same
        transaction."""

    # --- ratings ------------------------------------------------------------------------
    async def get_rating(self, user_id: int, game: str) -> Rating:
        """The user's rating; `DEFAULT_RATING` with 0 games for one who has not played."""

    async def apply_rating_changes(
        self, game: str, table_id: str, new_ratings: Mapping[int, float]
    ) -> list[RatingChange]:
        """Set each user's new rating after the rated table `table_id`, count the game and
        record the change, all in one transaction. `NotFoundError` for an unknown table or
        user; `AlreadyExistsError` if the table's ratings were applied already."""

    async def leaderboard(self, game: str, limit: int = 100) -> list[LeaderboardEntry]:
        """The best-rated users of `game`, best first."""

    async def rating_history(self, user_id: int, game: str) -> list[RatingChange]:
        """The user's rating changes in `game`, oldest first."""

    async def private_table_ids(self, table_ids: Iterable[str]) -> set[str]:
        """Those of `table_ids` that are private tables."""

    # --- friends and invitations --------------------------------------------------------
    async def request_friend(self, user_id: int, other_id: int) -> Friend:
        """`user_id` asks `other_id` to be friends, or accepts the other's request if there is
        one; a friend stays a friend. Returns `other_id` as `user_id` now sees them.
        `NotFoundError` for an unknown user; ValueError for oneself."""

    async def remove_friend(self, user_id: int, other_id: int) -> bool:
        """End a friendship, withdraw one's request or decline the other's, whichever there
        is, and forget the invitations between the two; False if there was no friendship or
        request."""

    async def friends(self, user_id: int) -> list[Friend]:
        """The user's friends and the requests either way, by name."""

    async def invite(self, table_id: str, from_id: int, to_id: int) -> bool:
        """Record that `from_id` invited `to_id` to the table; False if they were invited to
        it already. `NotFoundError` for an unknown table or user."""

    async def invitations(
        self, user_id: int, table_ids: Iterable[str] | None = None
    ) -> list[Invitation]:
        """The invitations the user received to tables that are still open, newest first
        (only to `table_ids` when given)."""

    async def remove_invitation(self, table_id: str, to_id: int) -> bool:
        """Forget an invitation (declined, or taken up); False if there was none."""

    # --- chat and moderation (chat_sql.py) ----------------------------------------------
    async def add_chat_line(
        self,
        table_id: str | None,
        user_id: int,
        *,
        text: str | None = None,
        preset: str | None = None,
        seat: int | None = None,
        spectator: bool = False,
        moves: int | None = None,
    ) -> ChatLine:
        """Store a line said at a table (`table_id`) or in the lobby (None): exactly one of
        `text` and `preset` (ValueError otherwise). `NotFoundError` for an unknown user or
        table."""

    async def chat_lines(
        self, table_id: str | None, *, limit: int = 100, reader: int | None = None
    ) -> list[ChatLine]:
        """The last `limit` lines of a table (or of the lobby: None), oldest first; for a
        `reader`, without the lines of the users they muted or blocked."""

    async def get_chat_line(self, line_id: int) -> ChatLine | None: ...

    async def chat_context(self, line_id: int, before: int = 5, after: int = 2) -> list[ChatLine]:
        """The line with up to `before` lines said before it in its room and `after` after
        (for an admin reading a report); empty for an unknown line."""

    async def set_muted(self, user_id: int, other_id: int, muted: bool) -> bool:
        """Mute (or unmute) `other_id` for `user_id`; whether anything changed.
        ValueError for oneself, `NotFoundError` for an unknown user."""

    async def set_blocked(self, user_id: int, other_id: int, blocked: bool) -> bool:
        """Block (or unblock) `other_id` for `user_id`; as `set_muted`."""

    async def muted_and_blocked(
        self, user_id: int
    ) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        """The users `user_id` muted and those they blocked: (id, name) each, by name."""

    async def hidden_users(self, user_id: int) -> frozenset[int]:
        """The users whose chat lines `user_id` does not get (muted or blocked)."""

    async def is_blocked(self, by_user_id: int, user_id: int) -> bool:
        """Whether `by_user_id` blocked `user_id` (who then may not chat to them, join their
        tables or invite them)."""

    async def blockers_among(self, user_id: int, candidates: Iterable[int]) -> set[int]:
        """Which of `candidates` blocked `user_id`."""

    async def add_report(
        self,
        reporter_id: int,
        target_id: int,
        reason: str,
        *,
        line_id: int | None = None,
        line_text: str | None = None,
        table_id: str | None = None,
    ) -> Report:
        """Store a report of a player (and of one of their lines, with a copy of its words).
        `NotFoundError` if the user, line or table does not exist."""

    async def list_reports(self, *, handled: bool = False, limit: int = 100) -> list[Report]:
        """Open reports, oldest first (or handled ones, newest first)."""

    async def handle_report(self, report_id: int, admin_id: int) -> Report:
        """Mark a report handled (once: a second time changes nothing). `NotFoundError`."""

    async def set_role(self, user_id: int, role: str) -> None:
        """ "player" or "admin"; `NotFoundError` for an unknown user."""

    async def set_suspended(self, user_id: int, suspended: bool) -> None:
        """Suspend an account (it may not log in) or lift it; `NotFoundError`."""

    # --- presence, "my games", notifications (notify_sql.py) ----------------------------
    async def player_tables(self, user_id: int, *, recent: int = 20) -> list[PlayerTable]:
        """The tables the user holds a seat at: every open and running one (newest first),
        then the `recent` latest finished or aborted ones. `to_move` only while running."""

    async def set_turns(self, table_id: str, revision: int, to_move: Collection[int]) -> None:
        """The users to move at the table as of its `revision` (the others are not). A
        revision older than the one stored is ignored, so that the turns of two changes
        stored by two nodes end in revision order. A user already to move keeps the
        moment their turn began (`turn_since`)."""

    async def set_turns_many(self, turns: Sequence[tuple[str, int, Collection[int]]]) -> None:
        """`set_turns` of several tables (table id, revision, users to move) in one
        transaction."""

    async def get_settings(self, user_id: int) -> UserSettings:
        """The user's settings (defaults, with no e-mail, when never saved)."""

    async def save_settings(
        self, user_id: int, *, email: str | None, language: str, prefs: JSONObject
    ) -> UserSettings:
        """Replace the user's settings (their `next_mail_at` stays)."""

    async def add_mail_event(
        self, user_id: int, kind: str, table_id: str | None, params: JSONObject
    ) -> None:
        """Something to mail to the user with their next digest."""

    async def drop_mail_events(self, user_id: int, table_id: str, kinds: Collection[str]) -> int:
        """Forget the pending (unclaimed) events of these kinds at the table (a move made
        before its mail went); how many."""

    async def mail_due(self, older_than: datetime, limit: int = 500) -> list[int]:
        """Users with unclaimed events made at or before `older_than` whose next digest
        may go now."""

    async def claim_mail(
        self, user_id: int, older_than: datetime, gap: timedelta
    ) -> tuple[str, list[MailEvent]] | None:
        """Claim the user's digest, in one transaction: only if their next digest may go
        now (then the next may go `gap` later), every unclaimed event made at or before
        `older_than` is marked with a new batch id. Returns (batch, events), or None when
        another claim came first: of two nodes asking at once exactly one gets the events."""

    async def finish_mail(self, batch: str, sent: bool) -> None:
        """The batch was sent (marked so), or not (its events are unclaimed again)."""

    async def delete_sent_mail(self, before: datetime) -> int:
        """Housekeeping: forget events mailed before `before`."""

    async def site_secret(self, name: str) -> str:
        """The site's secret of that name (64 hex digits), made by the first caller; the
        same for every node."""

    # --- player pages -------------------------------------------------------------------
    async def player_stats(self, user_id: int) -> list[GameStats]:
        """The user's results per game they have played a game of to its end, by game name."""

    async def player_history(
        self, user_id: int, viewer_id: int | None, *, limit: int = 20, offset: int = 0
    ) -> tuple[list[PlayerGame], int]:
        """The tables the user has sat at (any status, rated or not), newest first, as
        `viewer_id` may see them: a private table only if the viewer sat there too (or is
        the user). Returns one page and the number of tables in all."""

    async def high_scores(self, game: str, *, limit: int = 20) -> list[HighScore]:
        """The best solo scores of `game` at public tables that the person played to the
        end themselves, best first (ties: the earlier game first)."""

    # --- decks --------------------------------------------------------------------------
    async def add_deck(
        self,
        file: DeckFile,
        owner_id: int,
        visibility: DeckVisibility,
        *,
        max_decks: int | None = None,
    ) -> UserDeck:
        """`owner_id` keeps the file (stored once by its SHA-256 whoever uploads it) with
        that visibility. AlreadyExistsError if they have it already; OverflowError if they
        keep `max_decks` decks already."""

    async def deck_file(self, sha256: str) -> DeckFile | None:
        """The stored file, whoever may use it (a table played with it needs it)."""

    async def deck_owners(self, sha256: str) -> list[UserDeck]:
        """Everyone who keeps the file, the first to upload it first."""

    async def usable_decks(
        self, user_id: int | None, friend_ids: Collection[int], game: str | None = None
    ) -> list[UserDeck]:
        """The decks `user_id` may use: their own, the public ones and the "friends" decks
        of `friend_ids`, newest first (at most 1000)."""

    async def set_deck_visibility(
        self, sha256: str, owner_id: int, visibility: DeckVisibility
    ) -> bool:
        """Change who may use the owner's deck; False if they do not keep it."""

    async def delete_deck(self, sha256: str, owner_id: int) -> bool:
        """The owner no longer keeps the deck (the file stays for the tables played with
        it); False if they did not keep it."""

    async def calibration(self, sha256: str) -> Calibration | None:
        """The deck's last calibration run, if any."""

    async def queue_calibration(
        self,
        sha256: str,
        user_id: int,
        *,
        since: datetime,
        per_user: int,
        stale_before: datetime | None = None,
    ) -> Calibration:
        """Queue a calibration run of the deck for `user_id`: AlreadyExistsError if one is
        queued or running (and was asked for at or after `stale_before`: an older one's
        node died); OverflowError if the user asked for `per_user` runs since `since`."""

    async def finish_calibration(
        self,
        sha256: str,
        status: str,
        figures: JSONObject | None = None,
        error: str | None = None,
    ) -> None:
        """The run started ("running"), or ended: "done" with its figures, or "failed"."""

    # --- game reviews (review_sql.py) -------------------------------------------------------
    async def get_review(self, table_id: str, budget: str) -> StoredReview | None:
        """The table's review at that budget, if one was asked for."""

    async def queue_review(
        self, table_id: str, budget: str, user_id: int, *, retry_before: datetime | None = None
    ) -> tuple[StoredReview, bool]:
        """Queue the table's review at that budget for `user_id`, in one transaction; returns
        (the review, True) if queued now, or (the one there, False) if it is already queued,
        running or done. A failed one, or a queued or running one last changed before
        `retry_before` (its node died), is queued again. NotFoundError: no such table."""

    async def set_review(
        self,
        table_id: str,
        budget: str,
        status: str,
        *,
        review: JSONObject | None = None,
        error: str | None = None,
    ) -> None:
        """A review's new status (and its JSON once done, its error once failed)."""

    async def reviews_requested(
        self,
        user_id: int,
        since: datetime,
        statuses: tuple[str, ...] = ("queued", "running", "done", "failed"),
    ) -> int:
        """How many reviews `user_id` asked for since `since` (of these statuses: all by
        default), for the user's queue and daily budget."""
