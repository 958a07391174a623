"""Chat lines, mutes and blocks, reports, roles and suspensions, on every back end."""

from __future__ import annotations

import pytest

from coffeetable.server.storage import NotFoundError, SqlStorage
from tests.server.storage.helpers import FakeClock, make_table

pytestmark = pytest.mark.anyio


async def test_chat_lines_of_a_table_and_of_the_lobby_are_kept_apart(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    await make_table(storage, "t1")
    first = await storage.add_chat_line("t1", ana.id, text="hello", seat=0, moves=0)
    clock.advance(seconds=1)
    second = await storage.add_chat_line("t1", ben.id, preset="gg", spectator=True, moves=3)
    lobby = await storage.add_chat_line(None, ben.id, text="anyone for Café?")
    assert first.user_name == "Ana" and first.created_at != second.created_at
    assert await storage.chat_lines("t1") == [first, second]
    assert await storage.chat_lines(None) == [lobby]
    assert await storage.get_chat_line(second.id) == second
    assert second.preset == "gg" and second.text is None and second.spectator
    # the last `limit`, oldest first
    third = await storage.add_chat_line("t1", ana.id, text="third")
    assert await storage.chat_lines("t1", limit=2) == [second, third]


async def test_a_line_needs_text_or_a_preset_and_a_real_table_and_user(
    storage: SqlStorage,
) -> None:
    ana = await storage.create_user("Ana")
    with pytest.raises(ValueError):
        await storage.add_chat_line(None, ana.id)
    with pytest.raises(ValueError):
        await storage.add_chat_line(None, ana.id, text="x", preset="gg")
    with pytest.raises(NotFoundError):
        await storage.add_chat_line("nope", ana.id, text="x")
    with pytest.raises(NotFoundError):
        await storage.add_chat_line(None, ana.id + 99, text="x")
    assert await storage.chat_lines(None) == []


async def test_muted_and_blocked_users_lines_are_left_out_for_the_reader(
    storage: SqlStorage,
) -> None:
    ana, ben, cy = [await storage.create_user(n) for n in ("Ana", "Ben", "Cy")]
    lines = [await storage.add_chat_line(None, u.id, text=u.name) for u in (ana, ben, cy)]
    assert await storage.set_muted(ana.id, ben.id, True)
    assert not await storage.set_muted(ana.id, ben.id, True)  # already
    assert await storage.set_blocked(ana.id, cy.id, True)
    assert await storage.chat_lines(None, reader=ana.id) == [lines[0]]
    assert await storage.chat_lines(None, reader=ben.id) == lines
    assert await storage.hidden_users(ana.id) == {ben.id, cy.id}
    assert await storage.muted_and_blocked(ana.id) == ([(ben.id, "Ben")], [(cy.id, "Cy")])
    assert await storage.is_blocked(ana.id, cy.id)
    assert not await storage.is_blocked(cy.id, ana.id)  # one way only
    assert not await storage.is_blocked(ana.id, ben.id)  # muted is not blocked
    assert await storage.blockers_among(cy.id, [ana.id, ben.id, cy.id]) == {ana.id}
    assert await storage.set_muted(ana.id, ben.id, False)
    assert not await storage.set_muted(ana.id, ben.id, False)
    assert await storage.hidden_users(ana.id) == {cy.id}
    with pytest.raises(ValueError):
        await storage.set_blocked(ana.id, ana.id, True)
    with pytest.raises(NotFoundError):
        await storage.set_blocked(ana.id, cy.id + 99, True)


async def test_reports_keep_the_words_and_are_handled_once(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana, ben, root = [await storage.create_user(n) for n in ("Ana", "Ben", "Root")]
    await make_table(storage, "t1")
    before = await storage.add_chat_line("t1", ana.id, text="hi")
    line = await storage.add_chat_line("t1", ben.id, text="rude words")
    after = await storage.add_chat_line("t1", ana.id, text="!")
    report = await storage.add_report(
        ana.id, ben.id, "insults", line_id=line.id, line_text=line.text, table_id="t1"
    )
    assert (report.reporter_name, report.target_name, report.line_text) == (
        "Ana",
        "Ben",
        "rude words",
    )
    assert await storage.chat_context(line.id) == [before, line, after]
    player = await storage.add_report(ben.id, ana.id, "stalls every game")
    assert [r.id for r in await storage.list_reports()] == [report.id, player.id]
    clock.advance(minutes=1)
    handled = await storage.handle_report(report.id, root.id)
    assert handled.handled_at == clock.now and handled.handled_by == root.id
    clock.advance(minutes=1)
    again = await storage.handle_report(report.id, ana.id)
    assert again.handled_at == handled.handled_at and again.handled_by == root.id
    assert [r.id for r in await storage.list_reports()] == [player.id]
    assert [r.id for r in await storage.list_reports(handled=True)] == [report.id]
    with pytest.raises(NotFoundError):
        await storage.handle_report(player.id + 99, root.id)
    with pytest.raises(NotFoundError):
        await storage.add_report(ana.id, ben.id + 99, "x")


async def test_roles_and_suspensions(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    assert ana.role == "player" and not ana.is_admin and not ana.suspended
    await storage.set_role(ana.id, "admin")
    assert (await storage.get_user(ana.id)).is_admin  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        await storage.set_role(ana.id, "god")
    await storage.set_suspended(ana.id, True)
    suspended = await storage.get_user_by_name("ana")
    assert suspended is not None and suspended.suspended_at == clock.now
    await storage.set_suspended(ana.id, False)
    assert not (await storage.get_user(ana.id)).suspended  # type: ignore[union-attr]
    with pytest.raises(NotFoundError):
        await storage.set_role(ana.id + 99, "admin")


async def test_blockers_among_many_and_hidden_per_reader(storage: SqlStorage) -> None:
    """The built-once reads (an expanding list of candidates; the reader bound): each
    reader's and each candidate list's own answer, on every back end."""
    ana, ben, cy, dee = [await storage.create_user(n) for n in ("Ana", "Ben", "Cy", "Dee")]
    await storage.set_blocked(ana.id, dee.id, True)
    await storage.set_blocked(cy.id, dee.id, True)
    await storage.set_blocked(ben.id, ana.id, True)
    await storage.set_muted(dee.id, ben.id, True)
    assert await storage.blockers_among(dee.id, [ana.id, ben.id, cy.id, dee.id]) == {
        ana.id,
        cy.id,
    }
    assert await storage.blockers_among(dee.id, [ben.id]) == set()
    assert await storage.blockers_among(dee.id, [cy.id, cy.id]) == {cy.id}
    assert await storage.blockers_among(ana.id, [ben.id, cy.id]) == {ben.id}
    assert await storage.blockers_among(ana.id, [ana.id]) == set()
    assert await storage.hidden_users(ana.id) == {dee.id}
    assert await storage.hidden_users(dee.id) == {ben.id}
    assert await storage.hidden_users(cy.id) == {dee.id}
    assert await storage.hidden_users(ben.id) == {ana.id}
