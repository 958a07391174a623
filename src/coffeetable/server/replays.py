"""Records and replays of finished games: a game's record for download, a record imported as
a finished table, and the public view after any number of moves."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import State
from coffeetable.core.record import GameRecord, apply_stored
from coffeetable.core.registry import game_names
from coffeetable.server import auth
from coffeetable.server.deckbook import UnknownDeck, deck_sha
from coffeetable.server.livetable import TableError, result_json
from coffeetable.server.match import MatchService
from coffeetable.server.storage import GameTable, Seat, StoredAction, User

#: The bot name of an imported game's seat, before the record's name for it.
IMPORTED = "imported:"


class ReplayService:
    def __init__(self, match: MatchService) -> None:
        self.match = match
        self.storage = match.storage

    async def record(self, table_id: str) -> tuple[GameRecord, Any]:
        """The finished game's record, and its final state."""
        live = await self.match.live(table_id)
        if live.meta.status not in ("running", "finished") or live.state is None:
            raise TableError(409, "not_started", "this table has not started yet")
        if live.meta.status != "finished":
            raise TableError(409, "not_finished", "the record is available once the game is over")
        actions = await self.storage.list_actions(table_id)
        record = GameRecord(
            game=live.meta.game,
            seats=list(live.names),
            seed=live.meta.seed,
            options=dict(live.meta.options),
            actions=[(a.seat, a.notation) for a in actions],
        )
        return record, live.state

    async def import_record(
        self,
        user: User,
        record: GameRecord,
        may_use: Callable[[User, str, str], Awaitable[bool]] | None = None,
    ) -> GameTable:
        """A finished table made from a record (checked by replaying it). The seats are
        shown under the record's names; the importer holds none of them. A record made on
        a players' deck (its options name it) is replayed on that deck, if the importer may
        use it (`may_use(user, game, sha256)`; else 404 `deck_not_found`)."""
        if record.game not in game_names():
            raise TableError(400, "unknown_game", f"unknown game {record.game!r}")
        if not isinstance(record.options, dict):
            raise TableError(400, "invalid_record", "the record's options must be an object")
        sha = deck_sha(record.game, record.options)
        try:
            if sha is not None and (may_use is None or not await may_use(user, record.game, sha)):
                raise UnknownDeck(sha)
            game, _ = await self.match.decks.game_for(record.game, record.options)
        except UnknownDeck:
            raise TableError(
                404,
                "deck_not_found",
                "the record was played with a deck that is not stored here or not yours to use",
            ) from None
        try:
            final = record.replay(game=game)
        except CoffeetableError as exc:
            raise TableError(400, "invalid_record", str(exc)) from None
        if not final.is_over():
            raise TableError(400, "invalid_record", "the record's game is not finished")
        names = []
        for index, name in enumerate(record.seats):
            try:
                names.append(auth.check_seat_name(name))
            except auth.AuthError as exc:
                raise TableError(400, "invalid_record", f"seat {index}'s name: {exc}") from None
        try:
            moves = [(seat, game.parse_action(text).notation()) for seat, text in record.actions]
        except CoffeetableError as exc:
            raise TableError(400, "invalid_record", str(exc)) from None
        # all at once: a crash part-way leaves no table at all, never a half-stored one
        return await self.storage.import_table(
            secrets.token_urlsafe(6),
            game=record.game,
            seed=record.seed,
            seats=[Seat("bot", bot=f"{IMPORTED}{name}") for name in names],
            options=game.normalize_options(record.options),
            created_by=user.id,
            moves=moves,
            result=result_json(final),
        )

    async def replay_view(self, table_id: str, version: int) -> dict[str, Any]:
        """The public view after the first `version` moves of a finished game (`version`
        counts moves here: after undos the table's version is larger than its number of
        moves)."""
        state, actions = await self.replay_state(table_id, version)
        return {
            "version": version,
            "move": (
                {"seat": actions[version - 1].seat, "action": actions[version - 1].notation}
                if version
                else None
            ),
            "view": state.view(None),
        }

    async def replay_state(self, table_id: str, version: int) -> tuple[State, list[StoredAction]]:
        """The state after the first `version` moves of a finished game (with its hidden
        cards: for the server's own use), and the game's stored moves."""
        meta = await self.storage.get_table(table_id)
        if meta is None:
            raise TableError(404, "no_table", f"there is no table {table_id!r}")
        if meta.status != "finished":
            raise TableError(409, "not_finished", "replays are for finished games")
        actions = await self.storage.list_actions(table_id)
        if not 0 <= version <= len(actions):
            raise TableError(404, "no_move", f"this game has moves 0..{len(actions)}")
        game, _ = await self.match.decks.game_for(meta.game, meta.options)
        state = game.new_initial_state(len(meta.seats), meta.seed, meta.options)
        previous: tuple[int, Any] | None = None
        for stored in actions[:version]:
            action = game.parse_action(stored.notation)
            apply_stored(state, stored.seat, action, previous)
            previous = (stored.seat, action)
        return state, actions
