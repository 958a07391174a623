"""Shared by the benchmarks that write data files with provenance (train_value.py,
bot_elo.py): the code's commit."""

from __future__ import annotations

import pathlib
import subprocess


def commit() -> str:
    """The commit of the checkout these scripts are in, or "unknown"."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=pathlib.Path(__file__).resolve().parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
