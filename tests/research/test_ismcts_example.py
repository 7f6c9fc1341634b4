"""examples/python/ismcts_bot.py keeps time: its search stops at a quarter of the decision's
``time_left`` whatever the simulations still to run, so a busy machine makes it search less,
not answer late. On the search's own clock of each decision: no time, two simulations (the
first only expands the root); plenty, all of them."""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from cardarena.research import openspiel
from cardarena.research.rollout import RolloutEvaluator

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "ismcts_bot.py"


def example():
    spec = importlib.util.spec_from_file_location("ismcts_bot", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_search_stops_at_the_deadline_and_not_before():
    ib = example()
    sampled = []

    class Counting(ib.TimedISMCTSBot):
        def sample_root_state(self, state):
            sampled.append(1)
            return super().sample_root_state(state)

    game = openspiel.load("sixth-card", 4, {"rounds": 1}, turn_based=True)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    bot = Counting(game, RolloutEvaluator(1, 0), uct_c=2.0, max_simulations=40,
                   random_state=np.random.RandomState(0))
    ib._deadline.at = time.monotonic()  # no time left
    assert bot.step(state) in state.legal_actions() and len(sampled) == 2
    sampled.clear()
    ib._deadline.at = time.monotonic() + 3600
    bot.step(state)
    assert len(sampled) == 40


def test_each_decision_gets_a_quarter_of_its_time_left():
    ib = example()
    before = time.monotonic()
    assert ib.Timed(SimpleNamespace(decide=lambda d: 7)).decide(SimpleNamespace(time_left=8.0)) == 7
    after = time.monotonic()
    assert before + 2.0 <= ib._deadline.at <= after + 2.0
