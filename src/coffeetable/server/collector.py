"""The server process's cycle collector: short passes at the event loop's own times.

Python's cycle collector stops the event loop, and with it every table, for as long as a
pass scans the objects it follows: about 1 ms per 1,000 objects here. A server with 1,000
running tables holds about half a million of them (states, caches, sockets). Left to its
own schedule, the collector now and then scans them all in one full pass: 0.4-0.55 s at
1,000 tables, every move of that moment late by as much (docs/server.md, "Pauses of the
cycle collector"). Its young passes grow too: freeing an old object counts against the
young generation's allocations, so while each move replaces an old state with a new one,
the young generation holds tens of thousands of objects before a pass comes.

So `coffeetable serve` (`Settings.tune_gc`) runs the collector itself:

- automatic passes are off (`gc.disable`);
- every `tick` seconds the event loop makes one pass over what is not frozen, which is
  what was made since the last pass and still lives. Cycles that became garbage meanwhile
  are collected, and the survivors are frozen (`gc.freeze`), so no later pass scans them
  again. A pass therefore costs what the last `tick` seconds made, not what the server holds;
- frozen objects are still freed as soon as nothing refers to them. Only a cycle that
  was frozen while in use and became garbage later stays. A **sweep** (unfreeze, a full
  pass, freeze again) collects those. It scans everything, so it comes only when the
  memory blocks Python has allocated (`sys.getallocatedblocks`, a fraction of a
  millisecond to read, where counting the frozen objects walks all of them: 0.1 s at
  1,000 tables) have grown by a share since the last sweep: by default when they have
  doubled. Memory held by such cycles stays below that growth, as with Python's own rule
  for full passes (a quarter), and in a steady state the sweeps are rare;
- a sweep that freed less than a tenth of the growth it was called for says the growth
  was live data (a site filling up: tables set up, their first moves), not garbage. The
  next sweep then waits for twice the share, up to `MAX_SWEEP_GROWTH`; a sweep that
  freed more brings the share back to `sweep_growth`. So while the server grows, the
  sweeps, each as long as a full pass, come less often, and a server whose cycles do pile
  up is swept at the first share.

`stats()` is part of `GET /api/health`: passes, their total and longest time, sweeps and
what the last one took and found.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import time
from typing import Any

log = logging.getLogger(__name__)

#: seconds between two passes of the collector
TICK = 0.1
#: the oldest generation a pass collects (`gc.collect(YOUNG)`): the young and middle ones;
#: the old one stays empty between passes, as everything that survives a pass is frozen
YOUNG = 1
#: a sweep when Python's allocated memory blocks have grown by this share since the last sweep
SWEEP_GROWTH = 1.0
#: the most the share grows to while sweeps find the growth was live data
MAX_SWEEP_GROWTH = 4.0
#: a sweep that frees less than this share of the growth it was called for was not needed
USEFUL_SWEEP = 0.1
#: the upper ends (ms) of the buckets `stats` counts the pauses in; the last is open
PAUSE_BUCKETS_MS = (1, 5, 20, 50, 200)
PAUSE_NAMES = (*(f"<{end}ms" for end in PAUSE_BUCKETS_MS), "more")


class CycleCollector:
    """The collector's schedule for a server process (see the module's text). `start`
    freezes what the process holds and turns automatic passes off; `stop` turns them on
    again (the frozen objects stay frozen)."""

    def __init__(self, tick: float = TICK, sweep_growth: float = SWEEP_GROWTH) -> None:
        if tick <= 0 or sweep_growth <= 0:
            raise ValueError("tick and sweep_growth must be positive")
        self.tick, self.sweep_growth = tick, sweep_growth
        self.passes = self.sweeps = 0
        self.pass_seconds = self.longest_pass = 0.0
        self.last_sweep_seconds = 0.0
        self.last_sweep_found = 0
        self.swept_blocks = sys.getallocatedblocks()  # after the last sweep (or the start)
        self.growth = sweep_growth  # the share the next sweep waits for
        self.pauses = [0] * (len(PAUSE_BUCKETS_MS) + 1)  # passes and sweeps, by duration
        self._task: asyncio.Task[None] | None = None
        self._was_enabled = True

    def start(self) -> None:
        """Freeze what the process holds now (modules, classes, the resumed games), turn
        automatic passes off, and make a pass every `tick` seconds from the running loop."""
        self._was_enabled = gc.isenabled()
        gc.collect()
        gc.freeze()
        gc.disable()
        self.swept_blocks = sys.getallocatedblocks()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="cycle collector")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._was_enabled:
            gc.enable()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            try:
                self.collect()
            except Exception:  # never the end of the schedule: the next tick tries again
                log.exception("cycle collector pass failed")

    def collect(self) -> int:
        """One pass over what is not frozen, its survivors frozen; a sweep instead when the
        allocated memory blocks have grown by `sweep_growth`. The objects collected."""
        if sys.getallocatedblocks() > self.swept_blocks * (1 + self.growth):
            return self.sweep()
        began = time.perf_counter()
        # the young generations only: with automatic passes off and every survivor frozen,
        # they hold all that is not frozen, so the pass sees what a full one would, without
        # a full pass's extras (emptying the free lists, untracking dicts): ~20 % less a pass
        found = gc.collect(YOUNG)
        gc.freeze()
        spent = time.perf_counter() - began
        self.passes += 1
        self.pass_seconds += spent
        self.longest_pass = max(self.longest_pass, spent)
        self._count_pause(spent)
        return found

    def _count_pause(self, seconds: float) -> None:
        ms = seconds * 1000
        self.pauses[next((k for k, end in enumerate(PAUSE_BUCKETS_MS) if ms < end), -1)] += 1

    def sweep(self) -> int:
        """Unfreeze, a full pass over everything, freeze again: collects the cycles that
        became garbage after they were frozen. The number of objects collected."""
        before = sys.getallocatedblocks()
        began = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        spent = time.perf_counter() - began
        self.sweeps += 1
        self.last_sweep_seconds, self.last_sweep_found = spent, found
        after = sys.getallocatedblocks()
        if before - after < USEFUL_SWEEP * (before - self.swept_blocks):  # the growth lives
            self.growth = min(2 * self.growth, MAX_SWEEP_GROWTH)
        else:
            self.growth = self.sweep_growth
        self.swept_blocks = after
        self._count_pause(spent)
        log.info(
            "cycle collector sweep: %.0f ms, %d objects collected, %d memory blocks in use",
            spent * 1000,
            found,
            self.swept_blocks,
        )
        return found

    def stats(self) -> dict[str, Any]:
        return {
            "passes": self.passes,
            "pass_ms_total": round(self.pass_seconds * 1000, 1),
            "longest_pass_ms": round(self.longest_pass * 1000, 2),
            "sweeps": self.sweeps,
            "last_sweep_ms": round(self.last_sweep_seconds * 1000, 1),
            "last_sweep_found": self.last_sweep_found,
            # not gc.get_freeze_count(): it walks every frozen object (0.1 s at 1,000 tables)
            "memory_blocks": sys.getallocatedblocks(),
            "memory_blocks_after_sweep": self.swept_blocks,
            "next_sweep_growth": self.growth,
            # passes and sweeps by how long the event loop stood still: under 1 ms, 1-5, ...
            "pauses": dict(zip(PAUSE_NAMES, self.pauses, strict=True)),
        }
