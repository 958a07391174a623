"""Typed errors of the storage layer. Each message says what was wrong.

An error raised on purpose here changes nothing in the database: the transaction that
raised it is rolled back.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error the storage layer raises on purpose."""


class DatabaseURLError(StorageError, ValueError):
    """A database URL that `open_storage` cannot use."""


class NotFoundError(StorageError, LookupError):
    """No user, table or session with that key."""


class AlreadyExistsError(StorageError):
    """A row with that key exists already (a table id, a session token, ratings for a table)."""


class DuplicateNameError(AlreadyExistsError):
    """A user name is taken; names are compared without regard to case."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"the user name {name!r} is taken (names are compared without regard to case); "
            "choose another name"
        )
        self.name = name


class StaleVersionError(StorageError):
    """An action was based on an old version of the table: someone else moved first."""

    def __init__(self, table_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"table {table_id!r} is at version {actual}, not {expected}: another action was "
            "accepted first; reload the table and try again"
        )
        self.table_id = table_id
        self.expected = expected
        self.actual = actual


class StaleRevisionError(StaleVersionError):
    """A change to a table was based on an old revision of it: something else changed it
    first (another node, another request)."""

    def __init__(self, table_id: str, expected: int, actual: int) -> None:
        StorageError.__init__(
            self,
            f"table {table_id!r} is at revision {actual}, not {expected}: it changed just "
            "before; reload the table and try again",
        )
        self.table_id = table_id
        self.expected = expected
        self.actual = actual
