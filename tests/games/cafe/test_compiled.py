"""The compiled engine (setup.py: `COFFEETABLE_COMPILE=1`, mypyc) plays exactly as the pure
Python it is compiled from: the step digests of `benchmarks/cafe_exactness.py --dump` (every
legal-action and search-action list, action, position JSON with the RNG, observation tensor,
scores) of this installation and of the same installation made to import `.py` files only.
The compiled bots' evaluations and beam decide exactly as theirs too: the step digests of
`benchmarks/bots_exactness.py --dump` (every seat's evaluation, the decisions of greedy,
wider, sampled and learned beams and of ISMCTS at iteration budgets, in Café and Coffee Rush).

Skipped when the engine is not compiled, unless `COFFEETABLE_REQUIRE_COMPILED=1`: then it fails.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import coffeetable.games.cafe.state as state_module

REQUIRE_ENV = "COFFEETABLE_REQUIRE_COMPILED"
BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
EXACTNESS = BENCHMARKS / "cafe_exactness.py"
BOTS_EXACTNESS = BENCHMARKS / "bots_exactness.py"

# run the exactness dump with coffeetable's modules imported from their `.py` files only (a
# path hook for the package's directories that knows no extension modules)
PURE = """
import importlib.machinery as m, importlib.util, os, runpy, sys
package = os.path.realpath(importlib.util.find_spec("coffeetable").submodule_search_locations[0])
def hook(path):
    real = os.path.realpath(path)
    if real != package and not real.startswith(package + os.sep):
        raise ImportError(path)
    return m.FileFinder(path, (m.SourceFileLoader, m.SOURCE_SUFFIXES))
sys.path_hooks.insert(0, hook)
sys.path_importer_cache.clear()
import coffeetable.games.cafe.state as s, coffeetable.bots.greedy as g
assert s.__file__.endswith(".py") and g.__file__.endswith(".py"), (s.__file__, g.__file__)
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))  # as `python script` does
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _compiled() -> bool:
    return not (state_module.__file__ or "").endswith(".py")


def _require_compiled() -> None:
    if not _compiled():
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {state_module.__file__} is not compiled")
        pytest.skip("the Café engine is not compiled (setup.py: COFFEETABLE_COMPILE=1)")


def _compiled_and_pure(script: Path) -> tuple[list[str], list[str]]:
    """`script --dump`'s lines, run on this installation and on its `.py` files only."""
    args = [str(script), "--dump", "--games", "1", "--seed", "3"]
    compiled = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=True, timeout=900
    ).stdout.splitlines()
    pure = subprocess.run(
        [sys.executable, "-c", PURE, *args], capture_output=True, text=True, check=True, timeout=900
    ).stdout.splitlines()
    return compiled, pure


def test_compiled_engine_plays_exactly_as_its_source() -> None:
    _require_compiled()
    compiled, pure = _compiled_and_pure(EXACTNESS)
    assert len(compiled) > 10_000  # 1 game in each of 18 configurations
    assert compiled == pure


def test_compiled_bots_decide_exactly_as_their_source() -> None:
    _require_compiled()
    compiled, pure = _compiled_and_pure(BOTS_EXACTNESS)
    assert len(compiled) > 1_000  # 1 game in each of 5 configurations, every step
    assert compiled == pure


def test_every_listed_module_is_compiled() -> None:
    """A compiled installation compiles every module of setup.py's `COMPILED` (deck.py too,
    whose cells a playout reads in every step)."""
    _require_compiled()
    setup = (Path(__file__).resolve().parents[3] / "setup.py").read_text()
    listed = ast.literal_eval(setup.split("COMPILED = ", 1)[1].split("]", 1)[0] + "]")
    assert "src/coffeetable/games/cafe/deck.py" in listed
    assert "src/coffeetable/bots/heuristics.py" in listed
    # the RL modules too, where what they import is installed (as in .ci/run)
    if all(importlib.util.find_spec(name) is not None for name in ("numpy", "gymnasium")):
        rl = ast.literal_eval(setup.split("COMPILED_RL = ", 1)[1].split("]", 1)[0] + "]")
        assert "src/coffeetable/rl/spaces.py" in rl
        listed += rl
    for path in listed:
        name = path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        assert not (module.__file__ or "").endswith(".py"), module.__file__
