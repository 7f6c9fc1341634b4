"""The Codec contract (cardarena.research.spaces) on every game that has a codec module, at every
player count, and again under options that change the spaces.

Random playouts over many seeds check, at every decision of every seat to act: the ids of the
legal actions are distinct and in ``range(num_actions)``; ``action_json_of(action_id(j))``
agrees with ``j`` on every field it gives; the mask is 1 exactly at those ids; ``observe(view)``
has the codec's shape, is finite float32, and is unchanged when ``game.resample_hidden(seat)``
re-deals what the seat cannot see (the tensor holds no more than the view);
``pick`` finds every legal action by its id. Each codec's ``layout()`` tiles its tensor and
names parts its module docstring documents.

Every registered game has a codec (a game without one fails here).
"""
from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from cardarena.research import spaces
from cardarena.server.games import GameOptionError, games, get as get_game, new_game

#: option sets besides the defaults, per game: those that change the spaces (a second deck, the
#: exact cards) and those that make the games short enough to reach their end and next rounds
OPTION_SETS: dict[str, list[dict]] = {
    "sixth-card": [{"rounds": 2}, {"decks": 2, "rounds": 1}, {"exact_cards": True, "rounds": 2}],
    "three-thirteen": [{"rounds": 2, "joker_points": 50}],
    "unsorted": [{"long_game": True}],
}
#: decisions played per seed (a random Three Thirteen takes thousands of turns; the early ones
#: cover every kind of decision and the short option sets reach the game's end)
STEPS = 250
SEEDS = range(6)


def _valid(game_id: str, players: int, options: dict) -> bool:
    """Whether the engine takes these options at this player count (exact cards: 2–4 players,
    one deck: at most 4)."""
    try:
        new_game(game_id, players, 0, options)
    except GameOptionError:
        return False
    return True


CASES = [(gid, n, opts)
         for gid in spaces.CODEC_MODULES
         for n in range(get_game(gid).min_players, get_game(gid).max_players + 1)
         for opts in [{}] + OPTION_SETS.get(gid, [])
         if _valid(gid, n, opts)]
IDS = [f"{g}-{n}p" + "".join(f"-{k}={v}" for k, v in o.items()) for g, n, o in CASES]


def codec_module(game_id: str):
    """The game's codec module."""
    return importlib.import_module(f"cardarena.research.{spaces.CODEC_MODULES[game_id]}")


def test_every_registered_game_has_a_codec():
    """Point 1: every game of the registry, no more, has its codec module."""
    assert sorted(spaces.CODEC_MODULES) == sorted(games())
    for game_id in games():
        assert codec_module(game_id) is not None


def make_codec(game_id: str, players: int, options: dict) -> spaces.Codec:
    return spaces.codec(game_id, players, options)


def decisions(game_id: str, players: int, options: dict, seed: int):
    """A random playout: yield (game, seat, legal actions' JSON) at every decision of every
    seat to act, and at the end (game, seat, []) for every seat; at most STEPS decisions."""
    rng = random.Random(seed * 7919 + players)
    game = new_game(game_id, players, seed, options)
    for _ in range(STEPS):
        if game.is_over():
            break
        actions = {}
        for seat in game.to_act():
            legal = game.legal_actions(seat)
            yield game, seat, [game.action_json(a) for a in legal]
            actions[seat] = rng.choice(legal)
        game.apply(actions)
    if game.is_over():
        for seat in range(players):
            yield game, seat, []


@pytest.mark.parametrize("game_id,players,options", CASES, ids=IDS)
def test_action_ids_masks_and_tensors_keep_the_contract(game_id, players, options):
    codec = make_codec(game_id, players, options)
    shape, n = tuple(codec.observation_shape), codec.num_actions
    for seed in SEEDS:
        rng = random.Random(seed)
        for game, seat, legal in decisions(game_id, players, options, seed):
            ids = codec.ids(legal)
            assert len(set(ids)) == len(ids), f"two legal actions share an id: {legal}"
            assert all(isinstance(i, int) and 0 <= i < n for i in ids), ids
            for j, i in zip(legal, ids):
                back = codec.action_json_of(i)
                assert back and agrees(back, j), (j, i, back)
            mask = codec.mask(legal)
            assert mask.dtype == np.int8 and mask.shape == (n,)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(ids)
            view = game.view(seat)
            obs = codec.observe(view)
            assert obs.dtype == np.float32 and obs.shape == shape
            assert np.isfinite(obs).all()
            other = game.resample_hidden(seat, rng)
            again = codec.observe(other.view(seat))
            assert np.array_equal(obs, again), (
                f"seat {seat}'s tensor changed when its unseen cards were re-dealt at parts "
                f"{parts_at(codec, np.flatnonzero(obs != again))}")


@pytest.mark.parametrize("game_id,players,options", CASES, ids=IDS)
def test_pick_finds_every_legal_action_by_its_id(game_id, players, options):
    codec = make_codec(game_id, players, options)
    for seed in SEEDS[:2]:
        for _game, _seat, legal in decisions(game_id, players, options, seed):
            for index, j in enumerate(legal):
                assert codec.pick(legal, codec.action_id(j)) == index, j
    with pytest.raises(ValueError):
        codec.pick([], 0)


@pytest.mark.parametrize("game_id,players,options", CASES, ids=IDS)
def test_layout_tiles_the_tensor(game_id, players, options):
    codec = make_codec(game_id, players, options)
    parts = codec.layout()
    names = [name for name, _, _ in parts]
    assert len(set(names)) == len(names), names
    at = 0
    for name, start, length in parts:
        assert start == at and length > 0, (name, start, length)
        at += length
    assert at == int(np.prod(codec.observation_shape))


@pytest.mark.parametrize("game_id", list(spaces.CODEC_MODULES))
def test_layout_names_are_documented(game_id):
    """Every part layout() names is a row of the module docstring's observation table."""
    module = codec_module(game_id)
    cls = get_game(game_id)
    codec = spaces.codec(game_id, cls.min_players)
    rows = {line.split()[0] for line in (module.__doc__ or "").splitlines() if line.strip()}
    missing = [name for name, _, _ in codec.layout() if name not in rows]
    assert not missing, f"{module.__name__}: parts not in its docstring's table: {missing}"


def agrees(back, action) -> bool:
    """Whether ``action`` has every field of ``back`` (nested dicts too) with the same value: an
    id's JSON may leave out what only the decision knows (the cards of an Unsorted block)."""
    if isinstance(back, dict):
        return isinstance(action, dict) and all(k in action and agrees(v, action[k])
                                                for k, v in back.items())
    return back == action


def parts_at(codec: spaces.Codec, flat_indices) -> list[str]:
    """The layout parts holding these indices of the flattened tensor (for failure messages)."""
    return sorted({name for i in flat_indices for name, start, length in codec.layout()
                   if start <= i < start + length})
