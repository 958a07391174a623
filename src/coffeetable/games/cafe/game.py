"""The Café game definition: metadata, options, notation and encoding."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coffeetable.core.errors import DataError, NotationError
from coffeetable.core.game import Action, Game, GameInfo
from coffeetable.games.cafe import actions as act
from coffeetable.games.cafe.deck import Deck, default_deck
from coffeetable.games.cafe.state import CafeState


class CafeGame(Game):
    info = GameInfo(
        name="cafe",
        title="Café",
        min_players=1,
        max_players=4,
        simultaneous=True,
        options_help={
            "deck_sha256": "the sha256 of the deck file played with (set automatically)",
        },
    )

    def __init__(self, deck: Deck | None = None) -> None:
        self.deck = deck if deck is not None else default_deck()
        self._card_id_of = {i: c.id for i, c in enumerate(self.deck.cards)}

    def __repr__(self) -> str:
        return f"CafeGame(deck={self.deck.name!r})"

    # --- options --------------------------------------------------------------------------
    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete options. `deck_sha256` names the deck a game is played with; it is
        always written (so a record says which deck it needs) and, when given, must match."""
        opts = dict(options or {})
        digest = opts.pop("deck_sha256", None)
        if opts:
            raise DataError(
                f"unknown Café option(s): {', '.join(sorted(opts))}; valid options: "
                f"{', '.join(self.info.options_help) or 'none'}"
            )
        if digest is not None and digest != self.deck.digest:
            which = "the default deck" if digest == default_deck().digest else "another deck"
            raise DataError(
                f"this game was played with {which} (sha256 {str(digest)[:12]}…), not with "
                f"{self.deck.source}; "
                + (
                    "omit --deck"
                    if which == "the default deck"
                    else "pass that deck file with --deck"
                )
            )
        return {"deck_sha256": self.deck.digest}

    def new_initial_state(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> CafeState:
        if not isinstance(num_players, int) or not (
            self.info.min_players <= num_players <= self.info.max_players
        ):
            raise DataError(f"Café is played by 1 to 4 players, not {num_players}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise DataError(f"the seed must be an integer, not {seed!r}")
        return CafeState.new_game(self, num_players, seed, self.normalize_options(options))

    # --- notation and encoding -------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        return act.parse_action(text)

    def encode_action(self, action: Action) -> int:
        if not isinstance(
            action,
            act.Take
            | act.Place
            | act.Produce
            | act.Fill
            | act.Dry
            | act.Roast
            | act.Deliver
            | act.Clear
            | act.End,
        ):
            raise NotationError(f"{action!r} is not a Café action")
        index = 0
        if isinstance(action, act.Take):
            if not self.deck.has_card(action.card):
                raise NotationError(f"unknown card {action.card!r}")
            index = self.deck.index(action.card)
        return act.encode(action, index)

    def decode_action(self, code: int) -> Action:
        return act.decode(code, self._card_id_of)

    # --- positions -------------------------------------------------------------------------
    def state_from_json(self, data: dict[str, Any]) -> CafeState:
        from coffeetable.games.cafe.position import state_from_json

        return state_from_json(self, data)
