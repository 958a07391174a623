"""The server keeps the cycle collector's pauses short (docs/server.md, "Pauses of the cycle
collector"): its game logs are untracked by the collector, and a server process runs the
collector on its own schedule (server/collector.py): short passes whose survivors are
frozen, and a sweep of everything only when memory has grown."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from coffeetable.server.collector import PAUSE_NAMES, TICK, CycleCollector
from coffeetable.server.livetable import encode_json, encode_log_line, log_json
from coffeetable.server.node import Settings
from tests.server.conftest import serve_on

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
    enabled = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def _cycle() -> tuple[list[object], weakref.ref[Node]]:
    """A list in a reference cycle (so only the cycle collector can free it), and a weak
    reference that says whether it still lives."""

    node = _knot()
    return [node], weakref.ref(node)


def _knot() -> Node:
    """An object in a cycle of its own."""
    node = Node()
    node.self = node
    return node


class Node:
    self: Node


def _grow(share: float, make: Callable[[], object] = list) -> list[object]:
    """New objects until Python's allocated memory blocks have grown by `share`."""
    target = sys.getallocatedblocks() * (1 + share)
    made: list[object] = []
    while sys.getallocatedblocks() < target:
        made.extend(make() for _ in range(1000))
    return made


def _frozen(obj: object) -> bool:
    """Tracked, but in none of the three generations a pass scans."""
    return gc.is_tracked(obj) and not any(obj is o for g in range(3) for o in gc.get_objects(g))


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.usefixtures("restore_gc")
async def test_the_server_freezes_its_start_and_makes_the_passes_itself() -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    collector = CycleCollector(tick=3600)
    collector.start()
    try:
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 1000  # at least the modules' functions and classes
    finally:
        await collector.stop()
    assert gc.isenabled()


@pytest.mark.usefixtures("restore_gc")
def test_a_pass_collects_young_cycles_and_freezes_what_survives() -> None:
    gc.disable()
    collector = CycleCollector()
    held, alive = _cycle()
    dropped, gone = _cycle()
    del dropped
    assert gone() is not None  # a cycle: nothing but the collector frees it
    collector.collect()
    assert gone() is None
    assert alive() is not None and _frozen(alive())
    assert collector.passes == 1 and collector.sweeps == 0
    assert held


@pytest.mark.usefixtures("restore_gc")
def test_a_pass_is_not_a_full_one_yet_collects_a_cycle_an_earlier_young_pass_moved_on() -> None:
    """A pass collects the young and middle generations (a full pass's extras are not
    needed: the old one is empty, all survivors being frozen), so a cycle that someone's
    young-generation pass moved to the middle one is still collected."""
    gc.disable()
    collector = CycleCollector()
    gc.collect()
    gc.freeze()
    dropped, gone = _cycle()
    gc.collect(0)  # a library's young pass: the cycle, alive, moves to the middle generation
    assert any(o is gone() for o in gc.get_objects(1))
    del dropped
    generations: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        collector.collect()
    finally:
        gc.callbacks.remove(seen)
    assert gone() is None
    assert generations == [1]


@pytest.mark.usefixtures("restore_gc")
def test_a_cycle_frozen_in_use_is_freed_by_the_next_sweep_only() -> None:
    gc.disable()
    collector = CycleCollector()
    held, alive = _cycle()
    collector.collect()  # frozen while in use
    del held
    collector.collect()
    assert alive() is not None  # passes never scan what is frozen
    collector.sweep()
    assert alive() is None
    assert collector.sweeps == 1 and collector.last_sweep_found >= 1


@pytest.mark.usefixtures("restore_gc")
def test_a_sweep_comes_when_memory_has_grown_and_less_often_while_the_growth_lives() -> None:
    gc.disable()
    collector = CycleCollector(sweep_growth=0.1)
    collector.sweep()
    assert collector.sweeps == 1
    collector.collect()
    assert (collector.passes, collector.sweeps) == (1, 1)  # no growth: a pass
    blocks = sys.getallocatedblocks()
    live = _grow(0.2)  # 20 % more blocks, all in use
    collector.collect()
    assert (collector.passes, collector.sweeps) == (1, 2)
    assert collector.growth == 0.2  # that sweep freed nothing: the next waits for more
    collector.collect()
    assert (collector.passes, collector.sweeps) == (2, 2)  # measured from the last sweep
    more = _grow(0.12)  # no sweep at 0.2
    collector.collect()
    assert (collector.passes, collector.sweeps) == (3, 2)
    del more  # freed at once (no cycles): the growth is gone again
    # cycles frozen in use, then dropped: growth that only a sweep frees
    garbage = _grow(0.15, _knot)
    collector.collect()
    assert (collector.passes, collector.sweeps) == (4, 2)
    del garbage
    extra = _grow(0.1)  # past the 20 %, counting the garbage
    collector.collect()
    assert collector.sweeps == 3 and collector.last_sweep_found > blocks // 50
    assert collector.growth == 0.1  # back to the first share
    assert live and extra


@pytest.mark.usefixtures("restore_gc")
async def test_the_schedule_makes_passes_on_its_own_and_counts_their_pauses() -> None:
    collector = CycleCollector(tick=0.01)
    collector.start()
    try:
        dropped, gone = _cycle()
        del dropped
        for _ in range(200):
            if gone() is None and collector.passes >= 2:
                break
            await asyncio.sleep(0.01)
        assert gone() is None
        stats = collector.stats()
        assert stats["passes"] >= 2
        assert sum(stats["pauses"].values()) == stats["passes"] + stats["sweeps"]
        assert stats["memory_blocks"] > 0 and stats["longest_pass_ms"] >= 0
    finally:
        await collector.stop()


def test_the_schedule_is_checked() -> None:
    with pytest.raises(ValueError, match="positive"):
        CycleCollector(tick=0)


def test_only_the_server_process_tunes_the_collector() -> None:
    assert Settings().tune_gc is False  # an app made in another program (a test)


def test_a_server_reports_its_collector_in_its_health(tmp_path: Path) -> None:
    with serve_on("sqlite", tmp_path) as proc:
        first = httpx.get(f"{proc.url}/api/health", timeout=30).json()["collector"]
        time.sleep(4 * TICK)
        later = httpx.get(f"{proc.url}/api/health", timeout=30).json()["collector"]
    assert later["passes"] > first["passes"]
    assert set(later["pauses"]) == set(PAUSE_NAMES)
