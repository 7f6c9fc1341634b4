#!/usr/bin/env python3
"""OpenSpiel's IS-MCTS playing Sixth Card in the arena, through cardarena.client.policy.

Run it as the other example bots (it needs the research extra, pip install 'cardarena[research]'):

    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... python ismcts_bot.py

On each decision the adapter deals the cards this seat cannot see at random, consistently with
its view (cardarena.research.from_view), and hands the search that state of the registered
OpenSpiel game cardarena_sixth_card with turn_based=true (cardarena.research.openspiel):
IS-MCTS searches sequential games only, so the sealed card choice (C4) is asked seat by seat,
this seat first, each choice held unseen until all have chosen. Each simulation re-deals the
hidden cards (the state's resample_from_infostate: the engine's resample_hidden) and plays
random legal actions to the end on the engine (cardarena.research.rollout); the answer is the
most visited action. CARDARENA_ISMCTS_SIMULATIONS (default 40: about 0.1 s a
decision at four seats in a one-round game, 0.3 s at ten seats to 66 points, on this project's
shared two-core machine) and CARDARENA_ISMCTS_SEED tune it. It says Sixth Card
in its hello for ladders unless CARDARENA_GAMES names others (every game can be determinized
from a view, and has its OpenSpiel game).
"""
import os

import numpy as np

from cardarena.client import run
from cardarena.client.policy import policy_bot
from cardarena.research.rollout import RolloutEvaluator
from open_spiel.python.algorithms import ismcts

SIMULATIONS = int(os.environ.get("CARDARENA_ISMCTS_SIMULATIONS", "40"))
SEED = int(os.environ.get("CARDARENA_ISMCTS_SEED", "0"))


def make_bot(game):
    """An IS-MCTS bot for one OpenSpiel game (one player count and set of options)."""
    return ismcts.ISMCTSBot(game, RolloutEvaluator(1, SEED), uct_c=2.0, max_simulations=SIMULATIONS,
                            random_state=np.random.RandomState(SEED))


if __name__ == "__main__":
    games = {} if os.environ.get("CARDARENA_GAMES") else {"games": ("sixth-card",)}
    run(policy_bot(make_bot, kind="openspiel", seed=SEED), **games)
