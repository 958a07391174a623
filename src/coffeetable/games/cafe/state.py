"""The Café game state and its rules (1-4 players; advanced mode, Espresso, promos).

Phases of a round: in advanced mode an AUCTION for the master token first; then DRAFT (one
seat at a time picks from the display), then TURNS, where every seat independently places
its card and takes its actions (Ruling A1: simultaneous).
See docs/cafe-rules.md for the rules and rulings this implements.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import chain, combinations_with_replacement
from typing import TYPE_CHECKING, Any, Final, TypeVar

from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import Action, ScoreBreakdown, Shuffler, State
from coffeetable.core.rng import Rng
from coffeetable.core.say import Say
from coffeetable.games.cafe.actions import (
    Bid,
    BidDone,
    CafeAction,
    Clear,
    Deliver,
    Dry,
    End,
    Fill,
    Pass,
    Place,
    Produce,
    Roast,
    Take,
)
from coffeetable.games.cafe.area import AreaShop, BusinessArea, Pos, PosObj, footprint_placements
from coffeetable.games.cafe.deck import (
    BEAN_LIKE,
    CardSpec,
    CellKind,
    CellSpec,
)
from coffeetable.games.cafe.variant import CafeRules

if TYPE_CHECKING:
    from coffeetable.games.cafe.game import CafeGame

CUBES_PER_COLOUR: Final = 35
MAX_AP: Final = 8
ROUNDS: Final = 8
SOLO_RATINGS = (
    (41, "Seriously?"),
    (36, "Incredible"),
    (30, "Very good"),
    (23, "Good"),
    (15, "Average"),
    (0, "Bad"),
)


class Phase(IntEnum):
    DRAFT = 0
    TURNS = 1
    OVER = 2
    AUCTION = 3  # advanced mode, before the draft


class Stage(IntEnum):
    """Where one seat is within the TURNS phase."""

    WAIT = 0  # drafting, or waiting for the others
    PLACE = 1  # has a card to place
    ACT = 2  # taking actions
    DONE = 3  # finished this round


class OpenKind(IntEnum):
    """The compound action a seat's next step may continue for free."""

    NONE = 0
    DRY = 1
    ROAST = 2
    DELIVER = 3


# Enum members read as module globals in the hot paths: on CPython 3.11 `Stage.ACT` costs
# about three times a global read, and a playout reads dozens per step.
_DRAFT: Final = Phase.DRAFT
_TURNS: Final = Phase.TURNS
_OVER: Final = Phase.OVER
_AUCTION: Final = Phase.AUCTION
_WAIT: Final = Stage.WAIT
_PLACE: Final = Stage.PLACE
_ACT: Final = Stage.ACT
_DONE: Final = Stage.DONE
_OPEN_NONE: Final = OpenKind.NONE
_OPEN_DRY: Final = OpenKind.DRY
_OPEN_ROAST: Final = OpenKind.ROAST
_OPEN_DELIVER: Final = OpenKind.DELIVER
_BEAN: Final = CellKind.BEAN
_DRY: Final = CellKind.DRY
_ROAST: Final = CellKind.ROAST
_SHIP: Final = CellKind.SHIP
_ESPRESSO: Final = CellKind.ESPRESSO
_SUPPLY: Final = CellKind.SUPPLY
_BONUS: Final = CellKind.BONUS


@dataclass(slots=True)
class PlayerState:
    company: str
    area: BusinessArea
    warehouse: list[int] = field(default_factory=lambda: [1, 1, 1, 1])
    stage: Stage = _WAIT
    hand: str | None = None
    ap: int = 0
    open_kind: OpenKind = _OPEN_NONE
    open_group: tuple[Pos, ...] = ()
    open_colours: int = 0  # bit per colour used in the open Dry/Roast action
    open_cells: frozenset[Pos] = frozenset()  # cells filled by the open Dry/Roast action
    pending_fill: tuple[int, int, int, int] = (0, 0, 0, 0)  # scarce cubes held, to place
    pending_cells: tuple[Pos, ...] = ()  # cells that may take them (empty when produced)
    pending_deliver: Pos | None = None  # roast cell being emptied
    pending_supply: tuple[Pos, ...] = ()  # produced supply cells still to get a named colour

    def copy(self) -> PlayerState:
        return PlayerState(
            self.company,
            self.area.copy(),
            self.warehouse.copy(),
            self.stage,
            self.hand,
            self.ap,
            self.open_kind,
            self.open_group,
            self.open_colours,
            self.open_cells,
            self.pending_fill,
            self.pending_cells,
            self.pending_deliver,
            self.pending_supply,
        )

    def close_action(self) -> None:
        self.open_kind = _OPEN_NONE
        self.open_group = ()
        self.open_colours = 0
        self.open_cells = frozenset()


class CafeState(State):
    game: CafeGame

    def __init__(
        self,
        game: CafeGame,
        num_players: int,
        options: dict[str, Any],
        rules: CafeRules | None = None,
    ) -> None:
        """`rules`: the options read already (`CafeRules.from_options(options)`), as `clone`
        passes them."""
        self.game = game
        self.num_players = num_players
        self.options = options
        self.rules = CafeRules.from_options(options) if rules is None else rules
        self.rng = Rng(0)
        self.phase = _DRAFT
        self.round = 1
        self.master = 0
        self.deck: list[str] = []  # next card drawn is deck[-1]
        self.removed: list[str] = []
        self.discard: list[str] = []
        self.display: list[str] = []
        self.draft_order: list[int] = []
        self.players: list[PlayerState] = []
        self.supply = [CUBES_PER_COLOUR] * 4
        self._seats: frozenset[int] | None = None  # cache of current_seats()
        # advanced-mode auction
        self.stakes = [0] * num_players
        self.passed = [False] * num_players
        self.bidder = -1  # seat whose turn it is in the auction
        self.bid_open = 0  # cubes paid so far in the bid being made

    # ==== set-up ===========================================================================
    @classmethod
    def new_game(
        cls, game: CafeGame, num_players: int, seed: int, options: dict[str, Any]
    ) -> CafeState:
        """Set-up, using the state's RNG in a fixed order: shuffle the plan cards, remove the
        random extra cards, deal companies, choose the master."""
        state = cls(game, num_players, options)
        state.rng = Rng(seed)
        rules = state.rules
        deck = game.deck
        stars = rules.removes_stars(num_players)
        plan_cards = deck.of_kind("plan")
        plans = [c.id for c in plan_cards if not (stars and c.star)]
        state.removed = [c.id for c in plan_cards if stars and c.star]
        state.rng.shuffle(plans)
        extra = rules.extra_removals(num_players)
        state.removed += plans[:extra]
        state.deck = plans[extra:]
        if rules.promos:
            # k promo cards replace k plan cards, preferably ones with a shop, at random
            for _ in rules.promos:
                with_shops = [c for c in state.deck if deck.card(c).shops] or state.deck
                out = with_shops[state.rng.randrange(len(with_shops))]
                state.deck.remove(out)
                state.removed.append(out)
            state.deck += list(rules.promos)
        if rules.espresso:
            state.deck += [c.id for c in deck.of_kind("espresso")]
        if rules.promos or rules.espresso:
            state.rng.shuffle(state.deck)
        companies = [c.company or "" for c in deck.of_kind("start")]
        state.rng.shuffle(companies)
        for seat in range(num_players):
            start = deck.start_card(companies[seat])
            state.players.append(PlayerState(start.company or "", game.start_area(start)))
        state.master = state.rng.randrange(num_players)
        state._start_draft()
        return state

    def card(self, card_id: str) -> CardSpec:
        return self.game.deck.card(card_id)

    # ==== protocol =========================================================================
    def current_seats(self) -> frozenset[int]:
        seats = self._seats
        if seats is None:
            if self.phase is _DRAFT:
                seats = frozenset(self.draft_order[:1])
            elif self.phase is _AUCTION:
                seats = frozenset([self.bidder])
            elif self.phase is _TURNS:
                seats = frozenset([i for i, p in enumerate(self.players) if p.stage in _MOVING])
            else:
                seats = frozenset()
            self._seats = seats
        return seats

    def is_over(self) -> bool:
        return self.phase is _OVER

    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase is _DRAFT:
            return self._legal_takes(seat) if self.draft_order[0] == seat else []
        if self.phase is _AUCTION:
            return self._legal_bids(seat) if seat == self.bidder else []
        if self.phase is _OVER or not 0 <= seat < self.num_players:
            return []
        player = self.players[seat]
        if player.stage is _ACT:
            return self._legal_steps(player)  # type: ignore[return-value]
        if player.stage is _PLACE and player.hand is not None:
            footprints = player.area.legal_footprints(self.card(player.hand))
            return list(chain.from_iterable(map(_PLACE_PAIRS.__getitem__, footprints)))
        return []

    def search_actions(self, seat: int) -> list[Action]:
        """The legal actions but the Clears of bean cells, which never help the seat: a bean
        cell holds one cube, which a Dry takes wherever it lies, and a Produce would only
        put it back (docs/bots.md, "Steps a search skips"). They were about a third of the
        steps the bots' searches tried."""
        if self.phase is _TURNS and 0 <= seat < self.num_players:
            player = self.players[seat]
            if player.stage is _ACT:
                return self._legal_steps(player, search=True)  # type: ignore[return-value]
        return self.legal_actions(seat)

    def apply_unchecked(self, seat: int, action: Action) -> None:
        seats, phase, round_ = self._seats, self.phase, self.round
        self._seats = None
        _APPLY[type(action)](self, seat, action)
        # In the turns phase a seat's action changes no other seat's stage, so the seats to
        # move stay the same while it stays among them in the same round.
        if (
            phase is _TURNS
            and seats is not None
            and self.phase is _TURNS
            and self.round == round_
            and seat in seats
            and self.players[seat].stage in _MOVING
        ):
            self._seats = seats

    def round_number(self) -> int:
        return self.round

    def resample_hidden(self, seat: int, rng: Shuffler) -> CafeState:
        """The deck's order and the cards removed at random at set-up are hidden (the star
        cards removed by rule are public, and so are the display, the discards and every
        area). They are dealt anew from the same cards; the state's RNG is hidden too."""
        new = self.clone()
        known = self.removed_by_rule()
        hidden = sorted(self.deck + [c for c in self.removed if c not in known])
        rng.shuffle(hidden)
        new.deck = hidden[: len(self.deck)]
        new.removed = known + hidden[len(self.deck) :]
        new.rng = Rng(rng.getrandbits(64))
        return new

    def removed_by_rule(self) -> list[str]:
        """The removed cards everyone knows, sorted: the ★ cards, which leave the game by rule
        with fewer than 4 players and in advanced mode. Every other removed card was taken
        at random and unseen (the extra removals, the cards promos replace)."""
        if not self.rules.removes_stars(self.num_players):
            return []
        return sorted(c for c in self.removed if self.card(c).star)

    def removed_unseen(self) -> int:
        """How many cards left the game at random, unseen (their identities are hidden)."""
        return len(self.removed) - len(self.removed_by_rule())

    def clone(self) -> CafeState:
        # the constructor, not `CafeState.__new__` without it: a class compiled with mypyc
        # (docs/architecture.md) always runs its `__init__`
        new = CafeState(self.game, self.num_players, self.options, self.rules)
        new.rng = self.rng.clone()
        new.phase = self.phase
        new.round = self.round
        new.master = self.master
        new.deck = self.deck.copy()
        new.removed = self.removed.copy()
        new.discard = self.discard.copy()
        new.display = self.display.copy()
        new.draft_order = self.draft_order.copy()
        new.players = [p.copy() for p in self.players]
        new.supply = self.supply.copy()
        new._seats = self._seats
        new.stakes = self.stakes.copy()
        new.passed = self.passed.copy()
        new.bidder = self.bidder
        new.bid_open = self.bid_open
        return new

    def search_key(self) -> Hashable:
        """Everything that decides how the game plays on, as a tuple: the phase, the draft,
        the supply, each seat's area, cubes, warehouse and step in its turn. The deck counts
        by its size (a search runs on one determinization); the RNG does not count."""
        return (
            self.phase,
            self.round,
            self.master,
            len(self.deck),
            tuple(self.display),
            tuple(self.draft_order),
            tuple(self.supply),
            tuple(self.stakes),
            tuple(self.passed),
            self.bidder,
            self.bid_open,
            tuple(_player_key(p) for p in self.players),
        )

    def to_json(self) -> dict[str, Any]:
        from coffeetable.games.cafe.position import state_to_json

        return state_to_json(self)

    def view(self, seat: Any, *, shared: bool = False) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see (docs/views.md). Café has no information
        private to one seat: the draft is public and the hidden part (the deck, the cards
        removed at random, the RNG) is hidden from everyone, so all views are equal except
        for their `seat` field. `seat` is typed `Any`, not `int | None`: `state_view` refuses
        anything else with a DataError, where a compiled build (mypyc) would raise TypeError.
        `shared` (core/game.py): the seats' entries may be shared with other views."""
        from coffeetable.games.cafe.view import state_view

        return state_view(self, seat, shared=shared)

    def render(self, seat: int | None = None) -> str:
        from coffeetable.games.cafe.text import render_state

        return render_state(self, seat)

    # ==== draft ============================================================================
    def _start_draft(self) -> None:
        """Start a round: reveal the display, then the auction (advanced) or the draft."""
        for p in self.players:
            p.stage = _WAIT
            p.hand = None
            p.ap = 0
            p.close_action()
        self.display = []
        self._refill_display()
        if self.rules.advanced:
            self.phase = _AUCTION
            self.stakes = [0] * self.num_players
            self.passed = [False] * self.num_players
            self.bid_open = 0
            self.bidder = self.master
            return
        self.phase = _DRAFT
        n = self.num_players
        self.draft_order = [(self.master + i) % n for i in range(1, n + 1)]
        self._skip_empty_draft()

    def _refill_display(self) -> None:
        size = self.rules.display_size(self.num_players)
        while len(self.display) < size and self.deck:
            self.display.append(self.deck.pop())

    def _skip_empty_draft(self) -> None:
        # Only a hand-made position or a short custom deck can leave the display empty:
        # those pickers get no card this round.
        while self.draft_order and not self.display:
            self.draft_order.pop(0)
        if not self.draft_order:
            self._start_turns()

    def card_is_free(self, seat: int, card: CardSpec) -> bool:
        return not card.has_cup or self._cup_cards_free(self.players[seat])

    def _cup_cards_free(self, player: PlayerState) -> bool:
        """Whether every card is free for `player`, a card with a cup too (`card_is_free`)."""
        return self.rules.advanced or player.area.ships >= 2

    def _legal_takes(self, seat: int) -> list[Action]:
        player = self.players[seat]
        warehouse = player.warehouse
        free = self._cup_cards_free(player)  # `card_is_free`, read once for the display
        by_id = self.game.deck.card
        takes: list[Action] = []
        for card_id in self.display:
            if free or not by_id(card_id).has_cup:
                takes.append(_TAKES[card_id, -1, False])
            else:
                takes.extend(_TAKES[card_id, c, False] for c in range(4) if warehouse[c] > 0)
        if not takes:  # every card has a cup and the seat cannot pay: take one and discard it
            takes = [_TAKES[card_id, -1, True] for card_id in self.display]
        return takes

    def _apply_take(self, seat: int, action: Take) -> None:
        player = self.players[seat]
        self.display.remove(action.card)
        if action.pay >= 0:
            player.warehouse[action.pay] -= 1  # to the supply (Ruling S1: no supply change)
        if action.discard:
            self.discard.append(action.card)
        else:
            player.hand = action.card
        self.draft_order.pop(0)
        if self.draft_order:
            if not self.rules.advanced:  # advanced mode: no refills
                self._refill_display()
            self._skip_empty_draft()
        else:
            self.discard.extend(self.display)
            self.display = []
            self._start_turns()

    # ==== auction (advanced mode, Ruling V1) ============================================
    def highest_other_stake(self, seat: int) -> int:
        return max((s for i, s in enumerate(self.stakes) if i != seat), default=0)

    def _legal_bids(self, seat: int) -> list[Action]:
        player = self.players[seat]
        warehouse = player.warehouse
        target = self.highest_other_stake(seat)
        out: list[Action] = []
        if self.bid_open == 0:
            out.append(_PASS)
            # a bid must be at least one cube and bring the stake up to the highest stake
            if sum(warehouse) < max(1, target - self.stakes[seat]):
                return out
        elif self.stakes[seat] >= target:
            out.append(_BID_DONE)
        area = player.area
        ships = [pos for pos in area.cells_of(_SHIP) if pos not in area.cubes]
        for colour in range(4):
            if warehouse[colour] > 0:
                out.append(_BIDS[colour, None])
                out.extend(_BIDS[colour, ship] for ship in ships)
        return out

    def _apply_bid(self, seat: int, action: Bid) -> None:
        player = self.players[seat]
        player.warehouse[action.colour] -= 1  # the cube is lost (Ruling V1) ...
        if action.ship is not None:  # ... unless it goes onto an empty ship
            player.area.cubes[action.ship] = (action.colour, 1)
        self.stakes[seat] += 1
        self.bid_open += 1

    def _apply_bid_done(self, seat: int, action: BidDone) -> None:
        self.master = seat  # an equal stake takes the token (Ruling V1)
        self.bid_open = 0
        self._next_bidder()

    def _apply_pass(self, seat: int, action: Pass) -> None:
        self.passed[seat] = True
        self._next_bidder()

    def _next_bidder(self) -> None:
        n = self.num_players
        for step in range(1, n + 1):
            seat = (self.bidder + step) % n
            if not self.passed[seat]:
                self.bidder = seat
                return
        # everyone has passed: the draft starts with the (new) master, clockwise
        self.bidder = -1
        self.phase = _DRAFT
        self.draft_order = [(self.master + i) % n for i in range(n)]
        self._skip_empty_draft()

    # ==== placement ========================================================================
    def _start_turns(self) -> None:
        self.phase = _TURNS
        for seat, player in enumerate(self.players):
            if player.hand is not None:
                player.stage = _PLACE
            else:
                self._begin_actions(seat)
        self._end_round_if_done()

    def _apply_place(self, seat: int, action: Place) -> None:
        player = self.players[seat]
        assert player.hand is not None
        returned, to_warehouse = player.area.place(
            self.card(player.hand), action.row, action.col, action.rotation
        )
        for colour in range(4):
            self.supply[colour] += returned[colour]
            player.warehouse[colour] += to_warehouse[colour]
        player.hand = None
        self._begin_actions(seat)
        self._end_round_if_done()

    def _begin_actions(self, seat: int) -> None:
        player = self.players[seat]
        player.stage = _ACT
        player.ap = min(MAX_AP, player.area.cups)
        player.close_action()
        self._finish_if_stuck(player)

    # ==== actions ==========================================================================
    def _legal_steps(self, player: PlayerState, search: bool = False) -> list[CafeAction]:
        """The seat's steps in its action stage; with `search`, without the Clears of bean
        cells (`search_actions`)."""
        area = player.area
        if player.pending_deliver is not None:
            return self._deliveries(player, player.pending_deliver)
        if any(player.pending_fill) or self._supply_choice_pending(player):
            return self._fills(player)
        # One pass over the cubes: sources per colour for Dry and Roast, loaded roast cells,
        # clearable cells (all in row-major order, so the listing is canonical).
        top: dict[PosObj, CellSpec] = area.top
        bean_src: dict[int, list[PosObj]] = {}
        dry_src: dict[int, list[PosObj]] = {}
        beans = dries = 0  # source cells: more than colours when a colour has several
        loaded_roasts: list[PosObj] = []
        clearable: list[PosObj] = []
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        for pos in sorted(cubes):  # (the keys alone: pairs compare their cells twice)
            held = cubes[pos]
            kind = top[pos].kind
            if kind in BEAN_LIKE:
                bean_src.setdefault(held[0], []).append(pos)
                beans += 1
                if search and kind is _BEAN:
                    continue
            elif kind is _DRY:
                dry_src.setdefault(held[0], []).append(pos)
                dries += 1
            elif kind is _ROAST:
                loaded_roasts.append(pos)
            else:
                continue
            clearable.append(pos)
        steps: list[CafeAction] = []
        ap = player.ap
        if ap > 0:
            self._produces(player, steps)
        if bean_src:
            self._transfers(player, _OPEN_DRY, bean_src, beans > len(bean_src), steps)
        if dry_src:
            self._transfers(player, _OPEN_ROAST, dry_src, dries > len(dry_src), steps)
        if loaded_roasts and (ap > 0 or player.open_kind is _OPEN_DELIVER):
            for pos in loaded_roasts:
                steps += self._deliveries(player, pos)
        steps.extend(map(_CLEARS.__getitem__, clearable))
        steps.append(_END)
        return steps

    def _produces(self, player: PlayerState, out: list[CafeAction]) -> None:
        """One Produce per bean group in which at least one cell would receive a cube: in
        order of the first such cell, or of the groups' first cells in an area with bonus or
        supply cells (added to `out`)."""
        area = player.area
        found: list[tuple[PosObj, PosObj]] = []  # (first cell that would receive a cube, group)
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        supply = self.supply
        any_supply = any(supply)
        groups: list[tuple[PosObj, tuple[tuple[PosObj, int], ...]]] = area.bean_groups()
        for anchor, cells in groups:
            for pos, colour in cells:
                if pos not in cubes and (supply[colour] if colour >= 0 else any_supply):
                    found.append((pos, anchor))
                    break
        if len(found) > 1:
            kinds = area.kinds()  # (only the kinds the area shows)
            if _BONUS not in kinds and _SUPPLY not in kinds:
                found.sort()
        out += [_PRODUCES[anchor] for _, anchor in found]

    def _supply_choice_pending(self, player: PlayerState) -> bool:
        return bool(player.pending_supply) and any(self.supply)

    def _fills(self, player: PlayerState) -> list[CafeAction]:
        """The choices a Produce left open: which cells get scarce cubes (Ruling P1) and
        which colour each produced supply cell takes."""
        area = player.area
        top, cubes = area.top, area.cubes
        out: list[CafeAction] = []
        if any(player.pending_fill):
            for pos in player.pending_cells:
                cell = top[pos]
                if cell.kind is _BEAN and pos in cubes:
                    continue
                if cell.kind is _BONUS and cubes.get(pos, (0, 0))[1] >= 2:
                    continue
                if cell.kind in (_BEAN, _BONUS) and player.pending_fill[cell.colour]:
                    out.append(_FILLS[pos, -1])
        if self._supply_choice_pending(player):
            for pos in player.pending_supply:
                out.extend(_FILLS[pos, colour] for colour in range(4) if self.supply[colour])
        return out

    def _transfers(
        self,
        player: PlayerState,
        kind: OpenKind,
        sources: dict[int, list[PosObj]],
        multi: bool,
        out: list[CafeAction],
    ) -> None:
        """Dry (or Roast) steps: into each empty target cell, each colour held by a source
        cell; and, inside the open action, more cubes into a cell it already filled. With
        several source cells for a colour (`multi`: for some colour), each may also be named
        alone ('from')."""
        area = player.area
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        made: Mapping[tuple[PosObj, int, PosObj], Dry | Roast]
        plain: Mapping[PosObj, tuple[Dry | Roast, ...]]
        if kind is _OPEN_DRY:
            made, plain, target_kind = _DRIES, _DRIES_INTO, _DRY
        else:
            made, plain, target_kind = _ROASTS, _ROASTS_INTO, _ROAST
        can_start = player.ap > 0
        open_here = player.open_kind is kind
        if open_here:
            groups: dict[PosObj, tuple[PosObj, ...]] = area.groups()
            open_group, open_cells, open_colours = (
                player.open_group,
                player.open_cells,
                player.open_colours,
            )
        items = list(sources.items())
        # with one source cell per colour, the steps into an empty cell are the plain ones
        colours = None if multi else list(sources)
        targets: list[PosObj] = area.cells_of(target_kind)
        for pos in targets:
            held = cubes.get(pos)
            if held is None:
                into = plain[pos]
                if can_start:
                    if colours is not None:
                        out += map(into.__getitem__, colours)
                        continue
                    for colour, srcs in items:
                        out.append(into[colour])
                        if len(srcs) > 1:
                            out += [made[pos, colour, s] for s in srcs]
                elif open_here and pos not in open_cells and groups[pos] == open_group:
                    for colour, srcs in items:
                        if not open_colours >> colour & 1:
                            out.append(into[colour])
                            if len(srcs) > 1:
                                out += [made[pos, colour, s] for s in srcs]
            elif (
                open_here and pos in open_cells and held[0] in sources and groups[pos] == open_group
            ):
                srcs = sources[held[0]]
                out.append(made[pos, held[0], None])
                if len(srcs) > 1:
                    out += [made[pos, held[0], s] for s in srcs]

    def _deliveries(self, player: PlayerState, roast: PosObj) -> list[CafeAction]:
        area = player.area
        colour = area.cubes[roast][0]
        out: list[CafeAction] = [
            _DELIVERS[roast, shop.anchor]
            for shop in area.shops
            if shop.available and shop.spec.requires[colour] > shop.cubes[colour]  # needs it
        ]
        espresso: list[PosObj] = area.cells_of(_ESPRESSO)
        if espresso:
            cubes: dict[PosObj, tuple[int, int]] = area.cubes
            out += [_DELIVERS[roast, pos] for pos in espresso if pos not in cubes]
        out.append(_DELIVERS[roast, None])
        return out

    def transfer_costs_ap(self, player: PlayerState, action: Dry | Roast) -> bool:
        kind = _OPEN_DRY if isinstance(action, Dry) else _OPEN_ROAST
        area = player.area
        to: PosObj = action.to
        if player.open_kind is not kind or area.groups()[to] != player.open_group:
            return True
        if to in player.open_cells:
            return to not in area.cubes  # refilling a cleared cell is a new action
        return bool(player.open_colours >> action.colour & 1)

    def _apply_produce(self, seat: int, action: Produce) -> None:
        player = self.players[seat]
        area = player.area
        player.ap -= 1
        player.close_action()
        group: tuple[PosObj, ...] = area.groups()[action.at]
        top: dict[PosObj, CellSpec] = area.top
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        wanted: list[list[PosObj]] = [[], [], [], []]  # one entry per cube a cell should get
        supply_cells: list[PosObj] = []
        for pos in group:
            if pos in cubes:
                continue  # cells holding cubes are skipped (clear them first)
            cell = top[pos]
            if cell.kind is _BEAN:
                wanted[cell.colour].append(pos)
            elif cell.kind is _BONUS:
                wanted[cell.colour] += [pos, pos]  # a bonus cell receives 2 cubes
            elif cell.kind is _SUPPLY:
                supply_cells.append(pos)
        held = [0, 0, 0, 0]
        for colour, cells in enumerate(wanted):
            if not cells:
                continue
            if self.supply[colour] >= len(cells):
                for pos in cells:
                    cubes[pos] = (colour, cubes.get(pos, (colour, 0))[1] + 1)
                self.supply[colour] -= len(cells)
            else:  # short: the seat chooses which cells get the cubes left (fill steps)
                held[colour] = self.supply[colour]
                self.supply[colour] = 0
        if any(held):
            player.pending_fill = (held[0], held[1], held[2], held[3])
            player.pending_cells = tuple(
                sorted({pos for colour in range(4) if held[colour] for pos in wanted[colour]})
            )
        player.pending_supply = tuple(supply_cells)
        self._after_step(seat)

    def _apply_fill(self, seat: int, action: Fill) -> None:
        player = self.players[seat]
        cubes = player.area.cubes
        if action.colour >= 0:  # a supply cell takes the named colour from the supply
            cubes[action.at] = (action.colour, 1)
            self.supply[action.colour] -= 1
            player.pending_supply = tuple(p for p in player.pending_supply if p != action.at)
        else:
            colour = player.area.top[action.at].colour
            cubes[action.at] = (colour, cubes.get(action.at, (colour, 0))[1] + 1)
            held = list(player.pending_fill)
            held[colour] -= 1
            player.pending_fill = (held[0], held[1], held[2], held[3])
            if not any(held):
                player.pending_cells = ()
        self._after_step(seat)

    def _apply_transfer(self, seat: int, action: Dry | Roast) -> None:
        player = self.players[seat]
        area = player.area
        kind = _OPEN_DRY if isinstance(action, Dry) else _OPEN_ROAST
        to: PosObj = action.to
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        if self.transfer_costs_ap(player, action):
            player.ap -= 1
            player.close_action()
            player.open_kind = kind
            player.open_group = area.groups()[to]
        player.open_colours |= 1 << action.colour
        player.open_cells = player.open_cells | {to}
        source: PosObj = action.source
        srcs = [source] if source is not None else _source_cells(area, action)
        moved = sum(cubes.pop(pos)[1] for pos in srcs)
        before = cubes.get(to, (action.colour, 0))[1]
        cubes[to] = (action.colour, before + moved)
        self._after_step(seat)

    def _apply_deliver(self, seat: int, action: Deliver) -> None:
        player = self.players[seat]
        area = player.area
        if player.pending_deliver is None and player.open_kind is not _OPEN_DELIVER:
            player.ap -= 1
            player.close_action()
            player.open_kind = _OPEN_DELIVER
        source: PosObj = action.source
        to: PosObj = action.to
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        colour, n = cubes[source]
        if n > 1:
            cubes[source] = (colour, n - 1)
            player.pending_deliver = source
        else:
            del cubes[source]
            player.pending_deliver = None
        if to is None:
            player.warehouse[colour] += 1
            self.supply[colour] += 1  # off the cells; warehouse cubes do not count (Ruling S1)
        elif to not in area.shop_at:  # an espresso cell (stays on the cells)
            cubes[to] = (colour, 1)
        else:
            sid = area.shop_at[to]
            shop = area.shops[sid]
            held = list(shop.cubes)
            held[colour] += 1
            area.shops[sid] = AreaShop(
                shop.spec, shop.cells, (held[0], held[1], held[2], held[3]), True, shop.card
            )
        self._after_step(seat)

    def _apply_clear(self, seat: int, action: Clear) -> None:
        player = self.players[seat]
        colour, n = player.area.cubes.pop(action.at)
        self.supply[colour] += n
        self._after_step(seat)

    def _apply_end(self, seat: int, action: End) -> None:
        player = self.players[seat]
        player.stage = _DONE
        player.close_action()
        self._end_round_if_done()

    def _after_step(self, seat: int) -> None:
        player = self.players[seat]
        if player.pending_supply and not any(self.supply):
            player.pending_supply = ()  # the supply ran dry: nothing left to choose
        if player.ap > 0:
            return  # the seat's turn goes on, and so does the round
        self._finish_if_stuck(player)
        self._end_round_if_done()

    def _finish_if_stuck(self, player: PlayerState) -> None:
        """A turn ends at 0 AP unless a started action can still be continued."""
        if (
            player.ap > 0
            or player.pending_deliver is not None
            or any(player.pending_fill)
            or self._supply_choice_pending(player)
        ):
            return
        if player.open_kind is not _OPEN_NONE and self._open_action_continues(player):
            return
        player.stage = _DONE
        player.close_action()
        player.pending_supply = ()

    def _open_action_continues(self, player: PlayerState) -> bool:
        """With no action point left and nothing pending: whether the open action has a
        step left, which `_legal_steps` would list, other than a Clear or the End. It is
        what that listing decides, without building it (this runs after every step)."""
        area = player.area
        top: dict[PosObj, CellSpec] = area.top
        cubes: dict[PosObj, tuple[int, int]] = area.cubes
        if player.open_kind is _OPEN_DELIVER:
            return any(top[pos].kind is _ROAST for pos in cubes)
        source_kinds = _SOURCE_KINDS[player.open_kind]
        colours = {colour for pos, (colour, _) in cubes.items() if top[pos].kind in source_kinds}
        if not colours:
            return False
        targets: tuple[PosObj, ...] = player.open_group  # the open action's target cells
        for pos in targets:
            held = cubes.get(pos)
            if held is None:
                if pos not in player.open_cells and any(
                    not player.open_colours >> colour & 1 for colour in colours
                ):
                    return True
            elif pos in player.open_cells and held[0] in colours:
                return True
        return False

    def _end_round_if_done(self) -> None:
        if self.phase is not _TURNS:
            return
        for p in self.players:
            if p.stage is not _DONE:
                return
        if self.round >= ROUNDS:
            self._finish_game()
            return
        self.round += 1
        if not self.rules.advanced:  # advanced mode: the next auction decides
            self.master = (self.master + 1) % self.num_players
        self._start_draft()

    def _finish_game(self) -> None:
        """Bid cubes on ships go back to their warehouses; each espresso cube is exchanged for
        a warehouse cube of the colour that scores best (Ruling E3)."""
        for player in self.players:
            warehouse, _ = self._final_warehouse(player)
            area = player.area
            for pos in [*area.cells_of(_SHIP), *area.cells_of(_ESPRESSO)]:
                held = area.cubes.pop(pos, None)
                if held is not None and area.top[pos].kind is _ESPRESSO:
                    self.supply[held[0]] += held[1]
            player.warehouse = warehouse
        self.phase = _OVER

    # ==== canonical spellings and explanations ============================================
    def canonical_action(self, seat: int, action: Action) -> Action:
        if not 0 <= seat < self.num_players:
            return action
        area = self.players[seat].area
        if (
            isinstance(action, Produce)
            and action.at in area.top
            and area.top[action.at].kind in BEAN_LIKE
        ):
            return Produce(area.groups()[action.at][0])
        if isinstance(action, Deliver) and action.to is not None and action.to in area.shop_at:
            return Deliver(action.source, area.shops[area.shop_at[action.to]].anchor)
        if (
            isinstance(action, Dry | Roast)
            and action.source is not None
            and _source_cells(area, action) == [action.source]
        ):  # the only source: the same move as the plain form
            return type(action)(action.to, action.colour)
        return action

    def explain_illegal(self, seat: int, action: Action) -> str:
        from coffeetable.games.cafe.explain import explain

        return explain(self, seat, action)

    def describe(self, seat: int, action: Action) -> str:
        """The action in words for a game log (docs/architecture.md): "takes P19 (a 2-VP
        Tomar 1911 shop), paying a yellow cube"; "plays NOTATION" when it is not legal now."""
        from coffeetable.games.cafe.describe import describe

        return describe(self, seat, action)

    def say(self, seat: int, action: Action, *, listed: bool = False) -> Say:
        """`describe`'s sentence as a message key and parameters (for other languages);
        `listed`: `action` is from `legal_actions(seat)` (`State.say`)."""
        from coffeetable.games.cafe.describe import say

        return say(self, seat, action, listed=listed)

    def may_take_back(self, seat: int, action: Action, after: Any = None) -> bool:
        """Ruling UNDO1: only a step of the action phase that leaves the seat in its action
        phase may be taken back (a produce, dry, roast, deliver, fill or clear that does not
        end the seat's turn). Bids, draft picks, placements, `end` and the step that ends
        the seat's turn are confirmed; so is anything that changes the deck, the display,
        the cards removed unseen or the RNG (none of these steps does)."""
        if (
            self.phase is not _TURNS
            or not isinstance(seat, int)
            or not 0 <= seat < self.num_players
            or self.players[seat].stage is not _ACT
        ):
            return False
        try:
            action = self.canonical_action(seat, action)
            if action not in self.legal_actions(seat):
                return False
        except CoffeetableError:
            return False
        if after is None:
            after = self.clone()
            after.apply_unchecked(seat, action)
        return (
            after.phase is _TURNS
            and after.round == self.round
            and after.players[seat].stage is _ACT
            and after.deck == self.deck
            and after.display == self.display
            and after.removed == self.removed
            and after.rng.state == self.rng.state
        )

    def legal_actions_kept(self, seat: int, before: State) -> bool:
        """In the turns phase a seat's placements depend on its cells and the card in its hand
        alone, and its steps on its own area, warehouse and turn and on which colours the
        supply still has (not how many: `_produces`, `_fills`); another seat's move changes
        none of them unless it empties a colour of the supply or ends the round. The seat's
        cells are compared by identity first (a copy shares them until it places a card),
        then everything of the seat that decides how it plays on (`_player_key`, as
        `search_key` reads it)."""
        if (
            not isinstance(before, CafeState)
            or self.phase is not _TURNS
            or before.phase is not _TURNS
            or self.round != before.round
            or self.num_players != before.num_players
            or not isinstance(seat, int)
            or not 0 <= seat < self.num_players
        ):
            return False
        mine, was = self.players[seat], before.players[seat]
        area, old = mine.area, was.area
        if mine.stage is not was.stage or area.top is not old.top or area.cards is not old.cards:
            return False
        if mine.stage is _PLACE:  # the card in hand on the same cells: the same placements
            return mine.hand is not None and mine.hand == was.hand
        if mine.stage is not _ACT:
            return False
        if [n > 0 for n in self.supply] != [n > 0 for n in before.supply]:
            return False
        return _player_key(mine) == _player_key(was)

    # ==== scoring ==========================================================================
    def scores(self) -> list[ScoreBreakdown]:
        return [self.score(seat) for seat in range(self.num_players)]

    def score(self, seat: int) -> ScoreBreakdown:
        player = self.players[seat]
        area = player.area
        shops = sum(shop.spec.vp for shop in area.shops if shop.complete)
        on = area.cubes_per_kind()
        warehouse, _ = self._final_warehouse(player, on)
        low, second = sorted(warehouse)[:2]
        cakes = cake_bonus(area)
        total = shops + cakes + 2 * low + second
        roast = sum(on.get(_ROAST, ()))
        dry = sum(on.get(_DRY, ()))
        label = solo_rating(total) if self.num_players == 1 else None
        parts: list[tuple[str, int]] = [("shops", shops)]
        if self.rules.espresso or cakes:
            parts.append(("cakes", cakes))
        parts += [("warehouse lowest x2", 2 * low), ("warehouse second x1", second)]
        return ScoreBreakdown(total=total, parts=tuple(parts), tiebreak=(roast, dry), label=label)

    @staticmethod
    def _final_warehouse(
        player: PlayerState, on: dict[CellKind, list[int]] | None = None
    ) -> tuple[list[int], list[int]]:
        """The warehouse as it scores: plus bid cubes on ships, plus one cube per espresso
        cube in the colour that scores best (Ruling E3). Also returns those colours. `on`:
        the area's cubes per kind, when the caller has them (at least ships and espresso)."""
        if on is None:
            on = player.area.cubes_per_kind()
        ship = on.get(_SHIP, [0, 0, 0, 0])
        warehouse = [a + b for a, b in zip(player.warehouse, ship, strict=True)]
        espresso = sum(on.get(_ESPRESSO, ()))
        if not espresso:
            return warehouse, []
        best: tuple[int, list[int]] = (-1, [])
        for colours in combinations_with_replacement(range(4), espresso):
            trial = warehouse.copy()
            for c in colours:
                trial[c] += 1
            low, second = sorted(trial)[:2]
            if 2 * low + second > best[0]:
                best = (2 * low + second, list(colours))
        for c in best[1]:
            warehouse[c] += 1
        return warehouse, best[1]

    # ==== helpers for tools ================================================================
    def cubes_on_cells(self) -> list[int]:
        out = [0, 0, 0, 0]
        for p in self.players:
            for colour, n in enumerate(p.area.cubes_by_colour()):
                out[colour] += n
            for colour, n in enumerate(p.pending_fill):
                out[colour] += n
        return out


_MOVING: Final = (_PLACE, _ACT)  # the stages of a seat that may act in the turns phase
_END: Final = End()
_PASS: Final = Pass()
_BID_DONE: Final = BidDone()
K = TypeVar("K", bound=Hashable)
A = TypeVar("A")


class _Interned(dict[K, A]):
    """Legal-action listings build the same few hundred action objects over and over (in
    search and playouts): each kind is interned by its fields, made on first use, since a
    frozen dataclass costs more to build than a lookup (and `map(cache.__getitem__, keys)`
    looks many up in C: placements are listed by the hundred)."""

    def __init__(self, make: Callable[[K], A]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: K) -> A:
        action = self[key] = self.make(key)
        return action


_TAKES: Final[_Interned[tuple[str, int, bool], Take]] = _Interned(lambda k: Take(*k))
_PLACES: Final[_Interned[tuple[int, int, int], Place]] = _Interned(lambda k: Place(*k))
_PLACE_PAIRS: Final[_Interned[int, tuple[Place, Place]]] = _Interned(
    lambda key: (_PLACES[footprint_placements(key)[0]], _PLACES[footprint_placements(key)[1]])
)
_PRODUCES: Final[_Interned[Pos, Produce]] = _Interned(Produce)
_CLEARS: Final[_Interned[Pos, Clear]] = _Interned(Clear)
_FILLS: Final[_Interned[tuple[Pos, int], Fill]] = _Interned(lambda k: Fill(*k))
_DRIES: Final[_Interned[tuple[Pos, int, Pos | None], Dry]] = _Interned(lambda k: Dry(*k))
_ROASTS: Final[_Interned[tuple[Pos, int, Pos | None], Roast]] = _Interned(lambda k: Roast(*k))
#: per cell, the Dry (Roast) into it of each colour, from every source cell
_DRIES_INTO: Final[_Interned[Pos, tuple[Dry, ...]]] = _Interned(
    lambda pos: tuple(_DRIES[pos, colour, None] for colour in range(4))
)
_ROASTS_INTO: Final[_Interned[Pos, tuple[Roast, ...]]] = _Interned(
    lambda pos: tuple(_ROASTS[pos, colour, None] for colour in range(4))
)
_DELIVERS: Final[_Interned[tuple[Pos, Pos | None], Deliver]] = _Interned(lambda k: Deliver(*k))
_BIDS: Final[_Interned[tuple[int, Pos | None], Bid]] = _Interned(lambda k: Bid(*k))


#: The cells a Dry or a Roast takes its cubes from (`_source_cells`, `_open_action_continues`).
_SOURCE_KINDS: Final = {_OPEN_DRY: BEAN_LIKE, _OPEN_ROAST: frozenset({_DRY})}


def _player_key(p: PlayerState) -> Hashable:
    area = p.area
    return (
        p.stage,
        p.hand,
        p.ap,
        p.open_kind,
        p.open_group,
        p.open_colours,
        p.open_cells,
        p.pending_fill,
        p.pending_cells,
        p.pending_deliver,
        p.pending_supply,
        tuple(p.warehouse),
        area.layout(),
        frozenset(area.cubes.items()),
        tuple([(shop.cubes, shop.available) for shop in area.shops]),
    )


def _source_cells(area: BusinessArea, action: Dry | Roast) -> list[PosObj]:
    """The cells a Dry (bean-like cells) or Roast (dry cells) takes `action.colour` from."""
    top: dict[PosObj, CellSpec] = area.top
    cubes: dict[PosObj, tuple[int, int]] = area.cubes
    kinds = _SOURCE_KINDS[_OPEN_DRY if isinstance(action, Dry) else _OPEN_ROAST]
    return [
        pos
        for pos, (colour, _) in cubes.items()
        if colour == action.colour and top[pos].kind in kinds
    ]


def cake_bonus(area: BusinessArea) -> int:
    """VP from cake cells: each cake adds its VP to one orthogonally adjacent completed shop,
    a shop counts at most one cake; the assignment that scores most (Ruling E1)."""
    cakes = area.cells_of(CellKind.CAKE)
    if not cakes:
        return 0
    options: list[tuple[int, list[int]]] = []
    for r, c in cakes:
        shops = {
            area.shop_at[nb]
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if nb in area.shop_at and area.shops[area.shop_at[nb]].complete
        }
        options.append((area.top[(r, c)].value, sorted(shops)))

    def best(i: int, used: frozenset[int]) -> int:
        if i == len(options):
            return 0
        value, shops = options[i]
        score = best(i + 1, used)
        for sid in shops:
            if sid not in used:
                score = max(score, value + best(i + 1, used | {sid}))
        return score

    return best(0, frozenset())


def solo_rating(total: int) -> str:
    for threshold, label in SOLO_RATINGS:
        if total >= threshold:
            return label
    return SOLO_RATINGS[-1][1]


_APPLY: Final[dict[type, Any]] = {
    Take: CafeState._apply_take,
    Place: CafeState._apply_place,
    Produce: CafeState._apply_produce,
    Fill: CafeState._apply_fill,
    Dry: CafeState._apply_transfer,
    Roast: CafeState._apply_transfer,
    Deliver: CafeState._apply_deliver,
    Clear: CafeState._apply_clear,
    End: CafeState._apply_end,
    Bid: CafeState._apply_bid,
    BidDone: CafeState._apply_bid_done,
    Pass: CafeState._apply_pass,
}

__all__ = ["CafeState", "Phase", "PlayerState", "Stage"]
