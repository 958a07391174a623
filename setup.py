"""Optional compiled build of the Café engine's and the bots' hot modules with mypyc
(docs/architecture.md).

``pip install mypy` then `COFFEETABLE_COMPILE=1 pip install --no-build-isolation .`` compiles the modules in
COMPILED from the same sources (mypyc, part of mypy); CPython's import then picks the compiled
module over its `.py` file, so there is no second copy of the rules and no selection code.
Without the variable (the README's install, `pip install -e`) nothing is compiled. Without a C
compiler or Python's headers (python3-dev) the build warns and installs pure Python.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

# the modules a random playout spends its time in; each must stay mypyc-compatible (no
# `Cls.__new__(Cls)` without `__init__`, no ClassVar overridden in a dataclass subclass)
COMPILED = [
    "src/coffeetable/core/rng.py",
    "src/coffeetable/games/cafe/actions.py",
    "src/coffeetable/games/cafe/area.py",
    "src/coffeetable/games/cafe/deck.py",
    "src/coffeetable/games/cafe/state.py",
    # the bots' evaluations and the greedy beam, where a Café search spends most of its time
    # (ISMCTS's sweeps are greedy beams; docs/architecture.md). ismcts.py stays pure Python:
    # its tests replace its functions (monkeypatch), which a compiled module does not see
    "src/coffeetable/bots/heuristics.py",
    "src/coffeetable/bots/greedy.py",
]
# the RL environments' Café observations and action indices (docs/rl.md, "Benchmark"), when
# what they import is installed (the `rl` extra): mypyc type-checks a module against its
# imports, so without NumPy or Gymnasium (a server's install) it would fail the whole build
COMPILED_RL = [
    "src/coffeetable/games/cafe/observation.py",
    "src/coffeetable/rl/spaces.py",
    # Coffee Rush's kept observations. rl/aec.py and rl/solo.py stay pure Python: their
    # classes subclass PettingZoo's and Gymnasium's Python classes, which a native (mypyc)
    # class cannot do, and as non-native classes (`mypyc_attr(native_class=False)`) their
    # compiled methods refuse the Python subclasses cafe_v0 / coffee_rush_v0 as `self` and
    # have no signature for Gymnasium's `make` and `check_env` (docs/rl.md, "Benchmark")
    "src/coffeetable/games/coffee_rush/observation.py",
]
RL_IMPORTS = ("numpy", "gymnasium")


def _extensions() -> list[object]:
    if os.environ.get("COFFEETABLE_COMPILE") != "1":
        return []
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    missing = []
    if not headers.exists():
        missing.append(f"Python's headers ({headers}; Debian/Ubuntu: python3-dev)")
    if shutil.which(compiler) is None:
        missing.append(f"a C compiler ({compiler})")
    try:
        from mypyc.build import mypycify
    except ImportError:
        missing.append("mypyc (pip install mypy, then --no-build-isolation)")
    if missing:
        print(
            "COFFEETABLE_COMPILE=1: installing pure Python, missing " + ", ".join(missing),
            file=sys.stderr,
        )
        return []
    modules = COMPILED.copy()
    if all(importlib.util.find_spec(name) is not None for name in RL_IMPORTS):
        modules += COMPILED_RL
    return list(mypycify(modules, opt_level="3"))


setup(ext_modules=_extensions())
