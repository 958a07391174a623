"""Player pages: a player's results per game, rating and its history, the tables they sat
at (with a replay for every finished game), and the solo high-score board (docs/server.md,
"Player pages").

Everything here reads storage (`player_games`, ratings); nothing is computed from a game's
state, so a running game shows no more than its seats and status. A private table is listed
only to the people who sat at it.
"""

from __future__ import annotations

from typing import Any

from coffeetable.core.registry import find_game, game_names
from coffeetable.games.cafe.state import solo_rating
from coffeetable.server.livetable import TableError
from coffeetable.server.match import MatchService
from coffeetable.server.storage import PlayerGame, Storage, User

#: Tables per page of a player's history, and the most a client may ask for.
PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
#: Rows of the high-score board, and the most a client may ask for.
BOARD_SIZE = 20
MAX_BOARD_SIZE = 100


def solo_band(game: str, score: int | None) -> str | None:
    """The rulebook's rating of a solo score (Café: "Bad" to "Seriously?"), from the game's
    own scoring; None for a game without one."""
    if score is None or game != "cafe":
        return None
    return solo_rating(score)


def solo_games() -> list[str]:
    """The games that can be played alone."""
    return [name for name in game_names() if find_game(name).info.min_players == 1]


#: How many rating changes a player's page shows per game (the latest).
RATING_HISTORY = 200


class PlayerPages:
    def __init__(self, storage: Storage, match: MatchService) -> None:
        self.storage = storage
        self.match = match

    async def _user(self, name: str) -> User:
        user = await self.storage.get_user_by_name(name)
        if user is None:
            raise TableError(404, "no_user", f"there is no player {name!r}")
        return user

    async def profile(self, name: str) -> dict[str, Any]:
        """The player's results, rating and rating history in every game."""
        user = await self._user(name)
        stats = {s.game: s for s in await self.storage.player_stats(user.id)}
        games = []
        for game in game_names():
            s = stats.get(game)
            rating = await self.storage.get_rating(user.id, game)
            # the last changes only, and no private table's id (others could not open it)
            history = (await self.storage.rating_history(user.id, game))[-RATING_HISTORY:]
            private = await self.storage.private_table_ids(h.table_id for h in history)
            solo = game in solo_games()
            games.append(
                {
                    "game": game,
                    "played": s.played if s else 0,
                    "wins": s.wins if s else 0,
                    "mean_score": round(s.mean_score, 1)
                    if s and s.mean_score is not None
                    else None,
                    "best_score": s.best_score if s else None,
                    "solo": {
                        "played": s.solo_played if s else 0,
                        "best": s.solo_best if s else None,
                        "band": solo_band(game, s.solo_best if s else None),
                    }
                    if solo
                    else None,
                    "rating": round(rating.rating, 1),
                    "rated_games": rating.games_played,
                    "rating_history": [
                        {
                            "table": None if h.table_id in private else h.table_id,
                            "before": round(h.before, 1),
                            "after": round(h.after, 1),
                            "at": h.created_at.isoformat(),
                        }
                        for h in history
                    ],
                }
            )
        return {
            "name": user.name,
            "guest": user.is_guest,
            "since": user.created_at.isoformat(),
            "games": games,
        }

    async def history(
        self, name: str, viewer: User | None, page: int = 1, per_page: int = PAGE_SIZE
    ) -> dict[str, Any]:
        """One page (from 1) of the tables the player sat at, newest first, as `viewer` may
        see them."""
        user = await self._user(name)
        rows, total = await self.storage.player_history(
            user.id,
            viewer.id if viewer is not None else None,
            limit=per_page,
            offset=(page - 1) * per_page,
        )
        return {
            "name": user.name,
            "page": page,
            "per_page": per_page,
            "total": total,
            "pages": max(1, -(-total // per_page)),
            "games": [await self._entry(row) for row in rows],
        }

    async def _entry(self, row: PlayerGame) -> dict[str, Any]:
        await self.match.learn_names(row.seats)
        names = self.match.names
        finished = row.status == "finished"
        abandoned = (row.result or {}).get("abandoned") if row.status == "aborted" else None
        return {
            "table": row.table_id,
            "game": row.game,
            "status": row.status,
            "rated": row.rated,
            "private": row.private,
            "created_at": row.created_at.isoformat(),
            "finished_at": row.finished_at.isoformat() if row.finished_at else None,
            "seat": row.seat,
            "players": [
                {
                    "name": names.get(s.user_id) if s.user_id is not None else None,
                    "bot": s.bot if s.kind == "bot" else None,
                    "replaced": s.kind == "human" and s.bot is not None,
                }
                for s in row.seats
            ],
            # a running game says no more than its seats and status
            "score": row.score if finished else None,
            "won": row.won if finished else None,
            "left": row.left_game,
            "band": solo_band(row.game, row.score) if finished and len(row.seats) == 1 else None,
            "abandoned_by": abandoned.get("seat") if isinstance(abandoned, dict) else None,
            "replay": finished,
        }

    async def high_scores(self, game: str, limit: int = BOARD_SIZE) -> list[dict[str, Any]]:
        """The best solo scores of `game`, best first."""
        if game not in solo_games():
            raise TableError(404, "no_solo", f"{game!r} is not a game that can be played alone")
        rows = await self.storage.high_scores(game, limit=limit)
        return [
            {
                "rank": index + 1,
                "name": row.name,
                "score": row.score,
                "band": solo_band(game, row.score),
                "at": row.finished_at.isoformat(),
                "table": row.table_id,
            }
            for index, row in enumerate(rows)
        ]
