"""Fixed action ids and observation tensors: what PettingZoo, OpenSpiel and most learners need.

A :class:`Codec` is made for one game, one player count and one set of options. It works on JSON
only, the very dicts a bot receives (``view(seat)`` and ``action_json(a)`` in-process, or
``decision.view`` and ``decision.actions`` over gRPC), so it can encode nothing a seat may not
know, and a policy trained in-process sees the same numbers when it plays in the arena.

The contract each game's codec keeps (tests/research checks it on every game and player count):
every action the game can ever offer has an id in ``range(num_actions)``; two legal actions of
one decision never share an id, and :meth:`Codec.pick` finds the legal action of an id;
``observe(view)`` is a finite float32 array of ``observation_shape``, its parts named by
``layout()``; ``mask(actions_json)`` is 1 exactly at the ids of the legal actions.

Game codecs are registered by game id in ``CODEC_MODULES`` (module ``cardarena.research.codec_<x>``
defines ``CODEC``, a class or a dict of them by game id); :func:`codec` makes one. The rewards of a
finished match, shared by the PettingZoo and OpenSpiel layers, are here too: :func:`place_rewards`
and :func:`score_rewards`.

Design notes and measurements: docs/research.md (spaces).
"""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from cardarena.server.games import Result, get as get_game

#: game id → module (in this package) that defines its codec class as ``CODEC``
CODEC_MODULES: dict[str, str] = {
    "sixth-card": "codec_sixth_card",
    "unsorted": "codec_unsorted",
    "scouting": "codec_show_scout",
    "scout": "codec_show_scout",
    "three-thirteen": "codec_three_thirteen",
}


class Codec(ABC):
    """Action ids and observation tensors of one game at one player count and set of options."""

    game_id: ClassVar[str] = ""

    def __init__(self, players: int, options: Mapping[str, Any] | None = None):
        cls = get_game(self.game_id)
        if not cls.min_players <= players <= cls.max_players:
            from cardarena.server.games import PlayerCountError
            raise PlayerCountError(f"{self.game_id} is for {cls.min_players}–{cls.max_players} players, not {players}")
        self.players = players
        self.options = cls.parse_options(options or {})

    # ----- actions ----------------------------------------------------------------------------
    num_actions: int

    @abstractmethod
    def action_id(self, action_json: Mapping) -> int:
        """The fixed id of an action, from its wire JSON (``game.action_json(a)``)."""

    @abstractmethod
    def action_json_of(self, action_id: int) -> dict:
        """The action JSON an id stands for (what :meth:`action_id` inverts). Fields that follow
        from the id alone; where a legal action's JSON carries more (the cards a block holds),
        use :meth:`pick` to find the legal action with that id."""

    def ids(self, actions_json: Sequence[Mapping]) -> list[int]:
        """The ids of a decision's legal actions, in their order."""
        return [self.action_id(a) for a in actions_json]

    def mask(self, actions_json: Sequence[Mapping]) -> np.ndarray:
        m = np.zeros(self.num_actions, dtype=np.int8)
        m[self.ids(actions_json)] = 1
        return m

    def pick(self, actions_json: Sequence[Mapping], action_id: int) -> int:
        """The index in ``actions_json`` of the legal action with id ``action_id``
        (:class:`ValueError` if none has it)."""
        for i, a in enumerate(actions_json):
            if self.action_id(a) == action_id:
                return i
        raise ValueError(f"{self.game_id}: action id {action_id} is not legal now")

    # ----- observations -----------------------------------------------------------------------
    observation_shape: tuple[int, ...]

    @abstractmethod
    def observe(self, view: Mapping) -> np.ndarray:
        """The view as a float32 array of :attr:`observation_shape`."""

    def _lay_out(self, parts: Sequence[tuple[str, int]]) -> None:
        """Set the tensor's parts, (name, length) in order: ``_parts``, ``_start`` (name → first
        index), ``size`` and ``observation_shape`` (one flat vector)."""
        self._parts = list(parts)
        self._start: dict[str, int] = {}
        at = 0
        for name, size in self._parts:
            self._start[name] = at
            at += size
        self.size = at
        self.observation_shape = (at,)

    def layout(self) -> list[tuple[str, int, int]]:
        """The tensor's parts as (name, start, length) over the flattened array, in order."""
        return [(name, self._start[name], size) for name, size in self._parts]


def codec(game_id: str, players: int, options: Mapping[str, Any] | None = None) -> Codec:
    """The codec of ``game_id`` at ``players`` seats with ``options``."""
    get_game(game_id)  # UnknownGame names the known ids
    mod = importlib.import_module(f"{__package__}.{CODEC_MODULES[game_id]}")
    return mod.CODEC[game_id](players, options) if isinstance(mod.CODEC, dict) else mod.CODEC(players, options)


# ----- rewards ---------------------------------------------------------------------------------

def place_rewards(result: Result) -> list[float]:
    """+1 for first … −1 for last, linear in the place; tied seats share the mean of the places
    they cover, so the rewards sum to 0 (a lone seat's table would get 0)."""
    n = len(result.places)
    if n == 1:
        return [0.0]
    out = []
    for p in result.places:
        tied = result.places.count(p)
        mean_place = p + (tied - 1) / 2  # competition places: the tie covers p … p + tied − 1
        out.append(1.0 - 2.0 * (mean_place - 1) / (n - 1))
    return out


def score_scale(game_id: str, options: Mapping[str, Any]) -> float:
    """What :func:`score_rewards` divides a final score by: about one whole match's score."""
    if game_id == "sixth-card":
        return float(options.get("end_score", 66))
    return {"three-thirteen": 100.0, "scout": 10.0, "scouting": 10.0}.get(game_id, 1.0)


def score_rewards(result: Result, scale: float) -> list[float]:
    """The final scores, higher is better (negated where fewer points win), divided by ``scale``."""
    sign = 1.0 if result.higher_is_better else -1.0
    return [sign * s / scale for s in result.scores]
