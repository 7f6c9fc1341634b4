"""A fast random-rollout evaluator for OpenSpiel's MCTS and IS-MCTS on the cardarena games.

``mcts.RandomRolloutEvaluator`` plays each rollout through pyspiel, one Python-game call (legal
ids, codec, apply) per decision; :class:`RolloutEvaluator` plays it on the engine itself, random
legal actions to the end, and returns the same place-based returns the registered games pay
(:func:`cardarena.research.pettingzoo.place_rewards`), several times faster. It takes the states
of :mod:`cardarena.research.openspiel` (``state.engine``); a ``turn_based`` sealed step that is
partly chosen is finished through pyspiel first, so the sealed choices already made are kept.
Rollouts ignore the game's ``max_game_length`` (the engines end by themselves).
"""
from __future__ import annotations

import random

import numpy as np

from .pettingzoo import place_rewards

__all__ = ["RolloutEvaluator"]


class RolloutEvaluator:
    """An MCTS / IS-MCTS evaluator (``evaluate``, ``prior``): the mean place-based return of
    ``n_rollouts`` random playouts from the state; a uniform prior over the legal ids."""

    def __init__(self, n_rollouts: int = 1, seed: int | None = None):
        self.n_rollouts = n_rollouts
        self._rng = random.Random(seed)

    def evaluate(self, state) -> np.ndarray:
        total = np.zeros(state.num_players())
        rng = self._rng
        for _ in range(self.n_rollouts):
            st = state.clone()
            # a sealed step asked seat by seat: its remaining seats choose through pyspiel
            while not st.is_terminal() and st.current_player() >= 0 and len(st.engine.to_act()) > 1:
                st.apply_action(rng.choice(st.legal_actions()))
            engine = st.engine  # the clone's own engine: played on directly
            while not engine.is_over():
                engine.apply({s: rng.choice(engine.legal_actions(s)) for s in engine.to_act()})
            total += place_rewards(engine.result())
        return total / self.n_rollouts

    def prior(self, state) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]
