"""A node's pool of bot worker processes ends with the node, also when the node is killed
outright (SIGKILL) while a worker is busy with a long job: no orphaned process lives on."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

NODE = textwrap.dedent(
    """
    import asyncio, sys, time
    from coffeetable.server.jobs import PoolJobs

    async def main() -> None:
        jobs = PoolJobs(workers=2)
        pool = jobs._executor()
        # keep both workers busy with a long job, as a calibration or a review would be
        for _ in range(2):
            pool.submit(time.sleep, 600)
        while len(jobs.pids()) < 2:
            await asyncio.sleep(0.05)
        print(" ".join(map(str, jobs.pids())), flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
    """
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (ended, not yet reaped by init) counts as ended
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_workers_end_when_their_node_is_killed() -> None:
    node = subprocess.Popen([sys.executable, "-c", NODE], stdout=subprocess.PIPE, text=True)
    assert node.stdout is not None
    pids = [int(p) for p in node.stdout.readline().split()]
    try:
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        node.send_signal(signal.SIGKILL)
        node.wait(10)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in pids), f"orphaned workers: {pids}"
    finally:
        node.kill()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
