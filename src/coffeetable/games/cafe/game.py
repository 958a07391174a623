"""The Café game definition: metadata, options, notation and encoding."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coffeetable.core.errors import DataError, NotationError
from coffeetable.core.game import Action, Game, GameInfo
from coffeetable.core.say import Template
from coffeetable.games.cafe import actions as act
from coffeetable.games.cafe.area import BusinessArea
from coffeetable.games.cafe.deck import CardSpec, Deck, default_deck
from coffeetable.games.cafe.state import CafeState
from coffeetable.games.cafe.variant import CafeRules


class CafeGame(Game):
    info = GameInfo(
        name="cafe",
        title="Café",
        min_players=1,
        max_players=4,
        simultaneous=True,
        options_help={
            "variant": "'base' (default) or 'advanced' (auction for the master token; 2-4 players)",
            "espresso": "true to add the Espresso expansion's 8 cards",
            "promos": "list of promo cards to shuffle in: leao, coffee-mine, atlas",
            "deck_sha256": "the sha256 of the deck file played with (set automatically)",
        },
    )

    def __init__(self, deck: Deck | None = None) -> None:
        self.deck = deck if deck is not None else default_deck()
        self._card_id_of = {i: c.id for i, c in enumerate(self.deck.cards)}
        self._start_areas: dict[str, BusinessArea] = {}

    def __repr__(self) -> str:
        return f"CafeGame(deck={self.deck.name!r})"

    # --- options --------------------------------------------------------------------------
    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete, validated options (see variant.py). `deck_sha256` names the deck a game
        is played with; it is always written (so a record says which deck it needs) and,
        when given, must match."""
        opts = dict(options or {})
        digest = opts.pop("deck_sha256", None)
        unknown = set(opts) - {"variant", "espresso", "promos"}
        if unknown:
            raise DataError(
                f"unknown Café option(s): {', '.join(sorted(unknown))}; valid options: "
                f"{', '.join(self.info.options_help)}"
            )
        rules = CafeRules.from_options(opts)
        if rules.espresso and len(self.deck.of_kind("espresso")) != 8:
            raise DataError(f"the deck {self.deck.source} has no Espresso expansion cards")
        for card_id in rules.promos:
            if not self.deck.has_card(card_id) or self.deck.card(card_id).kind != "promo":
                raise DataError(f"the deck {self.deck.source} has no promo card {card_id}")
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
        return {**rules.to_options(), "deck_sha256": self.deck.digest}

    def new_initial_state(
        self, num_players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> CafeState:
        self.check_setup(num_players, seed)
        normalized = self.normalize_options(options)
        CafeRules.from_options(normalized).check_players(num_players)
        return CafeState.new_game(self, num_players, seed, normalized)

    def start_area(self, card: CardSpec) -> BusinessArea:
        """A new business area showing `card`, a start card of this game's deck: a copy of
        one made once per start card, which shares its cells and what is derived from them
        (the placement bookkeeping, the groups) until it places a card (copy on write)."""
        area = self._start_areas.get(card.id)
        if area is None:
            area = self._start_areas[card.id] = BusinessArea.starting(card)
        return area.copy()

    # --- notation and encoding -------------------------------------------------------------
    @property
    def log_templates(self) -> Mapping[str, Template]:
        from coffeetable.games.cafe.describe import TEMPLATES

        return TEMPLATES

    def parse_action(self, text: str) -> Action:
        return act.parse_action(text)

    def encode_action(self, action: Action) -> int:
        if not isinstance(action, act.CafeAction):
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
