"""benchmarks/_provenance.py: the commit that data files (bot-elo games, paired replays,
models) record. A run made with uncommitted changes to the code says so, since the commit
alone would name code that did not make the data (issue 41's replies-only games were played
with a patch applied on top of the commit they recorded)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _provenance_in(tree: Path) -> str:
    """`commit()` of a copy of _provenance.py placed in `tree`'s benchmarks/ folder."""
    spec = importlib.util.spec_from_file_location(
        "_provenance_copy", tree / "benchmarks" / "_provenance.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out: str = module.commit()
    return out


def _git(tree: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=tree, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_a_clean_tree_records_its_commit_and_a_changed_one_says_so(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    (tree / "benchmarks").mkdir(parents=True)
    (tree / "src").mkdir()
    shutil.copy(ROOT / "benchmarks" / "_provenance.py", tree / "benchmarks")
    (tree / "src" / "bot.py").write_text("X = 1\n")
    _git(tree, "init", "-q")
    _git(tree, "add", ".")
    _git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
    head = _git(tree, "rev-parse", "HEAD")
    assert _provenance_in(tree) == head
    # a file outside the code (a run's own output) changes nothing, new or committed (a
    # bot-elo run appends to its committed .jsonl while it plays)
    (tree / "benchmarks" / "games.jsonl").write_text("{}\n")
    assert _provenance_in(tree) == head
    (tree / "benchmarks" / "_provenance.py").write_text(
        (tree / "benchmarks" / "_provenance.py").read_text() + "\n"
    )
    assert _provenance_in(tree) == head
    # the code changed and not committed: the commit is not what made the data
    (tree / "src" / "bot.py").write_text("X = 2\n")
    assert _provenance_in(tree) == f"{head}+uncommitted"


def test_outside_a_checkout_the_commit_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "benchmarks").mkdir()
    shutil.copy(ROOT / "benchmarks" / "_provenance.py", tmp_path / "benchmarks")
    assert _provenance_in(tmp_path) == "unknown"
