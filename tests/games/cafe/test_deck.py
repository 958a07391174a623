"""The deck's derived attributes: read once when a card or deck is made (plain attributes, so
that the compiled build's native classes need no instance dict), and no part of equality."""

from __future__ import annotations

from coffeetable.games.cafe.deck import CardSpec, CellKind, CellSpec, default_deck

DECK = default_deck()


def test_has_cup_is_read_from_the_cells() -> None:
    for card in DECK.cards:
        assert card.has_cup == any(cell.kind is CellKind.CUP for row in card.cells for cell in row)
    plain = tuple(tuple(CellSpec(CellKind.DRY) for _ in range(3)) for _ in range(2))
    cup = (plain[0], (CellSpec(CellKind.CUP), *plain[1][1:]))
    assert not CardSpec("x", "plan", plain).has_cup
    assert CardSpec("x", "plan", cup).has_cup
    assert "has_cup" not in repr(CardSpec("x", "plan", cup))


def test_deck_lookups() -> None:
    first = DECK.cards[0]
    assert DECK.card(first.id) is first and DECK.has_card(first.id) and DECK.index(first.id) == 0
    assert [c.id for c in DECK.of_kind("plan")] == [c.id for c in DECK.cards if c.kind == "plan"]
    assert "_by_id" not in repr(DECK)


def test_format_colours_writes_each_colour_count_in_order() -> None:
    import itertools

    from coffeetable.games.cafe.deck import COLOURS, format_colours, parse_colours

    for counts in itertools.product(range(4), repeat=4):
        text = format_colours(counts)
        assert text == "".join(COLOURS[c] * n for c, n in enumerate(counts))
        assert format_colours(list(counts)) == text
        assert parse_colours(text) == counts
    assert format_colours((2, 1)) == "YYB"  # fewer counts than colours
    assert format_colours((0, 0, 0, 0)) == ""
