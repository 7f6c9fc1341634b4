"""Pickling: OpenSpiel games and states, PettingZoo environments and policy bots cross a pickle
(multiprocessing, Ray, checkpoints) and play on exactly as the originals would.

OpenSpiel's own ``random_sim_test`` with ``serialize=True`` (SerializeGameAndState and back at
the first steps and every power of two) on every game at every player count, turn-based too;
states unpickled mid-game (before the deal, mid-match, with a sealed choice held, around an
engine of ``state_for``) showing the same legal ids, tensors, strings, returns and history to
the end; environments unpickled mid-episode (AEC, wrapped and raw, and parallel); policy bots
(PettingZoo kind, and OpenSpiel kind with IS-MCTS made by a factory) answering the same; and a
state and an environment played on in a spawned worker process as in this one.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts

from cardarena.client.policy import policy_bot
from cardarena.research import openspiel as rs
from cardarena.research.pettingzoo import env, parallel_env, raw_env
from cardarena.research.rollout import RolloutEvaluator
from cardarena.server.games import games, new_game
from cardarena.server.match import RandomBot, play_match

#: options that keep a match short
SHORT = {"sixth-card": {"rounds": 1}, "three-thirteen": {"rounds": 1}, "unsorted": {"max_deals": 1},
         "scouting": {}, "scout": {}}
#: random_sim_test's games cut at this many decisions (a draw): it serializes at steps 1–9, 16,
#: 32 and 64, so the cut keeps every table to a fraction of a second
SIM_LENGTH = 100


def _sim_cases():
    for game_id, cls in games().items():
        for players in range(cls.min_players, cls.max_players + 1):
            yield pytest.param(game_id, players, False, id=f"{game_id}-{players}")
            if game_id in rs.SIMULTANEOUS_GAMES:
                yield pytest.param(game_id, players, True, id=f"{game_id}-{players}-turn_based")


@pytest.mark.parametrize("game_id,players,turn_based", list(_sim_cases()))
def test_random_sim_test_serializes(game_id, players, turn_based):
    """OpenSpiel's API test with serialization, as its own python_kuhn_poker passes it."""
    game = rs.load(game_id, players, SHORT[game_id], seeds=20, turn_based=turn_based,
                   max_game_length=SIM_LENGTH)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# ----- games and states ------------------------------------------------------------------------

def _trace(state: pyspiel.State, seed: int, steps: int | None = None) -> list:
    """Plays ``state`` on with random legal ids drawn from ``seed`` (``steps`` decisions, or to
    the end) and returns what it showed at each step: the player, the legal ids, the tensor and
    string of the seats to act, the rewards and returns; then the returns, the history and the
    whole state."""
    rng = random.Random(seed)
    trace = []
    while not state.is_terminal() and steps != 0:
        player = state.current_player()
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            trace.append((player, len(outcomes)))
            state.apply_action(rng.choice(outcomes))
            continue
        seats = range(state.num_players()) if state.is_simultaneous_node() else [player]
        legal = [state.legal_actions(s) for s in seats]
        trace.append((player, legal, [state.observation_tensor(s) for s in seats],
                      [state.information_state_string(s) for s in seats], state.rewards(), state.returns()))
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice(ids) for ids in legal])
        else:
            state.apply_action(rng.choice(legal[0]))
        steps = None if steps is None else steps - 1
    trace.append((state.returns(), state.history(), str(state), state.is_terminal()))
    return trace


def _round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


STATE_CASES = [("sixth-card", 3, False), ("sixth-card", 4, True), ("three-thirteen", 2, False),
               ("unsorted", 3, False), ("scouting", 3, False), ("scout", 3, False), ("scout", 3, True)]


@pytest.mark.parametrize("game_id,players,turn_based", STATE_CASES)
def test_a_state_unpickled_mid_game_plays_on_identically(game_id, players, turn_based):
    """Pickled before the deal and after 1, 5 and 9 decisions, a state and its copy show the
    same legal ids, tensors, strings and returns at every step to the end, and the same history
    and state; the copy belongs to the same game."""
    game = rs.load(game_id, players, SHORT[game_id], seeds=20, turn_based=turn_based)
    state = game.new_initial_state()
    for steps in (0, 1, 4, 4):
        _trace(state, 100 + steps, steps)
        assert not state.is_terminal()
        copy = _round_trip(state)
        assert type(copy) is rs.CardArenaState and copy.get_game() is game
        assert copy.history() == state.history() and str(copy) == str(state)
        assert _trace(copy, 7) == _trace(state.clone(), 7)


def test_a_sealed_choice_stays_sealed_and_held_across_a_pickle():
    """Turn-based Sixth Card (C4) with seat 0's card sealed: the copy still hides it from seat 1
    and reveals it with seat 1's choice, as the original does."""
    state = rs.load("sixth-card", 2, SHORT["sixth-card"], seeds=20, turn_based=True).new_initial_state()
    state.apply_action(4)
    state.apply_action(state.legal_actions()[0])
    copy = _round_trip(state)
    assert copy.current_player() == 1 and copy.observation_string(1) == state.observation_string(1)
    assert "chosen:" in copy.observation_string(0)
    for s in (state, copy):
        s.apply_action(s.legal_actions()[-1])
    assert str(copy) == str(state) and copy.engine.view(0) == state.engine.view(0)


def test_a_state_of_state_for_pickles_its_engine_and_lead():
    """A state around an engine of its own (no history: the arena adapter's) pickles the engine
    itself and the seat its sealed step asks first."""
    state = rs.state_for(new_game("sixth-card", 3, 8, {"rounds": 1}), lead=2, turn_based=True)
    copy = _round_trip(state)
    assert copy.history() == [] and copy.current_player() == 2
    assert copy.engine is not state.engine and copy.engine.state_json() == state.engine.state_json()
    assert _trace(copy, 3) == _trace(state, 3)


def test_a_game_unpickled_equals_the_original_and_is_loaded_once():
    """Same name and parameters, the same first state; unpickled through load's cache, so it is
    the loaded object. The class of every game is found by pickle under its name."""
    game = rs.load("three-thirteen", 3, {"rounds": 2}, seeds=30)
    copy = _round_trip(game)
    assert copy == game and copy is game and copy.get_parameters() == game.get_parameters()
    direct = pyspiel.load_game("cardarena_three_thirteen", {"players": 3, "rounds": 2, "seeds": 30})
    assert direct is not game and _round_trip(direct) is game
    assert str(copy.new_initial_state().child(5)) == str(game.new_initial_state().child(5))
    for game_id in games():
        cls = type(rs.load(game_id, games()[game_id].min_players))
        assert getattr(rs, cls.__name__) is cls and _round_trip(cls) is cls


def test_openspiel_serialize_game_and_state_round_trips():
    """OpenSpiel's own form (what random_sim_test checks): the state deserialized into a newly
    loaded game takes that game as its own."""
    game = rs.load("unsorted", 4, SHORT["unsorted"], seeds=20)
    state = game.new_initial_state()
    _trace(state, 1, 12)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert game2 == game and state2.get_game() is game2 and state2._game is game2
    assert _trace(state2, 4) == _trace(state, 4)


# ----- PettingZoo --------------------------------------------------------------------------------

def _episode(e, seed: int, steps: int | None = None) -> list:
    """Plays the AEC environment on with random legal ids from ``seed`` (``steps`` steps or to the
    end): what ``last()`` showed each agent selected, and every agent's rewards."""
    rng = random.Random(seed)
    out = []
    for agent in e.agent_iter(2**63 if steps is None else steps):
        obs, reward, terminated, truncated, info = e.last()
        out.append((agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward, terminated,
                    dict(e.rewards)))
        e.step(None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return out


@pytest.mark.parametrize("game_id,players", [("sixth-card", 4), ("three-thirteen", 2), ("unsorted", 3),
                                             ("scouting", 3), ("scout", 3)])
def test_an_environment_unpickled_mid_episode_plays_on_identically(game_id, players):
    """The wrapped AEC environment (env) pickled mid-episode, in Sixth Card mid sealed step
    (C4: seats 0 and 1 chose): the same observations, masks, rewards and terminations to the
    end; then the same next match from reset() without a seed (its seed generator kept)."""
    e = env(game_id, players=players, render_mode="ansi", **SHORT[game_id])
    e.reset(seed=11)
    _episode(e, 5, 2 if game_id == "sixth-card" else 9)
    copy = _round_trip(e)
    assert copy.agent_selection == e.agent_selection and copy.render() == e.render()
    assert _episode(copy, 6) == _episode(e, 6)
    for x in (e, copy):
        x.reset()
    assert _episode(copy, 7, 20) == _episode(e, 7, 20)


def test_an_unpickled_environment_keeps_its_arrays_read_only_and_its_spaces():
    """Observations and masks are made anew after unpickling, read-only as the module promises;
    the spaces (and their generators) are kept."""
    e = raw_env("scout", players=4)
    e.reset(seed=2)
    e.action_space("seat_0").seed(9)
    before = {a: e.observe(a) for a in e.agents}
    copy = _round_trip(e)
    for agent in copy.agents:
        obs = copy.observe(agent)
        assert not obs["observation"].flags.writeable and not obs["action_mask"].flags.writeable
        np.testing.assert_array_equal(obs["observation"], before[agent]["observation"])
        np.testing.assert_array_equal(obs["action_mask"], before[agent]["action_mask"])
    assert [copy.action_space("seat_0").sample() for _ in range(5)] == \
        [e.action_space("seat_0").sample() for _ in range(5)]


def test_a_parallel_environment_unpickled_mid_episode_plays_on_identically():
    """Sixth Card's parallel environment, pickled before its first step and after three: the
    same observations, rewards and terminations to the end."""
    def step(p, rng):  # a random legal id from each seat to act (the others' are ignored)
        return p.step({a: rng.choice(np.flatnonzero(p.aec.observe(a)["action_mask"]).tolist() or [0])
                       for a in p.agents})

    def play(p, seed):
        rng = random.Random(seed)
        out = []
        while p.agents:
            obs, rewards, terms, truncs, _ = step(p, rng)
            out.append(([o["observation"].tolist() for o in obs.values()], rewards, terms))
        return out

    p = parallel_env("sixth-card", players=5, **SHORT["sixth-card"])
    p.reset(seed=3)
    copy = _round_trip(p)  # before the first step
    assert play(copy, 2) == play(p, 2)
    p.reset(seed=4)
    rng = random.Random(1)
    for _ in range(3):
        step(p, rng)
    copy = _round_trip(p)
    assert copy.observation_spaces is copy.aec.observation_spaces
    assert play(copy, 5) == play(p, 5)


# ----- policy bots -------------------------------------------------------------------------------

class LinearPolicy:
    """A PettingZoo-style policy with a generator of its own: the highest-scoring legal id."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.weights: dict = {}

    def __call__(self, obs):
        x, mask = obs["observation"], obs["action_mask"]
        if mask.size not in self.weights:
            self.weights[mask.size] = self.rng.normal(size=(mask.size, x.size))
        return int(np.argmax(np.where(mask == 1, self.weights[mask.size] @ x + self.rng.normal(), -np.inf)))


class SeededResampler:
    """IS-MCTS's resampling from a generator of its own (by default it draws from an unseeded
    pyspiel.UniformProbabilitySampler, so two searches of one state may differ)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def __call__(self, state, player):
        return state.resample_from_infostate(player, self.rng.random)


def make_ismcts(game):
    """An IS-MCTS bot as examples/python/ismcts_bot.py makes one, its resampling seeded."""
    bot = ismcts.ISMCTSBot(game, RolloutEvaluator(1, 0), uct_c=2.0, max_simulations=6,
                           random_state=np.random.RandomState(0))
    bot.set_resampler(SeededResampler(0))
    return bot


def _answers(bot, game_id: str, players: int, seed: int, decisions: int) -> list[int]:
    """The bot's answers for every seat along a random match of ``seed``."""
    game = new_game(game_id, players, seed, SHORT[game_id])
    rng = random.Random(seed)
    answers = []
    while not game.is_over() and len(answers) < decisions:
        for seat in game.to_act():
            answers.append(bot.decide(_Decision(game, seat)))
        game.apply({s: rng.choice(game.legal_actions(s)) for s in game.to_act()})
    return answers


class _Decision:
    """A decision as the SDK hands it to a bot."""

    def __init__(self, game, seat):
        self.match_id, self.game, self.seat = "m", game.id, seat
        self.view = game.view(seat)
        self.actions = [game.action_json(a) for a in game.legal_actions(seat)]


@pytest.mark.parametrize("kind", ["pettingzoo", "openspiel"])
def test_a_policy_bot_unpickled_answers_as_the_original(kind):
    """After some decisions (so the OpenSpiel kind has made its IS-MCTS bot and both generators
    have moved), the bot and its copy answer the next decisions the same."""
    policy = LinearPolicy(3) if kind == "pettingzoo" else make_ismcts
    bot = policy_bot(policy, kind=kind, seed=5)
    _answers(bot, "sixth-card", 3, 1, 4)
    copy = _round_trip(bot)
    assert _answers(copy, "sixth-card", 3, 2, 12) == _answers(bot, "sixth-card", 3, 2, 12)
    if kind == "openspiel":  # the bot made for the game, its game the one loaded here
        (made,), (original,) = copy._policies.values(), bot._policies.values()
        assert isinstance(made, ismcts.ISMCTSBot) and made is not original and made._game is original._game


def test_an_openspiel_bot_object_as_the_policy_stays_one_object():
    """A bot given as the policy itself (not a factory) is the policy and the bot made for the
    game after unpickling too, and a fresh policy bot pickles before any match."""
    game = rs.load("sixth-card", 3, SHORT["sixth-card"], turn_based=True)
    bot = policy_bot(make_ismcts(game), kind="openspiel", seed=1)
    _answers(bot, "sixth-card", 3, 1, 2)
    copy = _round_trip(bot)
    (made,) = copy._policies.values()
    assert made is copy.policy and isinstance(made, ismcts.ISMCTSBot)
    fresh = _round_trip(policy_bot(make_ismcts, kind="openspiel", seed=1))
    record = play_match("sixth-card", [fresh, RandomBot(1), RandomBot(2)], seed=3,
                        options=SHORT["sixth-card"])
    assert record.faults == []


# ----- another process ---------------------------------------------------------------------------

def _play_in_worker(state, e) -> tuple[int, list, list]:
    """Run in the spawned worker: the state and the environment played on to the end."""
    return os.getpid(), _trace(state, 21), _episode(e, 22)


def test_a_state_and_an_environment_play_on_in_a_spawned_process():
    """Sent to a fresh interpreter (spawn: nothing inherited, the modules the pickle names are
    imported there, registering the games), a mid-game state and a mid-episode environment play
    on as they do here."""
    state = rs.load("scout", 3, seeds=20, turn_based=True).new_initial_state()
    _trace(state, 1, 15)
    e = env("three-thirteen", players=3, **SHORT["three-thirteen"])
    e.reset(seed=4)
    _episode(e, 2, 10)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        pid, *there = pool.apply(_play_in_worker, (state, e))
    assert pid != os.getpid() and there == [_trace(state, 21), _episode(e, 22)]
