"""The game registry."""

from __future__ import annotations

import pytest

from coffeetable.core import registry
from coffeetable.core.errors import CoffeetableError, UnknownGameError
from coffeetable.core.game import Game
from coffeetable.core.registry import find_game, game_names, register_game


def test_cafe_is_registered() -> None:
    assert "cafe" in game_names()
    game = find_game("cafe")
    assert isinstance(game, Game)
    assert game.info.name == "cafe"
    assert (game.info.min_players, game.info.max_players) == (1, 4)


def test_game_names_sorted() -> None:
    names = game_names()
    assert names == sorted(names)
    assert len(names) == len(set(names))


def test_lookup_ignores_case_and_spaces_and_is_cached() -> None:
    assert find_game(" Cafe ") is find_game("cafe")
    assert find_game("CAFE") is find_game("cafe")


@pytest.mark.parametrize("name", ["chess", "", "caf", "coffee rush!"])
def test_unknown_game(name: str) -> None:
    with pytest.raises(UnknownGameError) as info:
        find_game(name)
    message = str(info.value)
    assert repr(name) in message
    assert "cafe" in message  # lists the known games
    assert isinstance(info.value, CoffeetableError)
    assert isinstance(info.value, LookupError)


def test_register_game_by_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_CACHE", dict(registry._CACHE))
    register_game("cafe-copy", "coffeetable.games.cafe:CafeGame")
    assert "cafe-copy" in game_names()
    copy = find_game("cafe-copy")
    assert copy is not find_game("cafe")
    assert copy.info.name == "cafe"
    assert find_game("cafe-copy") is copy
    # registering again replaces the cached instance
    register_game("cafe-copy", "coffeetable.games.cafe:CafeGame")
    assert find_game("cafe-copy") is not copy


def test_registration_test_left_the_registry_alone() -> None:
    assert "cafe-copy" not in game_names()
