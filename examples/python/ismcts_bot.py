#!/usr/bin/env python3
"""OpenSpiel's IS-MCTS playing Sixth Card in the arena, through cardarena.client.policy.

Run it as the other example bots (it needs the research extra, pip install 'cardarena[research]'):

    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... python ismcts_bot.py

On each decision the adapter deals the cards this seat cannot see at random, consistently with
its view (cardarena.research.from_view), and hands the search that state of the game's
seat-by-seat OpenSpiel form (cardarena.research.seat_by_seat): IS-MCTS searches sequential
games only, so the sealed card choice (C4) is asked seat by seat, this seat first, each choice
held unseen until all have chosen. Each simulation re-deals the hidden cards
(resample_hidden) and plays random legal actions to the end (RolloutEvaluator); the answer is
the most visited action. CARDARENA_ISMCTS_SIMULATIONS (default 40: a few tenths of a second a
decision on one core for four seats) and CARDARENA_ISMCTS_SEED tune it. It plays Sixth Card
only (the game it can determinize), and says so in its hello for ladders.
"""
import os

import numpy as np

from cardarena.client import run
from cardarena.client.policy import policy_bot
from cardarena.research import seat_by_seat
from open_spiel.python.algorithms import ismcts

SIMULATIONS = int(os.environ.get("CARDARENA_ISMCTS_SIMULATIONS", "40"))
SEED = int(os.environ.get("CARDARENA_ISMCTS_SEED", "0"))


def make_bot(game):
    """An IS-MCTS bot for one OpenSpiel game (one player count and set of options)."""
    bot = ismcts.ISMCTSBot(game, seat_by_seat.RolloutEvaluator(1, SEED), uct_c=2.0,
                           max_simulations=SIMULATIONS, random_state=np.random.RandomState(SEED))
    bot.set_resampler(seat_by_seat.resampler)
    return bot


if __name__ == "__main__":
    run(policy_bot(make_bot, kind="openspiel", seed=SEED), games=("sixth-card",))
