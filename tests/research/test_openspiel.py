"""cardarena.research.openspiel: the games as OpenSpiel games.

OpenSpiel's own ``random_sim_test`` on every game at two player counts (and turn-based where a
game has sealed simultaneous steps: Sixth Card C4, SCOUT O2), the strings and tensors built from
the view alone (unchanged by ``resample_from_infostate``), the fixed ids, the place-based
returns, and OpenSpiel's IS-MCTS playing whole matches against our heuristics. A game whose
codec (cardarena.research.codec_*) has not landed yet is skipped, naming the module.
"""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from cardarena.client.strategies import for_game
from cardarena.research import openspiel as rs
from cardarena.research import spaces
from cardarena.research.spaces import place_rewards
from cardarena.server.games import games, new_game

#: options that keep matches short
SHORT = {"sixth-card": {"rounds": 1}, "three-thirteen": {"rounds": 2},
         "unsorted": {"max_deals": 1}, "scouting": {}, "scout": {}}
SAMPLER = pyspiel.UniformProbabilitySampler(0.0, 1.0)


def _load(game_id: str, players: int, **params) -> pyspiel.Game:
    return rs.load(game_id, players, SHORT[game_id], **params)


def _counts(game_id: str) -> tuple[int, int]:
    cls = games()[game_id]
    return cls.min_players, min(cls.min_players + 1, cls.max_players)


CASES = [(g, n) for g in spaces.CODEC_MODULES for n in _counts(g)]


def _random_playout(state: pyspiel.State, rng: np.random.RandomState, steps: int | None = None):
    """Plays uniformly random ids (and the chance outcomes) for ``steps`` decisions or to the end."""
    while not state.is_terminal() and steps != 0:
        if state.is_chance_node():
            state.apply_action(int(rng.randint(len(state.chance_outcomes()))))
            continue
        if state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        steps = None if steps is None else steps - 1
    return state


def test_every_game_is_registered_with_its_parameters():
    """Names, parameters (players, every option, seeds, turn_based, max_game_length) and the
    dynamics each game really has: the sealed steps (C4, O2) are simultaneous."""
    types = {t.short_name: t for t in pyspiel.registered_games()}
    for game_id, cls in games().items():
        t = types[rs.game_name(game_id)]
        assert set(t.parameter_specification) == {"players", "seeds", "turn_based", "max_game_length",
                                                  *(o.name for o in cls.option_specs)}
        assert (t.min_num_players, t.max_num_players) == (cls.min_players, cls.max_players)
        simultaneous = game_id in ("sixth-card", "scout")
        assert (t.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS) == simultaneous, game_id
        assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert rs.game_type(game_id, turn_based=True).dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert "cardarena_sixth_card" in types and "cardarena_three_thirteen" in types


@pytest.mark.parametrize("game_id,players", CASES)
def test_random_sim_test(game_id, players):
    """OpenSpiel's own API test (pyspiel.random_sim_test) on the game, a whole match, serialized
    and deserialized along the way (every player count, cut short: test_pickling.py)."""
    game = _load(game_id, players, seeds=50)
    assert game.num_distinct_actions() == spaces.codec(game_id, players, SHORT[game_id]).num_actions
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", sorted(rs.SIMULTANEOUS_GAMES))
def test_random_sim_test_turn_based(game_id):
    """The sealed step asked seat by seat (C4, O2) passes the same test, as SEQUENTIAL."""
    game = _load(game_id, games()[game_id].min_players, seeds=50, turn_based=True)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", list(spaces.CODEC_MODULES))
def test_ids_labels_and_tensors_come_from_the_engine_and_the_view(game_id):
    """Legal ids are the codec's ids of the engine's legal actions, sorted; action strings are the
    engine's labels; the tensor is codec.observe(view), the string the view, both unchanged by
    resample_from_infostate (nothing the seat cannot see)."""
    players = games()[game_id].min_players + 1
    game = _load(game_id, players, seeds=50)
    codec = game.codec
    rng = np.random.RandomState(7)
    state = _random_playout(game.new_initial_state(), rng, steps=6)
    assert not state.is_terminal()
    engine = state.engine
    for seat in range(players):
        view = engine.view(seat)
        assert np.array_equal(state.observation_tensor(seat), codec.observe(view).ravel())
        assert state.information_state_tensor(seat) == state.observation_tensor(seat)
        others = [state.resample_from_infostate(seat, SAMPLER) for _ in range(4)]
        for other in others:
            assert other.observation_tensor(seat) == state.observation_tensor(seat)
            assert other.information_state_string(seat) == state.information_state_string(seat)
        # ... and it is another deal: some other seat's view differs in one of them
        assert any(o.engine.view(s) != engine.view(s) for o in others for s in range(players) if s != seat)
    for seat in engine.to_act():
        actions = engine.legal_actions(seat)
        ids = codec.ids([engine.action_json(a) for a in actions])
        assert state.legal_actions(seat) == sorted(ids)
        assert [state.action_to_string(seat, i) for i in ids] == [engine.action_label(a) for a in actions]


def test_the_deal_is_a_chance_node_over_seeds():
    """Outcome s of the first chance node is the engine's match with seed s."""
    game = _load("sixth-card", 3, seeds=20)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.observation_string(0) == "before the deal"
    assert state.chance_outcomes() == [(s, 1 / 20) for s in range(20)]
    state.apply_action(13)
    assert state.engine.view(1) == new_game("sixth-card", 3, 13, SHORT["sixth-card"]).view(1)


def test_sixth_card_is_simultaneous_then_sequential():
    """C4: every seat chooses at once (SIMULTANEOUS, apply_actions); C9/C7: a row choice is one
    seat's (current_player is that seat). Some of seeds 0–4 ask a row choice."""
    game = _load("sixth-card", 2, seeds=50)
    rng = np.random.RandomState(0)
    kinds = set()
    for seed in range(5):
        state = game.new_initial_state()
        state.apply_action(seed)
        while not state.is_terminal():
            if state.is_simultaneous_node():
                kinds.add("choose")
                assert state.engine.view(0)["phase"] == "choose"
                state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
            else:
                kinds.add("row")
                seat = state.current_player()
                assert state.engine.view(seat)["chooser"] == seat
                assert state.legal_actions(1 - seat) == []
                assert all(52 <= i < 56 for i in state.legal_actions())
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert state.returns() == place_rewards(state.engine.result())
    assert kinds == {"choose", "row"}


def test_turn_based_keeps_the_sealed_choices_hidden():
    """C4 with turn_based: seat 0's card stays out of seat 1's strings and tensors and out of the
    engine until seat 1 has chosen; a resample for seat 1 redraws seat 0's sealed card."""
    game = _load("sixth-card", 2, seeds=50, turn_based=True)
    state = game.new_initial_state()
    state.apply_action(3)
    before_obs = state.observation_tensor(1)
    before_str = state.observation_string(1)
    assert state.current_player() == 0
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    assert [len(s["played"]) for s in state.engine.view(1)["seats"]] == [0, 0]
    assert state.observation_tensor(1) == before_obs
    assert state.observation_string(1) == before_str + "\nsealed: seats 0 have chosen"
    assert "chosen:" in state.observation_string(0)
    redrawn = {str(state.resample_from_infostate(1, SAMPLER)) for _ in range(8)}
    assert len(redrawn) > 1
    state.apply_action(state.legal_actions()[0])
    assert [len(s["played"]) for s in state.engine.view(1)["seats"]] == [1, 1]  # revealed at once


def test_max_game_length_ends_in_a_draw():
    """At max_game_length decisions the match ends, every return 0 (Length)."""
    game = _load("sixth-card", 3, seeds=50, max_game_length=4)
    assert game.max_game_length() == 4
    state = _random_playout(game.new_initial_state(), np.random.RandomState(1))
    assert state.is_terminal() and not state.engine.is_over()
    assert state.returns() == [0.0, 0.0, 0.0]


def test_length_bound_of_sixth_card():
    """C11: every round gives a point, so at most players × (end_score − 1) + 1 rounds."""
    assert rs.length_bound("sixth-card", 2, {"rounds": 1}) == 10 * (1 + 2)
    assert rs.length_bound("sixth-card", 2, {"rounds": 1}, turn_based=True) == 10 * (2 + 2)
    assert rs.length_bound("sixth-card", 2, {"end_score": 3}) == (2 * 2 + 1) * 10 * 3


def test_state_for_wraps_an_engine_game():
    """state_for: an OpenSpiel state around an engine game that already exists (the arena
    adapter's entry), played on in place."""
    engine = new_game("sixth-card", 3, 5, {"rounds": 1})
    state = rs.state_for(engine, turn_based=True)
    assert state.engine is engine and state.get_game().get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert state.current_player() == 0 and state.history() == []
    card = engine.legal_actions(0)[0]
    state.apply_action(state.get_game().codec.action_id(engine.action_json(card)))
    assert state.current_player() == 1 and [len(s["played"]) for s in engine.view(0)["seats"]] == [0] * 3
    led = rs.state_for(new_game("sixth-card", 3, 5, {"rounds": 1}), lead=2, turn_based=True)
    order = []
    for _ in range(3):
        order.append(led.current_player())
        led.apply_action(led.legal_actions()[0])
    assert order == [2, 0, 1]  # the sealed step from seat 2 leftwards
    assert [len(s["played"]) for s in led.engine.view(0)["seats"]] == [1] * 3


def _heuristic_id(state: rs.CardArenaState, choose) -> int:
    engine, seat = state.engine, state.current_player()
    actions_json = [engine.action_json(a) for a in engine.legal_actions(seat)]
    return state.get_game().codec.action_id(actions_json[choose(engine.view(seat), actions_json)])


@pytest.mark.parametrize("game_id", list(spaces.CODEC_MODULES))
def test_ismcts_plays_whole_matches_against_the_heuristics(game_id):
    """OpenSpiel's ISMCTSBot (random rollouts, few simulations) in one seat, the game's heuristic
    (clients/python/strategies) in the others; the sealed steps asked seat by seat (turn_based),
    since IS-MCTS searches sequential games. Every match ends and its returns are the place
    rewards of the engine's result."""
    players = games()[game_id].min_players
    game = _load(game_id, players, seeds=1000, turn_based=True)
    choose = for_game(game_id)
    for match in range(2):
        rng = np.random.RandomState(match)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                               max_simulations=4, random_state=rng)
        bot_seat = (match + 1) % players
        state = game.new_initial_state()
        state.apply_action(match)
        while not state.is_terminal():
            if state.current_player() == bot_seat:
                action = bot.step(state)
            else:
                action = _heuristic_id(state, choose)
            state.apply_action(action)
        result = state.engine.result()
        assert state.engine.is_over()
        assert state.returns() == place_rewards(result)
        assert sum(state.returns()) == pytest.approx(0.0)
