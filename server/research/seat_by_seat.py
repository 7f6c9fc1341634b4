"""A game in its sequential seat-by-seat form, as an OpenSpiel game: what IS-MCTS can search.

OpenSpiel's IS-MCTS (``open_spiel/python/algorithms/ismcts.py``) asserts a game of
``SEQUENTIAL`` dynamics, one player at a time. Sixth Card's card choice is sealed and
simultaneous (C4): every seat chooses, nothing is revealed until all have. The seat-by-seat
form keeps the rules and what each seat knows and changes only the order of asking:

* a step where the engine's ``to_act()`` names several seats is asked one seat after another,
  starting at the state's ``lead`` seat and going left (``lead``, ``lead + 1`` … mod the
  number of seats, skipping seats not to act); each choice is held, sealed, and the engine
  applies them all together when the last seat has chosen;
* a seat's information state is its engine ``view(seat)`` plus its own held choice, never the
  others': a seat asked later in the step knows no more than one asked first, so the order
  changes nothing a seat can know.

A state made for a decision of seat ``s`` (:meth:`SeatBySeatGame.state_of` with ``lead=s``)
therefore has ``s`` to act, with no choice held yet, which is exactly the position of a seat
answering the referee's sealed decision.

Actions are the fixed action ids of the game's :mod:`~cardarena.research.spaces` codec.
Chance stays inside the engine (its seeded generator deals every round), so the game declares
``SAMPLED_STOCHASTIC`` chance and no chance nodes. Returns are the place-based rewards of
:func:`cardarena.research.pettingzoo.place_rewards` (+1 first … −1 last, ties share; zero-sum).
:meth:`SeatBySeatState.resample_from_infostate` re-deals the hidden cards with the engine's
``resample_hidden(seat)`` and draws the other seats' held choices afresh (uniformly among their
legal actions), so every resampled state has the same information state for that seat;
:func:`resampler` gives it in the form ``ISMCTSBot.set_resampler`` takes.

Any engine works; the games are not registered with ``pyspiel.register_game`` (the registered
``cardarena_<id>`` games, with their real simultaneous dynamics, are
:mod:`cardarena.research.openspiel`'s). :func:`game` makes one for a game id, player count and
options.
"""
from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from cardarena.server.games import Game, new_game

from . import spaces
from .pettingzoo import place_rewards

__all__ = ["RolloutEvaluator", "SeatBySeatGame", "SeatBySeatState", "game", "resampler"]

#: far above any real match (Sixth Card to 66 points with ten seats: some thousand steps)
MAX_GAME_LENGTH = 100_000


class SeatBySeatGame(pyspiel.Game):
    """An engine game, one player count and set of options, in the seat-by-seat form."""

    def __init__(self, game_id: str, players: int, options: Mapping[str, Any] | None = None,
                 seed: int | None = None):
        self.codec = spaces.codec(game_id, players, options)
        self.game_id, self.players, self.options = game_id, players, self.codec.options
        self._seeds = random.Random(seed)
        name = f"cardarena_{game_id.replace('-', '_')}_seat_by_seat"
        game_type = pyspiel.GameType(
            short_name=name, long_name=f"cardarena {game_id}, seat by seat",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=players, min_num_players=players,
            provides_information_state_string=True, provides_information_state_tensor=True,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification={})
        info = pyspiel.GameInfo(num_distinct_actions=self.codec.num_actions, max_chance_outcomes=0,
                                num_players=players, min_utility=-1.0, max_utility=1.0,
                                utility_sum=0.0, max_game_length=MAX_GAME_LENGTH)
        super().__init__(game_type, info, {})

    def new_initial_state(self, engine: Game | None = None, lead: int = 0) -> "SeatBySeatState":
        """A new match (seeded from the game's generator), or the state of ``engine``."""
        if engine is None:
            engine = new_game(self.game_id, self.players, self._seeds.getrandbits(62), self.options)
        return SeatBySeatState(self, engine, lead)

    def state_of(self, engine: Game, seat: int) -> "SeatBySeatState":
        """The state of ``engine`` with ``seat`` asked first in a sealed step (a copy is kept)."""
        return SeatBySeatState(self, engine.copy(), seat)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self, iig_obs_type)


class SeatBySeatState(pyspiel.State):
    """An engine game and the choices held in the current sealed step."""

    def __init__(self, game: SeatBySeatGame, engine: Game, lead: int = 0,
                 held: dict[int, Any] | None = None):
        super().__init__(game)
        self._shared = _Shared(game)
        self._engine = _Engine(engine)
        self.lead = lead
        self.held: dict[int, Any] = dict(held or {})
        self._rng = random.Random(engine.seed ^ lead)

    @property
    def _game(self) -> SeatBySeatGame:
        return self._shared.game

    @property
    def engine(self) -> Game:
        return self._engine.game

    # ----- whose turn, what is legal -------------------------------------------------------
    def current_player(self) -> int:
        if self.engine.is_over():
            return pyspiel.PlayerId.TERMINAL
        seats = self.engine.to_act()
        if len(seats) == 1:
            return seats[0]
        n = self._game.players
        return min((s for s in seats if s not in self.held), key=lambda s: (s - self.lead) % n)

    def _legal(self, player: int) -> tuple[list, list[dict]]:
        actions = self.engine.legal_actions(player)
        return actions, [self.engine.action_json(a) for a in actions]

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._game.codec.ids(self._legal(player)[1]))

    def _apply_action(self, action_id: int) -> None:
        player = self.current_player()
        actions, wire = self._legal(player)
        action = actions[self._game.codec.pick(wire, action_id)]
        seats = self.engine.to_act()
        if len(seats) == 1:
            self.engine.apply({player: action})
            return
        self.held[player] = action
        if len(self.held) == len(seats):  # the last sealed choice: all revealed together
            held, self.held = self.held, {}
            self.engine.apply(held)

    def _action_to_string(self, player: int, action_id: int) -> str:
        return json.dumps(self._game.codec.action_json_of(action_id), ensure_ascii=False)

    def is_terminal(self) -> bool:
        return self.engine.is_over()

    def returns(self) -> list[float]:
        if not self.engine.is_over():
            return [0.0] * self._game.players
        return place_rewards(self.engine.result())

    # ----- information, copies, resampling ------------------------------------------------
    def information_string(self, player: int) -> str:
        """The seat's view and its own held choice (if any) as text."""
        held = self.held.get(player)
        own = json.dumps(self.engine.action_json(held), ensure_ascii=False) if held is not None else "-"
        return f"{json.dumps(self.engine.view(player), ensure_ascii=False, sort_keys=True)} held {own}"

    def resample_from_infostate(self, player: int, sampler=None) -> "SeatBySeatState":
        """A state with the same information state for ``player``: hidden cards re-dealt by the
        engine, the other seats' held choices drawn again among their legal actions."""
        engine = self.engine.resample_hidden(player, self._rng)
        held = {s: (a if s == player else self._rng.choice(engine.legal_actions(s)))
                for s, a in self.held.items()}
        return SeatBySeatState(self._game, engine, self.lead, held)

    def __str__(self) -> str:
        return json.dumps({"state": self.engine.state_json(), "held": sorted(self.held)},
                          ensure_ascii=False, sort_keys=True)


class _Shared:
    """What every copy of a state shares: pyspiel's ``clone()`` deep-copies a Python state's
    attributes, and the game (with its codec) is the same for all of them."""

    def __init__(self, game: SeatBySeatGame):
        self.game = game

    def __deepcopy__(self, memo) -> "_Shared":
        return self


class _Engine:
    """The engine game of a state, deep-copied by the engine's own (fast) ``copy()``."""

    def __init__(self, game: Game):
        self.game = game

    def __deepcopy__(self, memo) -> "_Engine":
        return _Engine(self.game.copy())


class _Observer:
    """Strings: :meth:`SeatBySeatState.information_string`; tensors: the codec's observation of
    the view, then a one-hot of the seat's own held action id."""

    def __init__(self, game: SeatBySeatGame, iig_obs_type):
        self._codec = game.codec
        size = int(np.prod(game.codec.observation_shape))
        self.tensor = np.zeros(size + game.codec.num_actions, np.float32)
        self.dict = {"observation": self.tensor[:size], "held": self.tensor[size:]}

    def set_from(self, state: SeatBySeatState, player: int) -> None:
        self.dict["observation"][:] = self._codec.observe(state.engine.view(player)).ravel()
        self.dict["held"][:] = 0
        held = state.held.get(player)
        if held is not None:
            self.dict["held"][self._codec.action_id(state.engine.action_json(held))] = 1

    def string_from(self, state: SeatBySeatState, player: int) -> str:
        return state.information_string(player)


def game(game_id: str, players: int, options: Mapping[str, Any] | None = None,
         seed: int | None = None) -> SeatBySeatGame:
    """The seat-by-seat OpenSpiel game of ``game_id`` at ``players`` seats with ``options``."""
    return SeatBySeatGame(game_id, players, options, seed)


def resampler(state: SeatBySeatState, player: int) -> SeatBySeatState:
    """``ISMCTSBot.set_resampler(resampler)``: :meth:`SeatBySeatState.resample_from_infostate`."""
    return state.resample_from_infostate(player)


class RolloutEvaluator:
    """An IS-MCTS / MCTS evaluator (``evaluate``, ``prior``) that plays random legal actions on
    the engine itself to the end, ``n_rollouts`` times, and averages the place-based returns:
    the same values as ``mcts.RandomRolloutEvaluator`` on this game, without a pyspiel call
    per step (several times faster)."""

    def __init__(self, n_rollouts: int = 1, seed: int | None = None):
        self.n_rollouts = n_rollouts
        self._rng = random.Random(seed)

    def evaluate(self, state: SeatBySeatState) -> np.ndarray:
        total = np.zeros(state.num_players())
        choice = self._rng.choice
        for _ in range(self.n_rollouts):
            engine = state.engine.copy()
            held = state.held
            while not engine.is_over():
                engine.apply({s: held[s] if s in held else choice(engine.legal_actions(s))
                              for s in engine.to_act()})
                held = {}
            total += place_rewards(engine.result())
        return total / self.n_rollouts

    def prior(self, state: SeatBySeatState) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]
