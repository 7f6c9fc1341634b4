#!/usr/bin/env python3
"""A PettingZoo-style policy as a bot: a tiny linear policy over the observation tensor.

The policy sees exactly what cardarena.research.pettingzoo's environment gives an agent,
{"observation": float32 array, "action_mask": int8 array}, and returns an action id; the adapter
(cardarena.client.policy) turns the decision's view into that dict and the id back into the
index of a legal action. Replace LinearPolicy by your trained one, unchanged. Needs the research
extra (pip install 'cardarena[research]'); plays every game.

    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... python policy_bot.py

CARDARENA_POLICY_WEIGHTS names a .npz file of weights by game ("sixth-card": an array of shape
(num_actions, observation size)); a game without weights gets random ones, seeded by
CARDARENA_POLICY_SEED (default 0).
"""
import os

import numpy as np

from cardarena.client import run
from cardarena.client.policy import policy_bot


class LinearPolicy:
    """The legal action id with the highest score ``weights @ observation``."""

    def __init__(self, weights: dict | None = None, seed: int = 0):
        self.weights = dict(weights or {})
        self.seed = seed

    def __call__(self, obs: dict) -> int:
        x, mask = obs["observation"].ravel(), obs["action_mask"]
        key = (mask.size, x.size)
        w = self.weights.get(key)
        if w is None:  # untrained: random weights for this game's spaces
            w = self.weights[key] = np.random.default_rng(self.seed).normal(size=key).astype(np.float32)
        scores = np.where(mask == 1, w @ x, -np.inf)
        return int(np.argmax(scores))


def load(path: str | None) -> dict:
    """Weights by (num_actions, observation size), from a .npz file of arrays by game id."""
    if not path:
        return {}
    with np.load(path) as f:
        return {f[name].shape: f[name] for name in f.files}


if __name__ == "__main__":
    policy = LinearPolicy(load(os.environ.get("CARDARENA_POLICY_WEIGHTS")),
                          int(os.environ.get("CARDARENA_POLICY_SEED", "0")))
    run(policy_bot(policy))
