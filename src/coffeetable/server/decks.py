"""Players' decks on the server (issue 39): a Café deck or a Coffee Rush card file checked
exactly as `coffeetable deck check` does, stored once by the SHA-256 of its canonical text,
kept by its owners, who decide who else may use it (private, friends, public); and the bot
calibration runs of a deck. The rules live here; the rows in storage (storage/decks_sql.py),
the games on the decks in deckbook.py, the HTTP routes in deck_routes.py.

Who may use a deck: its owners; everyone, for an owner's "public" copy; the owner's friends
(friends.py), for a "friends" copy. Anyone else is told there is no such deck (404, never
403: a private deck's existence is not confirmed).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from coffeetable.core.datafile import Problem, UnreadableError
from coffeetable.games.datafiles import FileReading, read_model, read_text
from coffeetable.server.deckbook import DECK_OPTION, DeckBook, deck_sha, facts_of
from coffeetable.server.friends import FriendService
from coffeetable.server.gamedata import reading_data
from coffeetable.server.jobs import JobError, Jobs
from coffeetable.server.livetable import TableError, now_utc
from coffeetable.server.storage import (
    DECK_VISIBILITIES,
    AlreadyExistsError,
    Calibration,
    DeckFile,
    Storage,
    User,
    UserDeck,
)

log = logging.getLogger("coffeetable.server")

#: The largest deck file a request may carry (the default Café deck is about 14 KB).
MAX_DECK_BYTES = 256 * 1024
#: How deeply a JSON model may nest (a deck nests 4 deep).
MAX_JSON_DEPTH = 32
_SHA = re.compile(r"[0-9a-f]{64}")
_VISIBILITY_ORDER = {"public": 0, "friends": 1, "private": 2}


def not_found() -> TableError:
    return TableError(404, "deck_not_found", "there is no such deck, or it is not yours to use")


class InvalidDeck(TableError):
    """400 `invalid_deck`: the file's problems go with the error."""

    def __init__(self, problems: list[Problem]) -> None:
        first = str(problems[0]) if problems else "invalid"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(400, "invalid_deck", f"the deck file is not valid: {first}{more}")
        self.problems = [p.to_json() for p in problems]


@dataclass(frozen=True)
class Checked:
    """A deck file as a request sent it: read (`file`), or not TOML at all (`problem`)."""

    game: str
    file: FileReading | None
    problem: Problem | None = None

    @property
    def problems(self) -> list[Problem]:
        if self.file is None:
            return [self.problem] if self.problem is not None else []
        return list(self.file.problems)

    def to_json(self) -> dict[str, Any]:
        """The answer of `POST /api/decks/check`."""
        file = self.file
        return {
            "game": self.game,
            "ok": file is not None and file.ok and bool(file.text),
            "sha256": file.sha256 if file is not None else None,
            "name": file.name if file is not None else None,
            "model": file.model if file is not None else None,
            "toml": file.text if file is not None else None,
            "problems": [p.to_json() for p in self.problems],
            "cards": reading_data(file.sha256, file.reading) if file is not None else None,
        }


def _json_body(raw: bytes) -> Any:
    """A JSON body: duplicate keys, non-UTF-8 text and deep nesting refused (TableError)."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise TableError(400, "bad_json", f"the key {key!r} appears twice in an object")
            out[key] = value
        return out

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TableError(400, "bad_json", "the body is not UTF-8 text") from None
    depth = 0
    for ch in text:  # brackets inside strings count too: a bound, not a parser
        depth = depth + 1 if ch in "[{" else depth - 1 if ch in "]}" else depth
        if depth > MAX_JSON_DEPTH:
            raise TableError(400, "bad_json", "the body is nested too deeply")
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError) as exc:
        raise TableError(400, "bad_json", f"the body is not valid JSON: {exc}") from None


def read_body(game: str, raw: bytes, content_type: str | None) -> Checked:
    """Read a request's deck: the file's text, or JSON `{"model": ...}` (TableError for a
    body too large or not of either kind)."""
    if game not in DECK_OPTION:
        raise TableError(404, "unknown_game", f"unknown game {game!r}")
    if len(raw) > MAX_DECK_BYTES:
        raise TableError(
            413, "too_large", f"a deck file may be at most {MAX_DECK_BYTES // 1024} KiB"
        )
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in ("application/json", ""):
        body = _json_body(raw)
        if not isinstance(body, dict) or set(body) != {"model"}:
            raise TableError(400, "bad_json", 'send {"model": <the deck file as JSON>}')
        model = body["model"]
        if not isinstance(model, dict):
            raise TableError(400, "bad_json", "the model must be an object")
        return Checked(game, read_model(game, model, "deck"))
    try:
        return Checked(game, read_text(game, raw, "deck"))
    except UnreadableError as exc:
        return Checked(game, None, exc.problem)


@functools.lru_cache(maxsize=64)
def _deck_data(game: str, text: str) -> dict[str, Any]:
    """The drawing data of a stored deck's canonical text (computed once per text)."""
    file = read_text(game, text.encode("utf-8"), "deck")
    return reading_data(file.sha256, file.reading)


def _file_of(checked: Checked) -> DeckFile:
    file = checked.file
    if file is None or not file.ok or not file.text:
        raise InvalidDeck(checked.problems)
    facts = facts_of(file)
    return DeckFile(
        sha256=file.sha256,
        game=checked.game,
        name=facts.name,
        cards=facts.cards,
        reconstructed=facts.reconstructed,
        provenance=facts.provenance,
        text=file.text,
        created_at=now_utc(),
    )


def deck_json(deck: UserDeck) -> dict[str, Any]:
    """A deck's metadata as the routes give it."""
    return {
        "sha256": deck.sha256,
        "game": deck.game,
        "name": deck.name,
        "visibility": deck.visibility,
        "owner": deck.owner_name,
        "reconstructed": deck.reconstructed,
        "provenance": deck.provenance,
        "cards": deck.cards,
        "created": deck.created_at.isoformat(),
    }


def calibration_json(run: Calibration | None) -> dict[str, Any]:
    if run is None:
        return {"status": "none", "figures": None, "finished": None}
    return {
        "status": run.status,
        "figures": run.figures,
        "finished": run.finished_at.isoformat() if run.finished_at else None,
        "requested": run.requested_at.isoformat(),
        **({"error": run.error} if run.error else {}),
    }


@dataclass(frozen=True)
class CalibrationPlan:
    """What a calibration run plays: a bot in every seat, a number of games, a time bound."""

    bot: str = "greedy"
    players: int = 2
    games: int = 10
    seconds: float = 300.0
    #: runs a user may ask for in a day
    per_day: int = 5

    def to_job(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "players": self.players,
            "games": self.games,
            "seconds": self.seconds,
            "seed": 1000,
        }


def _check_visibility(user: User, visibility: str) -> None:
    if visibility not in DECK_VISIBILITIES:
        raise TableError(
            400, "invalid", f"visibility must be one of {', '.join(DECK_VISIBILITIES)}"
        )
    if user.is_guest and visibility != "private":
        raise TableError(403, "guest_decks", "a guest's decks are private; register first")


class DeckService:
    def __init__(
        self,
        storage: Storage,
        book: DeckBook,
        friends: FriendService,
        jobs: Jobs,
        *,
        decks_per_user: int = 100,
        plan: CalibrationPlan | None = None,
    ) -> None:
        self.storage = storage
        self.book = book
        self.friends = friends
        self.jobs = jobs
        self.decks_per_user = decks_per_user
        self.plan = plan or CalibrationPlan()
        self._runs: set[asyncio.Task[None]] = set()

    # ---- who may use a deck ---------------------------------------------------------------
    async def usable(self, user: User | None, sha256: str) -> UserDeck:
        """The deck as `user` may use it (their own copy first, then a public one, then a
        friend's); 404 `deck_not_found` otherwise."""
        if not _SHA.fullmatch(sha256):
            raise not_found()
        owners = await self.storage.deck_owners(sha256)
        if not owners:
            raise not_found()
        if user is not None:
            for deck in owners:
                if deck.owner_id == user.id:
                    return deck
        friends: set[int] | None = None
        for deck in sorted(owners, key=lambda d: _VISIBILITY_ORDER[d.visibility]):
            if deck.visibility == "public":
                return deck
            if deck.visibility == "friends":
                if friends is None:
                    friends = await self.friends.friend_ids(user)
                if deck.owner_id in friends:
                    return deck
        raise not_found()

    async def may_use(self, user: User, game: str, sha256: str) -> bool:
        try:
            return (await self.usable(user, sha256)).game == game
        except TableError:
            return False

    async def check_table_options(self, user: User, game: str, options: dict[str, Any]) -> None:
        """A new table's deck (its options name it) must be one its creator may use."""
        option = DECK_OPTION.get(game)
        if option is None:
            return
        sha = options.get(option)
        if sha is not None and not isinstance(sha, str):
            raise TableError(400, "invalid_table", f"'{option}' must be a deck's sha256")
        sha = deck_sha(game, options)
        if sha is not None and not await self.may_use(user, game, sha):
            raise not_found()

    async def listed(self, user: User | None, game: str | None) -> list[dict[str, Any]]:
        """The decks `user` may use, one entry per file (their own copy first)."""
        friends = await self.friends.friend_ids(user)
        decks = await self.storage.usable_decks(user.id if user else None, friends, game)
        me = user.id if user is not None else None
        best: dict[str, UserDeck] = {}
        for deck in decks:
            seen = best.get(deck.sha256)
            if seen is None or (deck.owner_id == me and seen.owner_id != me):
                best[deck.sha256] = deck
        return [deck_json(d) for d in best.values()]

    # ---- uploads and owners' changes ---------------------------------------------------------
    async def upload(self, user: User, checked: Checked, visibility: str) -> UserDeck:
        _check_visibility(user, visibility)
        file = _file_of(checked)
        try:
            return await self.storage.add_deck(
                file,
                user.id,
                visibility,  # type: ignore[arg-type]
                max_decks=self.decks_per_user,
            )
        except AlreadyExistsError:
            raise TableError(409, "deck_exists", "you have uploaded this deck already") from None
        except OverflowError:
            raise TableError(
                409,
                "too_many_decks",
                f"you keep {self.decks_per_user} decks already: delete one first",
            ) from None

    async def _own(self, user: User, sha256: str) -> UserDeck:
        deck = await self.usable(user, sha256)
        if deck.owner_id != user.id:
            raise TableError(403, "not_owner", "only the deck's owner may change it")
        return deck

    async def set_visibility(self, user: User, sha256: str, visibility: str) -> UserDeck:
        _check_visibility(user, visibility)
        await self._own(user, sha256)
        await self.storage.set_deck_visibility(sha256, user.id, visibility)  # type: ignore[arg-type]
        return await self._own(user, sha256)

    async def delete(self, user: User, sha256: str) -> bool:
        await self._own(user, sha256)
        return await self.storage.delete_deck(sha256, user.id)

    async def text(self, user: User | None, sha256: str) -> tuple[UserDeck, str]:
        deck = await self.usable(user, sha256)
        file = await self.storage.deck_file(sha256)
        if file is None:
            raise not_found()
        return deck, file.text

    async def data(self, user: User | None, game: str, sha256: str) -> dict[str, Any]:
        """`GET /api/games/{game}/data?deck=`: the deck's drawing data."""
        deck = await self.usable(user, sha256)
        if deck.game != game:
            raise not_found()
        loaded = await self.book.load(game, sha256)
        return _deck_data(game, loaded.text)

    # ---- calibration --------------------------------------------------------------------------
    async def calibration(self, user: User | None, sha256: str) -> dict[str, Any]:
        await self.usable(user, sha256)
        return calibration_json(await self.storage.calibration(sha256))

    async def calibrate(self, user: User, sha256: str) -> Calibration:
        """Queue a bounded calibration run of the deck on the bot workers."""
        deck = await self.usable(user, sha256)
        now = now_utc()
        try:
            run = await self.storage.queue_calibration(
                sha256,
                user.id,
                since=now - timedelta(days=1),
                per_user=self.plan.per_day,
                stale_before=now - timedelta(seconds=2 * self.plan.seconds + 120),
            )
        except AlreadyExistsError:
            raise TableError(
                409, "calibration_running", "a calibration of this deck is under way"
            ) from None
        except OverflowError:
            raise TableError(
                429,
                "too_many_calibrations",
                f"you may ask for {self.plan.per_day} calibration runs a day",
            ) from None
        task = asyncio.create_task(self._run(deck.game, sha256), name=f"calibrate {sha256[:12]}")
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)
        return run

    async def _run(self, game: str, sha256: str) -> None:
        try:
            loaded = await self.book.load(game, sha256)
            await self.storage.finish_calibration(sha256, "running")
            figures = await self.jobs.calibrate(
                game, loaded.text, self.plan.to_job(), timeout=self.plan.seconds + 120
            )
        except asyncio.CancelledError:
            raise
        except JobError as exc:
            log.warning("calibration of deck %s failed: %s", sha256[:12], exc)
            await self.storage.finish_calibration(sha256, "failed", error=str(exc)[:500])
            return
        except Exception as exc:
            log.exception("calibration of deck %s failed", sha256[:12])
            await self.storage.finish_calibration(sha256, "failed", error=type(exc).__name__)
            return
        await self.storage.finish_calibration(sha256, "done", figures=figures)

    async def close(self) -> None:
        for task in list(self._runs):
            task.cancel()
