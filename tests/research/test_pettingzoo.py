"""The PettingZoo environments (cardarena.research.pettingzoo): PettingZoo's own api_test,
seed_test and (on the parallel environment) parallel_api_test on every game and every player
count, and what the module docstring promises: the parallel environment plays the AEC match, the
sealed choice (Sixth Card C4, SCOUT's flip O2) reveals nothing before the last seat chose, only
seats in ``to_act()`` are ever selected, rewards come at the end (place- and score-based), the
same seed gives the same match, render() tells it in words, an illegal id is refused.

Games whose codec module has not landed yet are skipped, so they are picked up as they land.
"""
from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from cardarena.research import spaces
from cardarena.research.pettingzoo import (CardArenaEnv, IllegalActionId, env, parallel_env,
                                           place_rewards, score_scale)
from cardarena.server.games import Result, get as get_game, new_game

# PettingZoo's api_test warns of every Dict observation ({observation, action_mask}) unless the
# env is one of its own classic games (its env_obs_dicts list), whose action masks come the same way
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]

#: options that keep a match short: one round of Sixth Card, two of Three Thirteen, one deal of
#: Unsorted (U16a); SCOUT and Scouting have no such option (as many rounds as players)
SHORT = {"sixth-card": {"rounds": 1}, "three-thirteen": {"rounds": 2}, "unsorted": {"max_deals": 1},
         "scouting": {}, "scout": {}}


def _has_codec(game_id: str) -> bool:
    name = f"cardarena.research.{spaces.CODEC_MODULES[game_id]}"
    if importlib.util.find_spec(name) is None:
        return False
    codec = importlib.import_module(name).CODEC
    return not isinstance(codec, dict) or game_id in codec


def _tables():
    for game_id in spaces.CODEC_MODULES:
        cls = get_game(game_id)
        marks = [] if _has_codec(game_id) else [pytest.mark.skip(reason=f"no codec for {game_id} yet")]
        for players in range(cls.min_players, cls.max_players + 1):
            yield pytest.param(game_id, players, id=f"{game_id}-{players}", marks=marks)


TABLES = list(_tables())
#: one table of each game, for the slower checks
ONE_EACH = [p for p in TABLES if p.values[1] == get_game(p.values[0]).min_players]


def _env(game_id, players, **kw):
    return env(game_id, players=players, **SHORT[game_id], **kw)


def _play(e, rng, check=None):
    """Play the environment to the end with random legal ids; ``check(e)`` before every step of
    a live agent. Nobody is ever truncated. Returns each agent's reward on every step it was
    told one."""
    told = {a: [] for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        told[agent].append(reward)
        assert not truncated, "the games end by themselves: termination, never truncation"
        if terminated:
            e.step(None)
            continue
        if check:
            check(e)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return told


@pytest.mark.parametrize("game_id,players", TABLES)
def test_pettingzoo_api_test(game_id, players):
    """PettingZoo's own api_test: spaces, last/step contract, dead steps, the observation in
    its space with its dtypes, seeding through reset(seed=…)."""
    api_test(_env(game_id, players), num_cycles=400)


@pytest.mark.parametrize("game_id,players", TABLES)
def test_pettingzoo_seed_test(game_id, players):
    """PettingZoo's own seed_test: two environments reset with one seed run the same way."""
    seed_test(lambda: _env(game_id, players), num_cycles=100)


@pytest.mark.parametrize("game_id,players", TABLES)
def test_pettingzoo_parallel_api_test(game_id, players):
    """PettingZoo's own parallel_api_test on the parallel environment."""
    parallel_api_test(parallel_env(game_id, players, **SHORT[game_id]), num_cycles=200)


@pytest.mark.parametrize("game_id,players", ONE_EACH + [pytest.param("sixth-card", 6, id="sixth-card-6")])
def test_the_parallel_env_plays_the_aec_match_with_the_same_ids(game_id, players):
    """Given the ids the AEC agents chose (seat order within a step), the parallel environment
    applies each step's choices together and reaches the same end with the same rewards; the
    ids of agents not to act (mask all 0) are ignored."""
    rng = random.Random(4)
    e = _env(game_id, players)
    e.reset(seed=8)
    chosen = []
    for agent in e.agent_iter():
        obs, _, terminated, *_ = e.last()
        if not terminated:
            chosen.append(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        e.step(None if terminated else chosen[-1])
    p = parallel_env(game_id, players, **SHORT[game_id])
    obs, _ = p.reset(seed=8)
    ids = iter(chosen)
    while p.agents:
        acting = [a for a in p.agents if obs[a]["action_mask"].any()]
        actions = {a: next(ids) if a in acting else 0 for a in p.agents}
        obs, rewards, terminations, truncations, _ = p.step(actions)
        assert not any(truncations.values())
    assert next(ids, None) is None
    assert all(terminations.values())
    assert p.aec.game.state_json() == e.unwrapped.game.state_json()
    assert [rewards[a] for a in p.possible_agents] == pytest.approx(place_rewards(e.unwrapped.game.result()))


def test_an_illegal_id_in_the_parallel_env_ends_the_match_minus_one_for_its_agent():
    """As TerminateIllegalWrapper in env(): every seat terminated, −1 for the offender."""
    p = parallel_env("sixth-card", 3, rounds=1)
    obs, _ = p.reset(seed=0)
    illegal = int(np.flatnonzero(obs["seat_1"]["action_mask"] == 0)[0])
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in p.agents}
    actions["seat_1"] = illegal
    _, rewards, terminations, _, _ = p.step(actions)
    assert rewards == {"seat_0": 0, "seat_1": -1, "seat_2": 0}
    assert all(terminations.values()) and not p.agents


@pytest.mark.parametrize("game_id,players", TABLES)
def test_only_seats_to_act_are_selected_and_rewards_come_at_the_end(game_id, players):
    """agent_selection is always a seat in to_act() still to choose; every reward before the
    end is 0; at the end every agent is terminated and the place rewards sum to 0, first +1 …
    last −1 in the order of the places."""
    e = _env(game_id, players)
    e.reset(seed=players)
    raw = e.unwrapped

    def check(e):
        seat = int(e.agent_selection.removeprefix("seat_"))
        assert seat in raw.game.to_act() and seat not in raw._pending

    told = _play(e, random.Random(players), check)
    assert raw.game.is_over() and not e.agents
    for agent, rewards in told.items():
        assert all(r == 0 for r in rewards[:-1]), agent
    final = [told[a][-1] for a in e.possible_agents]
    assert final == pytest.approx(place_rewards(raw.game.result()))
    assert sum(final) == pytest.approx(0)
    places = raw.game.result().places
    for s in range(players):
        for t in range(players):
            if places[s] < places[t]:
                assert final[s] > final[t]


def test_place_rewards_linear_in_the_place_ties_share():
    """+1 … −1 linear in the place (competition places, RULINGS: ties share a place); tied seats
    get the mean of the places they cover: the docstring's three-seat example and 10, 7, 7, 3."""
    assert place_rewards(Result.from_scores([5, 5, 1], True)) == [0.5, 0.5, -1.0]
    assert place_rewards(Result.from_scores([10, 7, 7, 3], True)) == pytest.approx([1, 0, 0, -1])
    assert place_rewards(Result.from_scores([2, 9, 4, 6, 1], False)) == pytest.approx([0.5, -1, 0, -0.5, 1])
    assert place_rewards(Result.from_scores([3, 3], True)) == [0.0, 0.0]


@pytest.mark.parametrize("game_id,players", ONE_EACH)
def test_score_rewards_are_the_final_scores_higher_is_better_scaled(game_id, players):
    """reward="score": the final score over score_scale, negated where fewer points win (Sixth
    Card's penalty points C11, Three Thirteen's points in hand R8)."""
    e = _env(game_id, players, reward="score")
    e.reset(seed=3)
    told = _play(e, random.Random(3))
    result = e.unwrapped.game.result()
    sign = 1 if result.higher_is_better else -1
    scale = score_scale(game_id, e.unwrapped.options)
    assert [told[a][-1] for a in e.possible_agents] == pytest.approx([sign * s / scale for s in result.scores])
    assert (game_id in ("sixth-card", "three-thirteen")) == (not result.higher_is_better)


def _sealed(game_id, players, seed):
    """A fresh environment at its first step in which several seats choose at once."""
    e = _env(game_id, players)
    e.reset(seed=seed)
    rng = random.Random(seed)
    while len(e.unwrapped.game.to_act()) < 2:
        obs = e.last()[0]
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return e


@pytest.mark.parametrize("game_id,players", [p for p in TABLES if p.values[0] in ("sixth-card", "scout")])
def test_the_sealed_choice_reveals_nothing_before_the_last_seat_chose(game_id, players):
    """C4 (Sixth Card's card choice) and O2 (SCOUT's flip): the seats choose one after another in
    seat order, and until the last has chosen the game is not advanced and every observation and
    view is the one before the step; the last choice applies them all together."""
    e = _sealed(game_id, players, seed=11)
    raw = e.unwrapped
    seats = raw.game.to_act()
    before = {a: e.observe(a)["observation"].copy() for a in e.possible_agents}
    views = {s: raw.game.view(s) for s in range(players)}
    for k, seat in enumerate(seats):
        assert e.agent_selection == f"seat_{seat}"
        if k == len(seats) - 1:
            last_mask = e.observe(e.agent_selection)["action_mask"]
        for a in e.possible_agents:
            assert np.array_equal(e.observe(a)["observation"], before[a]), (k, a)
        assert {s: raw.game.view(s) for s in range(players)} == views
        assert raw.game.to_act() == seats
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[-1]))
        if k < len(seats) - 1:
            chosen = e.observe(f"seat_{seat}")["action_mask"]
            assert not chosen.any(), "a seat that chose has nothing left to choose in the step"
    assert last_mask.any()
    assert raw.game.to_act() != seats or any(raw.game.view(s) != views[s] for s in range(players))


@pytest.mark.parametrize("game_id,players", ONE_EACH)
def test_same_seed_same_trajectory_and_the_engine_match_of_that_seed(game_id, players):
    """reset(seed=s) is the engine's match of seed s; with the same ids, two environments reset
    with one seed tell the same observations, masks and rewards to the end, and the next reset()
    without a seed starts the same next match in both."""
    def trajectory(e, seed):
        out = []
        rng = random.Random(seed)
        for agent in e.agent_iter():
            obs, reward, terminated, *_ = e.last()
            out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
            e.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    a, b = _env(game_id, players), _env(game_id, players)
    a.reset(seed=5)
    b.reset(seed=5)
    game = new_game(game_id, players, 5, SHORT[game_id])
    first = int(a.agent_selection.removeprefix("seat_"))
    assert np.array_equal(a.observe(a.agent_selection)["observation"],
                          a.unwrapped.codec.observe(game.view(first)))
    assert trajectory(a, 1) == trajectory(b, 1)
    a.reset()
    b.reset()
    assert trajectory(a, 2) == trajectory(b, 2)
    c = _env(game_id, players)
    c.reset(seed=6)
    a.reset(seed=5)
    assert trajectory(a, 1) != trajectory(c, 1)


@pytest.mark.parametrize("game_id,players", ONE_EACH)
def test_render_tells_the_view_and_the_legal_actions_in_words(game_id, players, capsys):
    """ansi returns the text, human prints it; it names the seat, lists the legal actions by
    label and id, and ends with the places."""
    e = _env(game_id, players, render_mode="ansi")
    e.reset(seed=2)
    raw = e.unwrapped
    seat = int(e.agent_selection.removeprefix("seat_"))
    text = e.render()
    assert f"as seat_{seat} sees it" in text
    ids = raw.codec.ids([raw.game.action_json(a) for a in raw.game.legal_actions(seat)])
    for a, aid in zip(raw.game.legal_actions(seat), ids):
        assert f"[{aid}] {raw.game.action_label(a)}" in text
    _play(e, random.Random(2))
    assert "over: seat 0 place" in e.render()

    h = _env(game_id, players, render_mode="human")
    h.reset(seed=2)
    assert h.render() is None
    assert f"as seat_{seat} sees it" in capsys.readouterr().out


def test_an_illegal_id_is_refused_or_ends_the_match_for_its_agent():
    """The raw environment raises IllegalActionId and changes nothing; env()'s
    TerminateIllegalWrapper ends the match: −1 for the offender, 0 for the others."""
    raw = CardArenaEnv("sixth-card", 3, rounds=1)
    raw.reset(seed=0)
    mask = raw.observe("seat_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="read-only"):  # shared by every observe() of the step
        mask[illegal] = 1
    with pytest.raises(IllegalActionId, match="seat 0 has no legal action"):
        raw.step(illegal)
    assert raw.agent_selection == "seat_0" and not raw._pending

    e = env("sixth-card", players=3, rounds=1)
    e.reset(seed=0)
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.last()[1] == -1
    assert {a: e._cumulative_rewards[a] for a in e.agents} == {"seat_0": -1, "seat_1": 0, "seat_2": 0}


def test_unknown_reward_or_render_mode_is_an_error():
    with pytest.raises(ValueError, match="reward must be one of place, score"):
        CardArenaEnv("sixth-card", 2, reward="chips")
    with pytest.raises(ValueError, match="render_mode"):
        CardArenaEnv("sixth-card", 2, render_mode="rgb_array")
