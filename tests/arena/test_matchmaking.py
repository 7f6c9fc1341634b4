"""The arena's matchmaking and quarantine rules (server/ladder.py), on their own: who is drawn,
how often close ratings meet, that new bots meet everyone, and when a bot is benched."""
from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from cardarena.server.ladder import Entrant, LadderError, LadderSpec, QuarantineRule, draw_table, quality


def test_a_ladder_is_a_game_and_a_table_size():
    assert LadderSpec.parse("sixth-card") == LadderSpec("sixth-card", 2)   # the game's smallest table
    assert LadderSpec.parse("unsorted:4") == LadderSpec("unsorted", 4)
    for bad, words in (("chess", "no game 'chess'"), ("unsorted:2", "3 to 5 seats"), ("unsorted:x", "3 to 5")):
        with pytest.raises(LadderError, match=words):
            LadderSpec.parse(bad)


def test_the_anchor_is_the_bot_that_waited_longest():
    rng = random.Random(1)
    free = [Entrant("a", 25, 8, free_since=5.0), Entrant("b", 25, 8, free_since=1.0), Entrant("c", 25, 8, free_since=3.0)]
    for _ in range(20):
        assert "b" in draw_table(rng, "sixth-card", 2, free)
    assert draw_table(rng, "sixth-card", 4, free) is None  # too few


def test_new_bots_meet_everyone_and_close_ratings_meet_more_once_sigma_is_small():
    rng = random.Random(7)

    def pairs(sigma: float) -> Counter:
        counts: Counter = Counter()
        for i in range(3000):
            free = [Entrant("strong", 40, sigma, free_since=rng.random()), Entrant("strong2", 40, sigma,
                    free_since=rng.random()), Entrant("weak", 10, sigma, free_since=rng.random()),
                    Entrant("weak2", 10, sigma, free_since=rng.random())]
            counts[frozenset(draw_table(rng, "sixth-card", 2, free))] += 1
        return counts

    new = pairs(8.33)
    assert all(new[frozenset(p)] > 200 for p in combinations(["strong", "strong2", "weak", "weak2"], 2)), new
    settled = pairs(1.0)
    close = settled[frozenset(("strong", "strong2"))] + settled[frozenset(("weak", "weak2"))]
    far = sum(n for p, n in settled.items() if p not in (frozenset(("strong", "strong2")), frozenset(("weak", "weak2"))))
    assert close > 3 * far > 0, settled  # the floor keeps far pairs possible


def test_opponents_vary_recent_meetings_count_against_a_pair():
    rng = random.Random(3)
    free = [Entrant(n, 25, 8.33, free_since=0.0 if n == "a" else 1.0) for n in "abc"]
    met = {"a": Counter({"b": 5}), "b": Counter({"a": 5})}
    with_c = sum("c" in draw_table(rng, "sixth-card", 2, free, met) for _ in range(2000))
    assert with_c > 1500  # a met b five times lately: c is drawn about 6 times as often


def test_quality_is_highest_for_equal_ratings():
    assert quality("sixth-card", [(25, 1), (25, 1)]) > quality("sixth-card", [(25, 1), (35, 1)]) > 0


@pytest.mark.parametrize("game", ["sixth-card", "unsorted", "three-thirteen"])
def test_quality_is_trueskills_own_for_every_table_size(game):
    """The closed form gives the trueskill package's own match quality, 2 to 10 seats, skills
    from near-equal to far apart."""
    from cardarena.ratings.rating import environment
    env, rng = environment(game), random.Random(7)
    for seats in range(2, 11):
        for _ in range(20):
            skills = [(rng.uniform(0, 50), rng.uniform(0.5, 9)) for _ in range(seats)]
            want = env.quality([(env.create_rating(mu, sigma),) for mu, sigma in skills])
            assert quality(game, skills) == pytest.approx(want, rel=1e-9, abs=1e-300), skills


def test_quarantine_faults_over_ten_percent_of_decisions_or_three_forfeits():
    rule = QuarantineRule(window=10, max_fault_rate=0.10, min_decisions=20, max_forfeits=3)
    assert rule.judge([(50, 5, False)] * 4) is None                       # exactly 10 %: not over
    assert "21 faults in 200 decisions" in rule.judge([(50, 5, False)] * 3 + [(50, 6, False)])
    assert rule.judge([(5, 3, False)]) is None                            # too few decisions to judge
    assert rule.judge([(40, 0, True), (40, 0, True)]) is None
    assert "forfeited 3 of its last 3" in rule.judge([(40, 0, True)] * 3)
    old_trouble = [(40, 0, True)] * 3 + [(40, 0, False)] * 10
    assert rule.judge(old_trouble) is None                                # out of the window


def test_among_many_free_bots_the_draw_takes_an_even_sample_and_keeps_its_anchor(monkeypatch):
    """Past CANDIDATES free bots the other seats come from an even sample of them: the anchor
    is still the bot that waited longest, every other bot can be drawn, none twice a table."""
    from cardarena.server.ladder import CANDIDATES
    rng = random.Random(11)
    free = [Entrant(f"b{i:04d}", 25, 8.33, free_since=float(i)) for i in range(2 * CANDIDATES)]
    seen = Counter()
    for _ in range(400):
        table = draw_table(rng, "sixth-card", 4, free)
        assert "b0000" in table and len(set(table)) == 4
        seen.update(b for b in table if b != "b0000")
    # 1,200 other seats over 999 bots, 1.2 each on average: about 70 % of them drawn (Poisson),
    # as many from either half of the list
    assert 600 < len(seen) and max(seen.values()) < 10
    low = sum(n for b, n in seen.items() if b < f"b{CANDIDATES:04d}")
    assert 480 < low < 720
    from cardarena.server import ladder
    calls = []
    monkeypatch.setattr(ladder, "quality", lambda game, skills: calls.append(1) or 0.5)
    draw_table(rng, "sixth-card", 4, free)
    assert len(calls) <= 3 * CANDIDATES, "the cost of a table is bounded by the sample, not by the free bots"
