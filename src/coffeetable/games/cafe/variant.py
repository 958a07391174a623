"""Café variants as options: advanced mode (auction), the Espresso expansion, promo cards.

Options are a JSON object stored in every record: {"variant": "base"|"advanced",
"espresso": bool, "promos": [names], "deck_sha256": str}. Missing keys take their defaults;
anything else is an error that names the valid choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from coffeetable.core.errors import DataError

VARIANTS = ("base", "advanced")
#: Promo names accepted in options (and by --promo), and the card ids they stand for.
PROMOS = {"leao": "X-LEAO", "coffee-mine": "X-MINE", "atlas": "X-ATLAS"}
ROUNDS = 8


@dataclass(frozen=True)
class CafeRules:
    """The rule parameters that the options decide."""

    advanced: bool = False
    espresso: bool = False
    promos: tuple[str, ...] = ()  # card ids, in the order given

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CafeRules:
        variant = options.get("variant", "base")
        if variant not in VARIANTS:
            raise DataError(f"unknown Café variant {variant!r}; valid: {', '.join(VARIANTS)}")
        espresso = options.get("espresso", False)
        if not isinstance(espresso, bool):
            raise DataError("option 'espresso' must be true or false")
        names = options.get("promos", [])
        if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
            raise DataError("option 'promos' must be a list of promo names")
        ids = []
        for name in names:
            key = name.strip().lower()
            if key not in PROMOS:
                raise DataError(f"unknown promo {name!r}; valid: {', '.join(PROMOS)}")
            if PROMOS[key] in ids:
                raise DataError(f"promo {name!r} is named twice")
            ids.append(PROMOS[key])
        return cls(advanced=variant == "advanced", espresso=espresso, promos=tuple(ids))

    def to_options(self) -> dict[str, Any]:
        names = {card: name for name, card in PROMOS.items()}
        return {
            "variant": "advanced" if self.advanced else "base",
            "espresso": self.espresso,
            "promos": [names[c] for c in self.promos],
        }

    def check_players(self, num_players: int) -> None:
        if self.advanced and num_players < 2:
            raise DataError(
                "advanced mode needs 2 to 4 players: its auction has nobody to bid against in solo"
            )

    # --- deck arithmetic --------------------------------------------------------------------
    def extra_removals(self, num_players: int) -> int:
        """Random plan cards removed after the 8 star cards (those go with < 4 players, and
        always in advanced mode)."""
        if self.advanced:
            return {2: 16, 3: 8, 4: 0}[num_players]
        return {1: 16, 2: 8, 3: 0, 4: 0}[num_players]

    def removes_stars(self, num_players: int) -> bool:
        return self.advanced or num_players < 4

    def display_size(self, num_players: int) -> int:
        if self.advanced:
            return num_players + 1  # Ruling E2: also with the expansion
        return 4 if self.espresso else 3

    def cards_per_round(self, num_players: int) -> int:
        if self.advanced:
            return num_players + 1  # no refills: everyone takes one, one is discarded
        return self.display_size(num_players) + num_players - 1

    def leftover_cards(self, num_players: int, deck_size: int) -> int:
        """Cards still in the deck after round 8 (8 with advanced + espresso, else 0)."""
        return deck_size - ROUNDS * self.cards_per_round(num_players)
