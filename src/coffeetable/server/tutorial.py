"""Tutorial tables: a guided first game of Café or Coffee Rush against a bot.

A tutorial is an ordinary private table on a fixed deal: the seed below, two seats (the
player, then a `greedy` bot), no clock, not rated, started at once. The browser's tutorial
script (`web/static/tutorial/<game>.json`) is written against this deal, and the game follows
the normal protocol: the seed never leaves the server, views never show the deck, and the
script names only what the player can already see.

The seeds were chosen so that the deal teaches well: in Café (seed 4) the player is São Tomé,
picks first in round 1, and the display offers a cup card; in Coffee Rush (seed 6) the
player's first orders include a Caramel Caffe Freddo that can be served on the first turn.
Changing a seed, the default deck or card file, or the greedy bot's first moves means
checking the scripts again (tests/web/test_learn_ui.py plays both).
"""

from __future__ import annotations

import secrets

from coffeetable.core.registry import find_game
from coffeetable.server.livetable import TableError
from coffeetable.server.lobby import LobbyService
from coffeetable.server.storage import GameTable, Seat, User

#: The fixed deal of each game's tutorial (never sent to a client).
TUTORIAL_SEEDS = {"cafe": 4, "coffee-rush": 6}
#: The tutorial's opponent: quick, and the same move in the same position.
TUTORIAL_BOT = "greedy"


async def create_tutorial(lobby: LobbyService, user: User, game_name: str) -> GameTable:
    """A started 2-seat private table on the game's tutorial deal, `user` in seat 0."""
    seed = TUTORIAL_SEEDS.get(game_name)
    if seed is None:
        raise TableError(
            404, "unknown_game", f"no tutorial for {game_name!r}; tutorials: cafe, coffee-rush"
        )
    game = find_game(game_name)
    table = await lobby.storage.create_table(
        secrets.token_urlsafe(6),
        game=game_name,
        seed=seed,
        seats=[Seat("human", user_id=user.id), Seat("bot", bot=TUTORIAL_BOT)],
        options=game.normalize_options({}),
        clock=None,
        rated=False,
        private=True,
        invite_token=secrets.token_urlsafe(12),
        created_by=user.id,
    )
    lobby.match.names[user.id] = user.name  # private: not in the lobby's list
    return await lobby.start(table.id, user)
