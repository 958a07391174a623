"""Storage for the game server: users, sessions, game tables, actions and ratings.

One async interface (`Storage`), opened by URL with `open_storage`: SQLite (the default,
a file, no other service) or PostgreSQL. See docs/server-storage.md.

    storage = open_storage(default_database_url())
    await storage.migrate()
    ...
    await storage.close()
"""

from coffeetable.server.storage.backends import (
    ENV_VAR,
    default_database_url,
    engine_for_url,
    open_storage,
)
from coffeetable.server.storage.base import DEFAULT_RATING, Storage, TableChanges
from coffeetable.server.storage.errors import (
    AlreadyExistsError,
    DatabaseURLError,
    DuplicateNameError,
    NotFoundError,
    StaleRevisionError,
    StaleVersionError,
    StorageError,
)
from coffeetable.server.storage.records import (
    DECK_VISIBILITIES,
    Calibration,
    ChatLine,
    DeckFile,
    DeckVisibility,
    Friend,
    GameStats,
    GameTable,
    HighScore,
    Invitation,
    LeaderboardEntry,
    MailEvent,
    PlayerGame,
    PlayerTable,
    Rating,
    RatingChange,
    Report,
    Seat,
    SeatKind,
    StoredAction,
    StoredReview,
    TableStatus,
    User,
    UserDeck,
    UserSession,
    UserSettings,
)
from coffeetable.server.storage.sql import SqlStorage

__all__ = [
    "DECK_VISIBILITIES",
    "DEFAULT_RATING",
    "ENV_VAR",
    "AlreadyExistsError",
    "Calibration",
    "ChatLine",
    "DatabaseURLError",
    "DeckFile",
    "DeckVisibility",
    "DuplicateNameError",
    "Friend",
    "GameStats",
    "GameTable",
    "HighScore",
    "Invitation",
    "LeaderboardEntry",
    "MailEvent",
    "NotFoundError",
    "PlayerGame",
    "PlayerTable",
    "Rating",
    "RatingChange",
    "Report",
    "Seat",
    "SeatKind",
    "SqlStorage",
    "StaleRevisionError",
    "StaleVersionError",
    "Storage",
    "StorageError",
    "StoredAction",
    "StoredReview",
    "TableChanges",
    "TableStatus",
    "User",
    "UserDeck",
    "UserSession",
    "UserSettings",
    "default_database_url",
    "engine_for_url",
    "open_storage",
]
