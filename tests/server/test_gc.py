"""The server keeps the cycle collector's pauses short (docs/server.md, Performance): its game
logs are untracked by the collector, and a server process freezes what it starts with and
spaces out full passes."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import orjson
import pytest

from coffeetable.server import app as server_app
from coffeetable.server.livetable import encode_json, encode_log_line, log_json

ENTRY = {
    "version": 7,
    "seat": 1,
    "action": "dry 0,1 yellow",
    "text": "Bob dries 3 yellow",
    "say": {"key": "log.cafe.dry", "params": {"cells": [{"key": "x", "params": {"n": 3}}]}},
}


def test_aencode_log_line_keeps_its_entry_and_is_not_tracked_by_the_collector() -> None:
    line = encode_log_line(ENTRY)
    assert (line[0], line[1]) == (7, 1)
    assert log_json(line) == ENTRY
    gc.collect()  # a tuple of atomic values is untracked at the first pass that sees it
    assert not gc.is_tracked(line)
    # the snapshot embeds the encoded line as it is
    message = orjson.loads(encode_json({"type": "snapshot", "log": [orjson.Fragment(line[2])]}))
    assert message["log"] == [ENTRY]


@pytest.fixture
def restore_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


@pytest.mark.usefixtures("restore_gc")
def test_tuning_freezes_the_start_and_spaces_out_full_passes() -> None:
    young, middle, _ = gc.get_threshold()
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    server_app._tune_gc()
    assert gc.get_freeze_count() > 1000  # at least the modules' functions and classes
    assert gc.get_threshold() == (young, middle, server_app.GC_FULL_PASS_EVERY)


def test_only_the_server_process_tunes_the_collector() -> None:
    assert server_app.Settings().tune_gc is False  # an app made in another program (a test)
