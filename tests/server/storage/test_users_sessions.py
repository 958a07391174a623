"""Users (names unique without regard to case) and login sessions (expiry)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from coffeetable.server.storage import (
    AlreadyExistsError,
    DuplicateNameError,
    NotFoundError,
    SqlStorage,
    User,
    UserSession,
)
from tests.server.storage.helpers import FakeClock

pytestmark = pytest.mark.anyio


async def test_create_and_get_user(storage: SqlStorage, clock: FakeClock) -> None:
    alice = await storage.create_user("Alice", "hash-a")
    assert alice == User(
        id=alice.id, name="Alice", password_hash="hash-a", is_guest=False, created_at=clock.now
    )
    assert await storage.get_user(alice.id) == alice
    assert await storage.get_user_by_name("Alice") == alice
    assert await storage.get_user(alice.id + 1) is None
    assert await storage.get_user_by_name("Bob") is None


async def test_guest_has_no_password(storage: SqlStorage) -> None:
    guest = await storage.create_user("guest-4821", is_guest=True)
    assert guest.is_guest and guest.password_hash is None
    assert await storage.get_user(guest.id) == guest


async def test_name_lookup_ignores_case(storage: SqlStorage) -> None:
    zoe = await storage.create_user("Zoë")
    assert await storage.get_user_by_name("zoë") == zoe
    assert await storage.get_user_by_name("ZOË") == zoe


@pytest.mark.parametrize(("first", "second"), [("Alice", "aLICE"), ("Straße", "STRASSE")])
async def test_duplicate_names_without_regard_to_case(
    storage: SqlStorage, first: str, second: str
) -> None:
    user = await storage.create_user(first, "h1")
    with pytest.raises(DuplicateNameError, match="is taken") as caught:
        await storage.create_user(second, "h2")
    assert caught.value.name == second
    assert await storage.get_user_by_name(second) == user  # unchanged
    other = await storage.create_user("someone else")
    assert other.id != user.id


async def test_session_lifecycle(storage: SqlStorage, clock: FakeClock) -> None:
    user = await storage.create_user("Alice")
    expires = clock.now + timedelta(days=30)
    session = await storage.create_session("hash-1", user.id, expires)
    assert session == UserSession("hash-1", user.id, created_at=clock.now, expires_at=expires)
    assert await storage.get_session("hash-1") == session
    assert await storage.get_session("hash-2") is None
    assert await storage.delete_session("hash-1") is True
    assert await storage.get_session("hash-1") is None
    assert await storage.delete_session("hash-1") is False


async def test_expired_sessions(storage: SqlStorage, clock: FakeClock) -> None:
    user = await storage.create_user("Alice")
    await storage.create_session("short", user.id, clock.now + timedelta(hours=1))
    await storage.create_session("long", user.id, clock.now + timedelta(days=7))
    await storage.create_session("dead", user.id, clock.now - timedelta(seconds=1))
    assert await storage.get_session("dead") is None
    assert await storage.get_session("short") is not None

    clock.advance(hours=1)  # expiry is exclusive: at expires_at the session is over
    assert await storage.get_session("short") is None
    assert await storage.get_session("long") is not None
    assert await storage.delete_expired_sessions() == 2
    assert await storage.delete_expired_sessions() == 0
    assert await storage.delete_session("short") is False
    assert await storage.get_session("long") is not None


async def test_session_errors(storage: SqlStorage, clock: FakeClock) -> None:
    user = await storage.create_user("Alice")
    later = clock.now + timedelta(days=1)
    with pytest.raises(NotFoundError, match="no user with id 999"):
        await storage.create_session("hash", 999, later)
    first = await storage.create_session("hash", user.id, later)
    with pytest.raises(AlreadyExistsError, match="token hash exists"):
        await storage.create_session("hash", user.id, later + timedelta(days=1))
    assert await storage.get_session("hash") == first
    with pytest.raises(ValueError, match="timezone-aware"):
        await storage.create_session("naive", user.id, later.replace(tzinfo=None))


async def test_session_user_in_one_read(storage: SqlStorage, clock: FakeClock) -> None:
    """`get_session_user` (the session and its user joined, as every request asks): each
    live session gives its own user, exactly as `get_session` then `get_user` would."""
    alice = await storage.create_user("Alice", "hash-a")
    bob = await storage.create_user("Bob", is_guest=True)
    await storage.create_session("a", alice.id, clock.now + timedelta(hours=1))
    await storage.create_session("b", bob.id, clock.now + timedelta(days=1))
    await storage.create_session("dead", bob.id, clock.now - timedelta(seconds=1))
    for token, user in (("a", alice), ("b", bob)):
        session = await storage.get_session(token)
        assert session is not None
        assert await storage.get_session_user(token) == user
        assert await storage.get_user(session.user_id) == user
    assert await storage.get_session_user("dead") is None
    assert await storage.get_session_user("nobody") is None
    clock.advance(hours=1)  # expiry is exclusive, as for `get_session`
    assert await storage.get_session_user("a") is None
    assert await storage.get_session_user("b") == bob
    assert await storage.delete_session("b") is True
    assert await storage.get_session_user("b") is None
