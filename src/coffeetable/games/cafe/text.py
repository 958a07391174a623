"""Text pictures of Café areas, cards and states (terminal play and `inspect`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffeetable.games.cafe.area import BusinessArea
from coffeetable.games.cafe.deck import COLOURS, CardSpec, CellKind, CellSpec, format_colours

if TYPE_CHECKING:
    from coffeetable.games.cafe.state import CafeState

WIDTH = 7
LEGEND = (
    "legend: Y( )/Y(Y) bean cell empty/full · D[..] dry · R[..] roast · cup · ship · "
    "S<n> shop (cubes/needed) · x lost shop · '.' empty cell"
)


def cell_label(cell: CellSpec, held: tuple[int, int] | None = None, shop_note: str = "") -> str:
    kind = cell.kind
    cubes = "" if held is None else f"{held[1]}{COLOURS[held[0]]}"
    if kind in (CellKind.BEAN, CellKind.BONUS):
        inner = COLOURS[held[0]] * held[1] if held else " "
        prefix = COLOURS[cell.colour] if kind is CellKind.BEAN else "+" + COLOURS[cell.colour]
        return f"{prefix}({inner})"
    if kind is CellKind.SUPPLY:
        return f"*({COLOURS[held[0]] if held else ' '})"
    if kind is CellKind.DRY:
        return f"D[{cubes}]"
    if kind is CellKind.ROAST:
        return f"R[{cubes}]"
    if kind is CellKind.ESPRESSO:
        return f"E[{cubes}]"
    if kind is CellKind.CAKE:
        return f"cake{cell.value}"
    if kind is CellKind.SHIP and held is not None:
        return f"ship:{COLOURS[held[0]]}"
    if kind is CellKind.SHOP:
        return shop_note or f"S{cell.shop}"
    if kind is CellKind.EMPTY:
        return "."
    return kind.name.lower()


def render_area(area: BusinessArea) -> str:
    rows = [r for r, _ in area.top]
    cols = [c for _, c in area.top]
    lines = ["      " + "".join(f"{c:^{WIDTH}}" for c in range(min(cols), max(cols) + 1))]
    for r in range(min(rows), max(rows) + 1):
        parts = []
        for c in range(min(cols), max(cols) + 1):
            cell = area.top.get((r, c))
            if cell is None:
                parts.append(" " * WIDTH)
                continue
            note = ""
            if cell.kind is CellKind.SHOP:
                sid = area.shop_at[(r, c)]
                shop = area.shops[sid]
                note = (
                    f"S{sid} x"
                    if not shop.available
                    else f"S{sid} {sum(shop.cubes)}/{shop.spec.size}"
                )
            parts.append(f"{cell_label(cell, area.cubes.get((r, c)), note):^{WIDTH}}")
        lines.append(f"{r:>4}  " + "".join(parts).rstrip())
    for sid, shop in enumerate(area.shops):
        if not shop.available:
            status = "lost (covered)"
        elif shop.complete:
            status = "complete"
        else:
            status = f"has {format_colours(shop.cubes) or '-'}"
        where = " ".join(f"{r},{c}" for r, c in shop.cells)
        lines.append(
            f"   S{sid} {shop.spec.label} at {where}: needs {format_colours(shop.spec.requires)}, "
            f"{shop.spec.vp} VP, {status}"
        )
    return "\n".join(lines)


def render_card(card: CardSpec, cups_cost: bool = True) -> list[str]:
    head = f"{card.id}{' (cup: costs 1 cube)' if card.has_cup and cups_cost else ''}"
    rows = [
        "".join(
            f"{cell_label(cell, None, f'S{cell.shop}' if cell.kind is CellKind.SHOP else ''):^{WIDTH}}"
            for cell in row
        )
        for row in card.cells
    ]
    shops = [
        f"  S{key}: {s.label} needs {format_colours(s.requires)} for {s.vp} VP"
        for key, s in card.shops.items()
    ]
    return [head, *("  " + r for r in rows), *shops]


def render_state(state: CafeState, seat: int | None = None) -> str:
    from coffeetable.games.cafe.state import Phase

    out = [
        f"Café — round {state.round}/8, {state.phase.name.lower()}; master: seat {state.master}; "
        f"deck: {len(state.deck)} cards; supply: "
        + " ".join(f"{COLOURS[c]}{state.supply[c]}" for c in range(4))
    ]
    if state.phase is Phase.AUCTION:
        stakes = ", ".join(
            f"seat {i}: {'passed' if state.passed[i] else 'in'}, stake {state.stakes[i]}"
            for i in range(state.num_players)
        )
        out.append(f"Auction for the master token: seat {state.bidder} to bid or pass ({stakes})")
        out.append("Revealed cards:")
    elif state.phase is Phase.DRAFT:
        out.append(f"Draft: seat {state.draft_order[0]} picks; on offer:")
    if state.phase in (Phase.AUCTION, Phase.DRAFT):
        for card_id in state.display:
            lines = render_card(state.card(card_id), cups_cost=not state.rules.advanced)
            out.extend("  " + line for line in lines)
    seats = range(state.num_players) if seat is None else [seat]
    for i in seats:
        p = state.players[i]
        wh = " ".join(f"{COLOURS[c]}{p.warehouse[c]}" for c in range(4))
        line = f"\nSeat {i} ({p.company}) — {p.stage.name.lower()}, AP {p.ap}, warehouse {wh}"
        out.append(line)
        if p.hand:
            out.append("  card to place:")
            out.extend("    " + ln for ln in render_card(state.card(p.hand)))
        out.append(render_area(p.area))
    out.append(LEGEND)
    return "\n".join(out)
