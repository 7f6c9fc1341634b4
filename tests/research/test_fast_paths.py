"""The research layers' shortcuts give what the long way gives (docs/research.md, Speed).

What each layer keeps between calls is never served stale: after every step, every agent's
PettingZoo observation and mask are the codec's of a view and legal actions made anew, and every
OpenSpiel state answers its legal ids, tensors and player as pyspiel's own C++ path does. The
codecs' three forms of a tensor (``observe``, ``observe_into``, ``tensor_list``) are one tensor,
and the ids remembered per engine action are the ids of their JSON. ``env()``'s wrappers play as
PettingZoo's own three do, and an agent's action space samples exactly as gymnasium's
``Discrete`` does, from the same generator.
"""
from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest
from gymnasium import spaces as gym_spaces
from pettingzoo.utils import wrappers

from cardarena.research import openspiel as rs
from cardarena.research import spaces
from cardarena.research.pettingzoo import ActionSpace, env, raw_env
from cardarena.server.games import games, new_game

#: options that keep a match short
SHORT = {"sixth-card": {"rounds": 1}, "three-thirteen": {"rounds": 1}, "unsorted": {"max_deals": 1},
         "scouting": {}, "scout": {}}
#: a table of each game, and Sixth Card with two decks (twins: counted copies) and a sealed step
TABLES = [("sixth-card", 4), ("sixth-card", 6), ("three-thirteen", 4), ("three-thirteen", 5),
          ("unsorted", 3), ("scouting", 4), ("scout", 3)]


def _fresh_mask(codec, game, seat):
    return codec.mask([game.action_json(a) for a in game.legal_actions(seat)])


@pytest.mark.parametrize("game_id,players", TABLES)
def test_every_observation_and_mask_is_made_anew_after_each_step(game_id, players):
    """At every step, every agent's observation equals the codec's of a view made now, and its
    mask the codec's of the legal actions now (all 0 for a seat not to choose, or one that chose
    in this sealed step): the environment's per-step caches never serve an earlier step's."""
    e = raw_env(game_id, players=players, **SHORT[game_id])
    codec = spaces.codec(game_id, players, SHORT[game_id])
    e.reset(seed=3)
    rng = random.Random(3)
    steps = 0
    for agent in e.agent_iter():
        game = e.game
        for other in e.possible_agents:
            seat = int(other.removeprefix("seat_"))
            obs = e.observe(other)
            assert obs["observation"].tobytes() == codec.observe(game.view(seat)).tobytes(), (steps, other)
            waiting = game.is_over() or seat not in game.to_act() or seat in e._pending
            expected = np.zeros(codec.num_actions, np.int8) if waiting else _fresh_mask(codec, game, seat)
            assert np.array_equal(obs["action_mask"], expected), (steps, other)
            assert not obs["observation"].flags.writeable and not obs["action_mask"].flags.writeable
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        steps += 1
    assert steps > 10


def _pettingzoos_own(game_id, players):
    """env() as PettingZoo's own wrappers make it, for comparison."""
    e = raw_env(game_id, players=players, **SHORT[game_id])
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)))


def _trajectory(e, seed, illegal_at=None):
    """Random legal ids (an illegal one at step ``illegal_at``): what the loop saw at each step."""
    rng = random.Random(seed)
    e.reset(seed=seed)
    out = []
    for k, agent in enumerate(e.agent_iter()):
        obs, reward, terminated, truncated, info = e.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated,
                    truncated, dict(info), dict(e.rewards), dict(e.terminations), dict(e._cumulative_rewards)))
        if terminated or truncated:
            action = None
        elif k == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        e.step(action)
    return out, list(e.agents)


@pytest.mark.parametrize("game_id,players", [("sixth-card", 4), ("three-thirteen", 2), ("scout", 3)])
@pytest.mark.filterwarnings("ignore:.*illegal move")
def test_env_plays_as_pettingzoos_own_wrappers(game_id, players):
    """env()'s wrappers read the raw environment directly, and do what PettingZoo's three do:
    the same trajectory, rewards and terminations, with legal ids and with an illegal one (the
    match ends, −1 for its agent); the same errors out of bounds and before reset."""
    for illegal_at in (None, 5):
        ours = _trajectory(env(game_id, players=players, **SHORT[game_id]), 4, illegal_at)
        theirs = _trajectory(_pettingzoos_own(game_id, players), 4, illegal_at)
        assert ours == theirs
    for e in (env(game_id, players=players, **SHORT[game_id]), _pettingzoos_own(game_id, players)):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            e.last()
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            e.agent_selection
        e.reset(seed=1)
        with pytest.raises(AssertionError, match="action is not in action space"):
            e.step(e.action_space(e.agent_selection).n)
        with pytest.raises(AssertionError, match="action is not in action space"):
            e.step(-1)


def test_an_action_space_samples_as_gymnasiums_discrete():
    """Seeded alike, an agent's action space and gymnasium's Discrete draw the same ids, of the
    same type, from the environment's masks (whose ids the space was told), from other masks,
    and without one; they hold the same values."""
    e = raw_env("unsorted", players=4)
    e.reset(seed=5)
    n = e.codec.num_actions
    ours, theirs = e.action_space("seat_0"), gym_spaces.Discrete(n)
    assert isinstance(ours, ActionSpace) and isinstance(ours, gym_spaces.Discrete) and ours == theirs
    ours.seed(11)
    theirs.seed(11)
    rng = random.Random(5)
    for _ in range(40):
        agent = e.agent_selection
        mask = e.observe(agent)["action_mask"]
        if agent == "seat_0":
            for m in (mask, mask.copy(), np.zeros(n, np.int8), None):
                a, b = ours.sample(m), theirs.sample(m)
                assert a == b and type(a) is type(b)
        e.step(rng.choice(np.flatnonzero(mask).tolist()))
    for x in (0, 5, n - 1, n, -1, np.int64(3), np.int64(n), np.int32(2), True, 2.0, "3", 2**70, np.array(4)):
        try:
            expected = theirs.contains(x)
        except OverflowError:
            with pytest.raises(OverflowError):
                ours.contains(x)
            continue
        assert ours.contains(x) == expected, x


# ----- OpenSpiel ---------------------------------------------------------------------------------

def _os_cases():
    for game_id, players in TABLES:
        yield pytest.param(game_id, players, False, id=f"{game_id}-{players}")
        if game_id in rs.SIMULTANEOUS_GAMES:
            yield pytest.param(game_id, players, True, id=f"{game_id}-{players}-turn_based")


@pytest.mark.parametrize("game_id,players,turn_based", list(_os_cases()))
def test_a_states_answers_are_pyspiels_at_every_step(game_id, players, turn_based):
    """A state answers legal_actions, observation_tensor and information_state_tensor (for
    every player, and for the one to act), current_player and the kind of node in Python, from
    what it keeps between calls; pyspiel's own C++ path (through the observer and the Python
    game's callbacks) gives the same at every step, chance node and end included."""
    game = rs.load(game_id, players, SHORT[game_id], seeds=20, turn_based=turn_based)
    state = game.new_initial_state()
    rng = random.Random(2)
    steps = 0
    while True:
        assert state.current_player() == pyspiel.State.current_player(state)
        for ask in ("is_chance_node", "is_simultaneous_node", "is_terminal"):
            assert getattr(state, ask)() == getattr(pyspiel.State, ask)(state), ask
        for p in range(players):
            assert state.legal_actions(p) == pyspiel.State.legal_actions(state, p), (steps, p)
            assert state.observation_tensor(p) == pyspiel.State.observation_tensor(state, p), (steps, p)
            assert state.information_state_tensor(p) == pyspiel.State.information_state_tensor(state, p)
        if state.current_player() >= 0:
            assert state.legal_actions() == pyspiel.State.legal_actions(state)
            assert state.observation_tensor() == pyspiel.State.observation_tensor(state)
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.randrange(20))
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        if state.engine is not None and not state.is_terminal():  # against views and ids made now
            engine, current = state.engine, state.current_player()
            for seat in range(players):
                assert np.array_equal(state.observation_tensor(seat), game.codec.observe(engine.view(seat)))
                if current in (seat, pyspiel.PlayerId.SIMULTANEOUS):
                    json = [engine.action_json(a) for a in engine.legal_actions(seat)]
                    assert state.legal_actions(seat) == sorted(game.codec.ids(json))
            assert current in engine.to_act() or current == pyspiel.PlayerId.SIMULTANEOUS
        steps += 1
    assert steps > 10


# ----- the codecs --------------------------------------------------------------------------------

@pytest.mark.parametrize("game_id,players", TABLES)
def test_a_codecs_three_forms_are_one_tensor_and_its_remembered_ids_are_the_jsons(game_id, players, monkeypatch):
    """observe, observe_into and tensor_list (OpenSpiel's float32 values as floats) give one
    tensor, bit for bit; engine_ids, remembering each engine action's id, gives the ids of the
    actions' JSON, also once its memory filled up and started again."""
    monkeypatch.setattr(spaces, "MEMO_LIMIT", 50)
    codec = spaces.codec(game_id, players, SHORT[game_id])
    game = new_game(game_id, players, 6, SHORT[game_id])
    rng = random.Random(6)
    most = 0  # legal actions of one decision
    while not game.is_over():
        for seat in range(players):
            view = game.view(seat)
            tensor = codec.observe(view)
            into = np.zeros(codec.size, np.float32)
            codec.observe_into(view, into)
            assert into.tobytes() == tensor.tobytes()
            assert np.array(codec.tensor_list(view), np.float32).tobytes() == tensor.tobytes()
        for seat in game.to_act():
            actions = game.legal_actions(seat)
            most = max(most, len(actions))
            assert codec.engine_ids(game, actions) == codec.ids([game.action_json(a) for a in actions])
        game.apply({s: rng.choice(game.legal_actions(s)) for s in game.to_act()})
    assert len(codec._ids_of) <= 51 + most


@pytest.mark.parametrize("game_id,players", [("three-thirteen", 4), ("three-thirteen", 5), ("scout", 4),
                                             ("scouting", 3)])
def test_what_a_codec_keeps_between_views_never_changes_a_tensor(game_id, players):
    """The lists a codec counts by what changed since the last view of the seat (Tally: Three
    Thirteen's discards and discard pile, the shows of Scouting and SCOUT) give the tensor a
    codec made anew gives, along two matches interleaved (so a seat's next view is often of the
    other match), every seat's view at every step, and after a pickle."""
    options = {"rounds": 3} if game_id == "three-thirteen" else {}
    kept, fresh = spaces.codec(game_id, players, options), spaces.codec(game_id, players, options)
    tallies = [t for t in vars(fresh).values() if isinstance(t, spaces.Tally)]
    assert tallies, "the codec counts some list by what changed"
    matches = [new_game(game_id, players, seed, options) for seed in (1, 2)]
    rng = random.Random(1)
    views = 0
    while not all(g.is_over() for g in matches):
        for game in matches:
            if game.is_over():
                continue
            for seat in range(players):
                view = game.view(seat)
                for t in tallies:  # as made anew: nothing kept
                    t.__setstate__(t.__getstate__())
                assert kept.observe(view).tobytes() == fresh.observe(view).tobytes(), (views, seat)
                views += 1
            if rng.random() < 0.1:
                kept = pickle.loads(pickle.dumps(kept))
            game.apply({s: rng.choice(game.legal_actions(s)) for s in game.to_act()})
    assert views > 300


def test_every_registered_game_has_a_codec_with_fast_forms():
    """Every game's codec implements encode (the forms above come from it)."""
    for game_id, cls in games().items():
        codec = spaces.codec(game_id, cls.min_players)
        assert type(codec).encode is not spaces.Codec.encode, game_id
