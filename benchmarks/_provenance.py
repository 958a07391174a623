"""Shared by the benchmarks that write data files with provenance (train_value.py,
bot_elo.py, paired_replay.py): the code's commit."""

from __future__ import annotations

import pathlib
import subprocess


def commit() -> str:
    """The commit of the checkout these scripts are in, or "unknown"; with "+uncommitted"
    after it when the checkout's code (`src/`) has changes not committed, since the data was
    then not made by the commit alone."""
    here = pathlib.Path(__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], capture_output=True, text=True, check=True, cwd=here
        ).stdout.strip()

    try:
        head = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", "../src")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+uncommitted" if changed else head
