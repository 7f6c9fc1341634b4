"""The rules engines, one module per game, and the registry that finds them by game id.

Each game module defines one :class:`~cardarena.server.games.base.Game` subclass and names it
``GAME``. To register a game, add its module name to ``GAME_MODULES``.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from .base import (
    Event,
    Game,
    GameError,
    GameOptionError,
    IllegalAction,
    Option,
    PlayerCountError,
    Result,
)

GAME_MODULES: tuple[str, ...] = (
    "sixth_card",
    "scouting", "scout",
    "unsorted",
    "three_thirteen",
)

_registry: dict[str, type[Game]] | None = None


class UnknownGame(GameError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


def games() -> dict[str, type[Game]]:
    """Every registered game class by id, in registration order."""
    global _registry
    if _registry is None:
        reg: dict[str, type[Game]] = {}
        for name in GAME_MODULES:
            cls = importlib.import_module(f"{__name__}.{name}").GAME
            reg[cls.id] = cls
        _registry = reg
    return _registry


def get(game_id: str) -> type[Game]:
    """The game class for ``game_id``; :class:`UnknownGame` names the known ids otherwise."""
    try:
        return games()[game_id]
    except KeyError:
        raise UnknownGame(f"no game {game_id!r} (games: {', '.join(games())})") from None


def new_game(game_id: str, players: int, seed: int, options: Mapping[str, Any] | None = None) -> Game:
    return get(game_id)(players, seed, options)


__all__ = [
    "Event", "Game", "GameError", "GameOptionError", "IllegalAction", "Option",
    "PlayerCountError", "Result", "UnknownGame", "GAME_MODULES", "games", "get", "new_game",
]
