"""Tests of the storage layer, run on SQLite (file and memory) and PostgreSQL."""
