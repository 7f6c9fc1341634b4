"""The spectator view, checked on every registered game and every player count.

``Game.spectator_view()`` is what a live web page shows of a running match: everything every seat
may know and nothing any seat alone knows (RULINGS.md, "What a seat may know"). Along random
playouts: it is unchanged by ``resample_hidden(seat)`` for every seat (no leak: whatever one seat
alone knows is re-dealt by another seat's resample); it is every seat's view without that seat's
own keys, under the same names (nothing public is missing); it is plain JSON; and it changes as
the match goes on (no blindness).
"""
from __future__ import annotations

import itertools
import json
import random

import pytest

from test_engine_contract import CASES, IDS, random_playout

#: the keys of a view that only its seat knows (its seat number, its hand and what only it saw)
OWN_KEYS = {"seat", "hand", "hand_values", "hand_other_values", "taken_card", "drawn_card"}


def sampled(game_id: str, players: int, seed: int):
    return [m.game for m in itertools.islice(random_playout(game_id, players, seed, sample_every=7), 20)]


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_spectator_view_is_unchanged_by_every_seats_resample(game_id, players):
    rng = random.Random(17)
    for game in sampled(game_id, players, seed=13):
        public = game.spectator_view()
        json.dumps(public)  # plain JSON, nothing else
        for seat in range(players):
            assert game.resample_hidden(seat, rng).spectator_view() == public, (
                f"the spectator view shows something seat {seat} cannot know")


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_spectator_view_is_every_views_public_part(game_id, players):
    for game in sampled(game_id, players, seed=3):
        public = game.spectator_view()
        for seat in range(players):
            view = game.view(seat)
            assert set(view) - set(public) <= OWN_KEYS, "the spectator view has the views' public keys"
            assert set(public) <= set(view), "the spectator view uses the views' key names"
            for key, value in public.items():
                if key == "seats":  # a game may add public facts about a seat (its hand size)
                    assert len(value) == len(view["seats"])
                    for mine, theirs in zip(value, view["seats"]):
                        assert {k: mine[k] for k in theirs} == theirs
                else:
                    assert value == view[key], f"{key} differs from seat {seat}'s view"


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_spectator_view_follows_the_match(game_id, players):
    seen = [json.dumps(g.spectator_view(), sort_keys=True) for g in sampled(game_id, players, seed=8)]
    assert len(set(seen)) >= min(3, len(seen)), "the spectator view must change as the match is played"
    assert seen[0] != seen[-1]
