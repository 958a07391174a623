"""Tests of coffeetable.server."""
