"""The rating rules (cardarena.ratings.rating): a pure function of floats and places."""
from __future__ import annotations

import random

import pytest
import trueskill

from cardarena.ratings import rating as rules
from cardarena.ratings.rating import rate_match, rated_seats, update

START = rules.initial("sixth-card")


def test_the_environment_is_the_documented_one():
    env = rules.environment("sixth-card")
    assert (env.mu, env.sigma, env.beta, env.tau, env.draw_probability) == (25.0, 25 / 3, 25 / 6, 25 / 300, 0.10)
    assert START == (25.0, 25 / 3)
    assert rules.environment("scout") is not env  # one environment per game


def test_a_duel_moves_the_winner_up_and_the_loser_down():
    (w_mu, w_sigma), (l_mu, l_sigma) = update([START, START], [1, 2])
    assert w_mu > 25 > l_mu and w_sigma < START[1] and l_sigma < START[1]
    assert w_mu - 25 == pytest.approx(25 - l_mu)


def test_update_is_pure_and_does_not_depend_on_seat_order():
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(2, 7)
        ratings = [(rng.uniform(10, 40), rng.uniform(1, 8)) for _ in range(n)]
        places = [rng.randint(1, n) for _ in range(n)]
        out = update(ratings, places)
        assert update(list(ratings), list(places)) == out
        order = rng.sample(range(n), n)
        assert update([ratings[i] for i in order], [places[i] for i in order]) == [out[i] for i in order]


def test_tied_seats_that_started_equal_end_equal_in_any_match():
    """TrueSkill's chain would give the tied seat next to the winner less than its partner."""
    plain = trueskill.TrueSkill().rate([(trueskill.Rating(),)] * 4, ranks=[2, 1, 2, 3])
    assert plain[0][0].mu != plain[2][0].mu  # the chain artifact this rule removes
    out = update([START] * 4, [2, 1, 2, 3])
    assert out[0] == out[2] and abs(out[0][0] - 25) < 1e-9
    rng = random.Random(1)
    for _ in range(300):
        n = rng.randint(3, 8)
        same = (rng.uniform(10, 40), rng.uniform(1, 8))
        ratings = [same, same] + [(rng.uniform(0, 50), rng.uniform(0.5, 8)) for _ in range(n - 2)]
        place = rng.randint(1, n)
        out = update(ratings, [place, place] + [rng.randint(1, n) for _ in range(n - 2)])
        assert out[0] == out[1]


def test_a_tie_for_first_is_a_draw():
    out = update([START, START, START], [1, 1, 3])
    assert out[0] == out[1] and out[0][0] > 25 > out[2][0]


def test_self_play_seats_are_not_rated():
    assert rated_seats(["a", "b", "c"]) == [0, 1, 2]
    assert rated_seats(["a", "a", "b", "c"]) == [2, 3]
    assert rated_seats(["a", "a", "b"]) == []  # b alone: no one to be rated against
    assert rated_seats(["a", "a"]) == []
    out = rate_match("sixth-card", ["a", "b", "a", "c"], [1, 2, 3, 4], [START] * 4)
    assert out[0] is None and out[2] is None
    assert out[1] == update([START, START], [2, 4])[0]


def test_an_impossible_update_leaves_the_ratings_unchanged(monkeypatch):
    env = rules.environment("sixth-card")

    def fail(*a, **k):
        raise FloatingPointError("too unlikely")

    monkeypatch.setattr(env, "rate", fail)
    assert update([(1.0, 0.5), (60.0, 0.5)], [1, 2], "sixth-card") == [(1.0, 0.5), (60.0, 0.5)]
