"""The lab-to-arena adapter (cardarena.client.policy) and the rollout evaluator its IS-MCTS
example uses (cardarena.research.rollout).

A PettingZoo-style policy sees exactly the dict cardarena.research.pettingzoo's environment
gives the agent at the same state; an OpenSpiel-style one sees a determinized state of the
registered game (turn-based: Sixth Card's sealed choice, C4, asked from the deciding seat) with
the seat's own information state; both answer with a legal index. Without numpy the client
still imports and the adapter says in one line what to install.
"""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from google.protobuf import struct_pb2
from open_spiel.python.algorithms import ismcts

from cardarena.client.policy import PolicyBot, ResearchExtraMissing, policy_bot
from cardarena.research import openspiel, spaces
from cardarena.research.pettingzoo import env as pz_env
from cardarena.research.rollout import RolloutEvaluator
from cardarena.server.games import games, new_game
from cardarena.server.match import RandomBot, play_match
from cardarena.v1 import referee_pb2 as pb


class WireDecision:
    """A decision as the SDK hands it to a bot: ids, the view and the actions as JSON."""

    def __init__(self, game, seat, match_id="m1"):
        self.match_id, self.game, self.seat = match_id, game.id, seat
        self.view = game.view(seat)
        self.actions = [game.action_json(a) for a in game.legal_actions(seat)]


def match_start(game_id, players, options, match_id="m1"):
    opts = struct_pb2.Struct()
    opts.update(options)  # numbers arrive as floats, as from the referee
    return pb.MatchStart(match_id=match_id, game=game_id, options=opts,
                         players=[pb.Player(seat=s, bot=f"b{s}") for s in range(players)])


def test_pettingzoo_policy_sees_the_environments_dict_and_its_id_becomes_the_index():
    """At the same seed and state the policy gets what env(...).observe(agent) gives the agent
    (the same keys, arrays and dtypes), and the id it returns is played as that action."""
    options = {"rounds": 1, "end_score": 44}
    e = pz_env("sixth-card", players=4, **options)
    e.reset(seed=7)
    game = new_game("sixth-card", 4, 7, options)
    seen = []

    def policy(obs):
        seen.append(obs)
        return int(np.flatnonzero(obs["action_mask"])[-1])  # the highest legal id

    bot = policy_bot(policy)
    bot.on_start(match_start("sixth-card", 4, {**options, "exact_cards": False, "decks": 0}))
    index = bot.decide(WireDecision(game, 0))
    want = e.observe("seat_0")
    assert set(seen[0]) == set(want) == {"observation", "action_mask"}
    for key in want:
        assert seen[0][key].dtype == want[key].dtype
        np.testing.assert_array_equal(seen[0][key], want[key])
    codec = spaces.codec("sixth-card", 4, options)
    actions = [game.action_json(a) for a in game.legal_actions(0)]
    assert index == len(actions) - 1 and codec.action_id(actions[index]) == max(codec.ids(actions))


def test_match_start_options_make_the_codec():
    """The options of match_start (floats from the Struct) reach the codec: end_score scales
    the totals, so another end score gives another observation."""
    game = new_game("sixth-card", 3, 2)
    while not (game.phase == "choose" and any(game.totals)):  # some penalty points on the table
        game.apply({s: game.legal_actions(s)[-1] for s in game.to_act()})
    seen = {}
    for end in (10, 66):
        def policy(obs, end=end):
            seen[end] = obs["observation"]
            return int(np.flatnonzero(obs["action_mask"])[0])

        bot = policy_bot(policy)
        bot.on_start(match_start("sixth-card", 3, {"end_score": end}))
        bot.decide(WireDecision(game, 1))
        (codec,) = bot._codecs.values()
        assert codec.options["end_score"] == end and isinstance(codec.options["end_score"], int)
    assert not np.array_equal(seen[10], seen[66])


def test_a_two_argument_policy_gets_observation_and_mask():
    calls = []

    def policy(observation, action_mask):
        calls.append((observation.shape, action_mask.dtype))
        return int(np.flatnonzero(action_mask)[0])

    game = new_game("sixth-card", 2, 0)
    assert policy_bot(policy).decide(WireDecision(game, 1)) == 0
    assert calls == [(spaces.codec("sixth-card", 2).observation_shape, np.int8)]


def test_an_illegal_id_is_an_error_not_another_action():
    """A policy's id that is not legal now raises (the SDK logs it and the referee plays the
    default action: a fault), never a silently corrected choice."""
    game = new_game("sixth-card", 2, 0)
    bot = policy_bot(lambda obs: int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(ValueError, match="not legal"):
        bot.decide(WireDecision(game, 0))


def test_a_policy_bot_plays_in_process_matches_too():
    """The same bot plays play_match (in-process decisions carry actions_json) with no fault."""
    bot = PolicyBot(lambda obs: int(np.flatnonzero(obs["action_mask"])[0]))
    record = play_match("sixth-card", [bot, RandomBot(1), RandomBot(2)], seed=3, options={"rounds": 1})
    assert record.faults == [] and record.result.places


class UniformPolicy:
    """An OpenSpiel-style policy (action_probabilities) that records the states it is shown."""

    def __init__(self):
        self.states = []

    def action_probabilities(self, state, player_id=None):
        self.states.append(state.clone())
        legal = state.legal_actions()
        return {a: 1.0 / len(legal) for a in legal}


def test_openspiel_policy_sees_a_determinized_state_with_the_seats_information():
    """The state an OpenSpiel policy is shown has the deciding seat to act, nothing sealed yet,
    and its information state is the real state's: the hidden cards differ, what the seat
    knows does not (from_view, then openspiel.state_for, turn-based)."""
    policy = UniformPolicy()
    bot = policy_bot(policy, kind="openspiel", seed=1)
    game = new_game("sixth-card", 4, 5)
    for seat in (2, 0):
        index = bot.decide(WireDecision(game, seat))
        state = policy.states[-1]
        real = openspiel.state_for(game.copy(), seat, turn_based=True)
        assert state.current_player() == seat
        assert state.information_state_string(seat) == real.information_state_string(seat)
        assert state.legal_actions() == real.legal_actions()
        assert 0 <= index < len(game.legal_actions(seat))
    assert policy.states[-1].engine.hands[1] != game.hands[1]  # the unseen cards were dealt anew


def test_ismcts_through_the_adapter_plays_a_whole_match():
    """OpenSpiel's ISMCTSBot, made once per game by a factory, answers every decision of Sixth
    Card matches (card choices and row choices, C7/C9) with a legal index, as it does in
    examples/python/ismcts_bot.py."""
    made = []

    def make(game):
        made.append(game)
        return ismcts.ISMCTSBot(game, RolloutEvaluator(1, 0), uct_c=2.0, max_simulations=8,
                                random_state=np.random.RandomState(0))

    bot = policy_bot(make, kind="openspiel", seed=0)
    for seed in (4, 5):
        record = play_match("sixth-card", [bot, RandomBot(1), bot], seed=seed, options={"rounds": 1})
        assert record.faults == [] and record.decisions >= 20
    assert len(made) == 1 and made[0].get_type().dynamics.name == "SEQUENTIAL"


def test_rollout_evaluator_keeps_the_sealed_choices_and_the_state():
    """From a turn-based state with a sealed card held (C4), every rollout ends the match:
    place-based returns summing to 0, in [−1, 1]; the state itself is not played on."""
    state = openspiel.state_for(new_game("sixth-card", 3, 6, {"rounds": 1}), 0, turn_based=True)
    state.apply_action(state.legal_actions()[0])  # seat 0's card, sealed
    before = str(state)
    values = RolloutEvaluator(5, seed=1).evaluate(state)
    assert values.shape == (3,) and abs(values.sum()) < 1e-9 and np.all(np.abs(values) <= 1)
    assert str(state) == before and state.current_player() == 1
    assert RolloutEvaluator().prior(state) == [(a, 1 / len(state.legal_actions())) for a in state.legal_actions()]


@pytest.mark.parametrize("game_id", list(games()))
def test_every_game_through_both_kinds(game_id):
    """On every game, along a random match: the PettingZoo kind's first observation is the
    environment's, and the OpenSpiel kind's state has the real state's information state for
    the deciding seat (determinize and state_for agree on every game)."""
    players = games()[game_id].min_players
    e = pz_env(game_id, players=players)
    e.reset(seed=3)
    game = new_game(game_id, players, 3)
    seen = []
    pz = policy_bot(lambda obs: seen.append(obs) or int(np.flatnonzero(obs["action_mask"])[0]))
    seat = game.to_act()[0]
    pz.decide(WireDecision(game, seat))
    np.testing.assert_array_equal(seen[0]["observation"], e.observe(f"seat_{seat}")["observation"])

    policy = UniformPolicy()
    spiel = policy_bot(policy, kind="openspiel", seed=2)
    rng = random.Random(1)
    for step in range(60):
        if game.is_over():
            break
        if step % 6 == 0:
            seat = game.to_act()[-1]
            spiel.decide(WireDecision(game, seat))
            real = openspiel.state_for(game.copy(), seat, turn_based=True)
            assert policy.states[-1].information_state_string(seat) == real.information_state_string(seat)
        game.apply({s: rng.choice(game.legal_actions(s)) for s in game.to_act()})
    assert len(policy.states) >= 5


def test_client_imports_without_numpy_and_the_adapter_names_the_extra():
    """Without numpy: cardarena.client, cardarena.client.policy and the CLI import; making a
    policy bot fails with one line naming pip install 'cardarena[research]'."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import cardarena.client, cardarena.client.policy, cardarena.server.cli\n"
        "from cardarena.client.policy import policy_bot, ResearchExtraMissing\n"
        "try:\n"
        "    policy_bot(lambda obs: 0)\n"
        "except ResearchExtraMissing as e:\n"
        "    print(e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    (line,) = r.stdout.splitlines()
    assert "pip install 'cardarena[research]'" in line and "numpy" in line


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="pettingzoo, openspiel"):
        policy_bot(lambda obs: 0, kind="gym")
    assert issubclass(ResearchExtraMissing, ImportError)
