"""The Coffee Rush game definition: metadata, options, notation and encoding."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coffeetable.core.errors import DataError, NotationError
from coffeetable.core.game import Action, Game, GameInfo
from coffeetable.core.say import Template
from coffeetable.games.coffee_rush import actions as act
from coffeetable.games.coffee_rush.cards import CUPS, SQUARES, CardSet, default_cards
from coffeetable.games.coffee_rush.state import RushState


class CoffeeRushGame(Game):
    info = GameInfo(
        name="coffee-rush",
        title="Coffee Rush",
        min_players=2,
        max_players=4,
        simultaneous=False,
        options_help={
            "less_luck": "true for the optional less-luck set-up (a Ristretto or Espresso on every counter 1)",
            "cards_sha256": "the sha256 of the card file played with (set automatically)",
        },
    )

    def __init__(self, cards: CardSet | None = None) -> None:
        self.cards = cards if cards is not None else default_cards()
        self.encoding = act.Encoding(self.cards)
        # interned actions: legal-action lists reuse these objects
        self.PLACE = tuple(act.Place(sq) for sq in range(SQUARES))
        self.STEP = tuple(tuple(act.Step(a, b) for b in range(SQUARES)) for a in range(SQUARES))
        self.STOP = act.Stop()
        self.END = act.End()
        self.UPGRADE = tuple(act.Upgrade(k) for k in range(len(act.UPGRADES)))
        self.EMPTY = tuple(act.Empty(c) for c in range(CUPS))
        self.POUR = tuple(
            tuple(act.Pour(name, c) for c in range(CUPS)) for name in self.cards.ingredients
        )
        self._serves: dict[tuple[int, int, int], act.Serve] = {}

    def __repr__(self) -> str:
        return f"CoffeeRushGame(cards={self.cards.name!r})"

    def serve_action(self, cup: int, counter: int, drink: int) -> act.Serve:
        key = (cup, counter, drink)
        action = self._serves.get(key)
        if action is None:
            action = self._serves[key] = act.Serve(cup, counter, self.cards.drinks[drink].name)
        return action

    # --- options --------------------------------------------------------------------------
    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete, validated options. `cards_sha256` names the card file a game is played
        with; it is always written (so a record says which cards it needs) and, when given,
        must match."""
        opts = dict(options or {})
        digest = opts.pop("cards_sha256", None)
        less_luck = opts.pop("less_luck", False)
        if opts:
            raise DataError(
                f"unknown Coffee Rush option(s): {', '.join(sorted(opts))}; valid options: "
                f"{', '.join(self.info.options_help)}"
            )
        if not isinstance(less_luck, bool):
            raise DataError(f"'less_luck' must be true or false, not {less_luck!r}")
        if digest is not None and digest != self.cards.digest:
            which = "the default cards" if digest == default_cards().digest else "another card file"
            raise DataError(
                f"this game was played with {which} (sha256 {str(digest)[:12]}…), not with "
                f"{self.cards.source}; "
                + (
                    "omit --cards"
                    if which == "the default cards"
                    else "pass that file with --cards"
                )
            )
        return {"less_luck": less_luck, "cards_sha256": self.cards.digest}

    def new_initial_state(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> RushState:
        self.check_setup(num_players, seed)
        normalized = self.normalize_options(options)
        if normalized["less_luck"]:
            starters = sum(d.copies for d in self.cards.drinks if d.less_luck)
            if starters < num_players:
                raise DataError(
                    f"the less-luck set-up needs a less_luck card per player; "
                    f"{self.cards.source} has {starters}"
                )
        return RushState.new_game(self, num_players, seed, normalized)

    # --- notation and encoding --------------------------------------------------------------
    @property
    def log_templates(self) -> Mapping[str, Template]:
        from coffeetable.games.coffee_rush.describe import TEMPLATES

        return TEMPLATES

    def parse_action(self, text: str) -> Action:
        return act.parse_action(text, self.cards)

    def encode_action(self, action: Action) -> int:
        if not isinstance(action, act.RushAction):
            raise NotationError(f"{action!r} is not a Coffee Rush action")
        return self.encoding.encode(action)

    def decode_action(self, code: int) -> Action:
        return self.encoding.decode(code)

    @property
    def num_distinct_actions(self) -> int:
        return self.encoding.size

    # --- positions ---------------------------------------------------------------------------
    def state_from_json(self, data: dict[str, Any]) -> RushState:
        from coffeetable.games.coffee_rush.position import state_from_json

        return state_from_json(self, data)


__all__ = ["CoffeeRushGame"]
