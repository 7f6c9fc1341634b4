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
shared two-core machine) and CARDARENA_ISMCTS_SEED tune it. It keeps time: each search stops
at a quarter of the decision's ``time_left`` (after two simulations at least), whatever the
simulations still to run, so a busy machine makes it search less, not answer late. It says Sixth Card
in its hello for ladders unless CARDARENA_GAMES names others (every game can be determinized
from a view, and has its OpenSpiel game).
"""
import os
import threading
import time

import numpy as np

from cardarena.client import run
from cardarena.client.policy import policy_bot
from cardarena.research.rollout import RolloutEvaluator
from open_spiel.python.algorithms import ismcts

SIMULATIONS = int(os.environ.get("CARDARENA_ISMCTS_SIMULATIONS", "40"))
SEED = int(os.environ.get("CARDARENA_ISMCTS_SEED", "0"))
#: The share of a decision's time_left its search may take: the rest is for dealing the unseen
#: cards, the answer's way back, and a machine busier than when the search began.
SHARE = 0.25

_deadline = threading.local()  # each decision's, in the thread that searches for it


class TimedISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's IS-MCTS, whose search stops at the decision's deadline (after two simulations
    at least: the first only expands the root) or after its simulations, whichever comes first."""

    def run_search(self, state):  # ismcts.ISMCTSBot.run_search, with the deadline
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline = getattr(_deadline, "at", float("inf"))
        for n in range(self._max_simulations):
            if n >= 2 and time.monotonic() >= deadline:
                break
            self.run_simulation(self.sample_root_state(state))
        if self._allow_inconsistent_action_sets:
            return self.get_final_policy(state, self.filter_illegals(self._root_node, state.legal_actions()))
        return self.get_final_policy(state, self._root_node)


def make_bot(game):
    """An IS-MCTS bot for one OpenSpiel game (one player count and set of options)."""
    return TimedISMCTSBot(game, RolloutEvaluator(1, SEED), uct_c=2.0, max_simulations=SIMULATIONS,
                          random_state=np.random.RandomState(SEED))


class Timed:
    """The policy bot, each decision's search given :data:`SHARE` of its ``time_left``."""

    def __init__(self, bot):
        self.bot = bot

    def on_start(self, match_start) -> None:
        self.bot.on_start(match_start)

    def on_end(self, match_end) -> None:
        self.bot.on_end(match_end)

    def decide(self, decision) -> int:
        _deadline.at = time.monotonic() + SHARE * decision.time_left
        return self.bot.decide(decision)


if __name__ == "__main__":
    games = {} if os.environ.get("CARDARENA_GAMES") else {"games": ("sixth-card",)}
    run(Timed(policy_bot(make_bot, kind="openspiel", seed=SEED)), **games)
