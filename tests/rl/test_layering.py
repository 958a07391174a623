"""The research interface sits on top: nothing in the package imports `coffeetable.rl`, and
`rl` imports only core, the games and the bots (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parents[2] / "src" / "coffeetable"


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_nothing_imports_rl() -> None:
    for path in SRC.rglob("*.py"):
        if "rl" in path.relative_to(SRC).parts[:1]:
            continue
        assert not any(m.startswith("coffeetable.rl") for m in imports(path)), path


def test_rl_imports_core_games_and_bots_only() -> None:
    allowed = ("coffeetable.core", "coffeetable.games", "coffeetable.bots", "coffeetable.rl")
    for path in (SRC / "rl").rglob("*.py"):
        for module in imports(path):
            if module.startswith("coffeetable"):
                assert module.startswith(allowed), (path, module)


def test_observation_modules_import_core_and_their_game_only() -> None:
    for game in ("cafe", "coffee_rush"):
        path = SRC / "games" / game / "observation.py"
        for module in imports(path):
            if module.startswith("coffeetable"):
                assert module.startswith(("coffeetable.core", f"coffeetable.games.{game}"))
        others = SRC / "games" / game
        for other in others.glob("*.py"):
            if other.name != "observation.py":
                assert f"coffeetable.games.{game}.observation" not in imports(other)
