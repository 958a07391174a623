"""Ratings per (user, game), their history and the leaderboard."""

from __future__ import annotations

import pytest

from coffeetable.server.storage import (
    DEFAULT_RATING,
    AlreadyExistsError,
    LeaderboardEntry,
    NotFoundError,
    Rating,
    RatingChange,
    SqlStorage,
    StorageError,
)
from tests.server.storage.helpers import FakeClock, make_table

pytestmark = pytest.mark.anyio


async def test_default_rating(storage: SqlStorage) -> None:
    user = await storage.create_user("Ana")
    assert await storage.get_rating(user.id, "cafe") == Rating(user.id, "cafe", DEFAULT_RATING, 0)
    assert await storage.rating_history(user.id, "cafe") == []
    assert await storage.leaderboard("cafe") == []


async def test_apply_rating_changes(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    await make_table(storage, "g1", rated=True)
    await make_table(storage, "g2", rated=True)

    changes = await storage.apply_rating_changes("cafe", "g1", {ben.id: 1484.0, ana.id: 1516.0})
    first_time = clock.now
    assert changes == [
        RatingChange(ana.id, "cafe", "g1", 1500.0, 1516.0, first_time),
        RatingChange(ben.id, "cafe", "g1", 1500.0, 1484.0, first_time),
    ]
    assert await storage.get_rating(ana.id, "cafe") == Rating(ana.id, "cafe", 1516.0, 1)

    clock.advance(hours=1)
    await storage.apply_rating_changes("cafe", "g2", {ana.id: 1530.25, ben.id: 1469.75})
    assert await storage.get_rating(ana.id, "cafe") == Rating(ana.id, "cafe", 1530.25, 2)
    assert await storage.get_rating(ben.id, "cafe") == Rating(ben.id, "cafe", 1469.75, 2)
    assert await storage.rating_history(ana.id, "cafe") == [
        RatingChange(ana.id, "cafe", "g1", 1500.0, 1516.0, first_time),
        RatingChange(ana.id, "cafe", "g2", 1516.0, 1530.25, clock.now),
    ]
    # each game has its own ratings
    assert await storage.get_rating(ana.id, "coffee-rush") == Rating(
        ana.id, "coffee-rush", DEFAULT_RATING, 0
    )
    assert await storage.rating_history(ana.id, "coffee-rush") == []


async def test_rating_errors_change_nothing(storage: SqlStorage) -> None:
    ana = await storage.create_user("Ana")
    await make_table(storage, "g1")
    await storage.apply_rating_changes("cafe", "g1", {ana.id: 1510.0})
    with pytest.raises(AlreadyExistsError, match="applied already"):
        await storage.apply_rating_changes("cafe", "g1", {ana.id: 1600.0})

    await make_table(storage, "g2")
    with pytest.raises(NotFoundError, match="no user with id 404"):
        await storage.apply_rating_changes("cafe", "g2", {ana.id: 1600.0, 404: 1400.0})
    with pytest.raises(NotFoundError, match="no table 'g9'"):
        await storage.apply_rating_changes("cafe", "g9", {ana.id: 1600.0})
    with pytest.raises(StorageError, match="'g2' is a game of cafe, not coffee-rush"):
        await storage.apply_rating_changes("coffee-rush", "g2", {ana.id: 1600.0})
    with pytest.raises(ValueError, match="not a number"):
        await storage.apply_rating_changes("cafe", "g2", {ana.id: float("nan")})
    assert await storage.get_rating(ana.id, "cafe") == Rating(ana.id, "cafe", 1510.0, 1)
    assert len(await storage.rating_history(ana.id, "cafe")) == 1
    assert await storage.apply_rating_changes("cafe", "g2", {}) == []


async def test_leaderboard(storage: SqlStorage) -> None:
    users = [await storage.create_user(name) for name in ("Ana", "ben", "Cleo", "Dov")]
    await make_table(storage, "g1")
    await make_table(storage, "g2")
    await make_table(storage, "r1", game="coffee-rush")
    ana, ben, cleo, dov = (u.id for u in users)
    await storage.apply_rating_changes("cafe", "g1", {ana: 1490.0, ben: 1520.0, cleo: 1490.0})
    await storage.apply_rating_changes("cafe", "g2", {ana: 1480.0, cleo: 1480.0})
    await storage.apply_rating_changes("coffee-rush", "r1", {dov: 1700.0})

    board = await storage.leaderboard("cafe")
    assert board == [
        LeaderboardEntry(ben, "ben", 1520.0, 1),
        LeaderboardEntry(ana, "Ana", 1480.0, 2),  # a tie: more games, then the name
        LeaderboardEntry(cleo, "Cleo", 1480.0, 2),
    ]
    assert await storage.leaderboard("cafe", limit=1) == board[:1]
    assert await storage.leaderboard("coffee-rush") == [LeaderboardEntry(dov, "Dov", 1700.0, 1)]
