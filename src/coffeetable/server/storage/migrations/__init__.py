"""Alembic migrations of the storage schema (run by `Storage.migrate()`)."""
