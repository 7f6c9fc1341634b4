"""``cardarena ratings --explain BOT`` (cardarena.ratings.explain): each recent
rated match with its places, opponents, the rating change and a reason that holds for TrueSkill's
own numbers (ratings/rating.py: rule 3, ties; rule 5, self-play; rule 7, no update).

The pure tests build the ledger's rows from :func:`rating.update` itself; the ledger and CLI
tests record matches on the test's ledger (``ledger_url``/``db``: SQLite, or PostgreSQL under
CARDARENA_TEST_LEDGER=postgresql)."""
from __future__ import annotations

import json

import pytest

from cardarena.ratings import Ledger
from cardarena.ratings.explain import MatchRows, SeatRow, chance_ahead, explain, format_text, read
from cardarena.ratings.rating import conservative, rate_match

GAME = "sixth-card"


def rows(ratings, places, bots=None, match_id=1) -> MatchRows:
    """A match's rows as the ledger keeps them, rated by the rating rules themselves."""
    bots = bots or [chr(ord("a") + i) for i in range(len(ratings))]
    after = rate_match(GAME, bots, places, ratings)
    return MatchRows(match_id, GAME, None, [SeatRow(s, b, p, a is not None, m0, s0, *(a or (m0, s0)))
                                            for s, (b, p, (m0, s0), a) in enumerate(zip(bots, places, ratings, after))])


def test_a_shared_first_place_with_a_weaker_bot_moves_mu_down_and_says_why():
    """Rule 3: a tie is a draw; a draw with a lower μ is below TrueSkill's expectation."""
    e = explain(rows([(30.0, 1.0), (20.0, 1.0)], [1, 1]), "a")
    assert e.mu < e.mu_before and e.change < 0
    assert e.score == 0.5 and e.expected == pytest.approx(chance_ahead(GAME, (30.0, 1.0), (20.0, 1.0))) and e.expected > 0.9
    assert e.reason.startswith("tied 1st of 2: drew with b (lower μ)")
    assert "worse than expected, so μ fell" in e.reason and "the shown rating μ − 3σ fell" in e.reason


def test_a_tie_with_a_higher_mu_moves_mu_up():
    e = explain(rows([(30.0, 1.0), (20.0, 1.0)], [1, 1]), "b")
    assert e.mu > e.mu_before and "drew with a (higher μ)" in e.reason and "better than expected, so μ rose" in e.reason


def test_sigma_falling_raises_the_shown_rating_while_mu_falls():
    """A newcomer's shared first place with a settled, weaker bot: μ falls, σ falls more."""
    e = explain(rows([(25.0, 25 / 3), (22.0, 1.0)], [1, 1]), "a")
    assert e.mu < e.mu_before and e.change > 0
    assert f"σ fell {e.sigma_before - e.sigma:.2f}" in e.reason
    assert e.reason.endswith(f"so the shown rating μ − 3σ rose {e.change:.2f} although μ fell")


def test_the_places_and_opponents_of_a_second_place():
    e = explain(rows([(25.0, 3.0), (31.0, 2.0), (20.0, 2.5), (24.0, 4.0)], [2, 1, 3, 4], ["ann", "cy", "bob", "dee"]), "ann")
    assert (e.place, e.seats, e.score) == (2, 4, 2.0)
    assert [(o.bot, o.place, o.result) for o in e.opponents] == [("cy", 1, "lost to"), ("bob", 3, "beat"), ("dee", 4, "beat")]
    assert e.reason.startswith("2nd of 4: beat bob (lower μ) and dee (lower μ), lost to cy (higher μ); it scored 2 of 3")
    assert e.expected == pytest.approx(sum(o.expected for o in e.opponents))
    assert e.change == pytest.approx(conservative(e.mu, e.sigma) - conservative(25.0, 3.0))


def test_mu_moving_against_the_expected_score_names_the_neighbours():
    """TrueSkill's chain compares neighbours: a tie with a much weaker bot outweighs beating a
    stronger one placed further down."""
    e = explain(rows([(27.5, 6.0), (35.6, 6.0), (12.9, 4.0)], [1, 2, 1], ["ann", "bob", "cy"]), "ann")
    assert e.score > e.expected and e.mu < e.mu_before
    assert "all the same: TrueSkill compares a seat with those placed next to it, here bob (2nd) and cy (tied)" in e.reason


def test_an_unrated_self_play_seat_is_named_but_not_counted():
    """Rule 5: the bot of two seats is not rated; the others are rated among themselves."""
    e = explain(rows([(25.0, 8.0)] * 4, [2, 1, 3, 4], ["ann", "bob", "bob", "cy"]), "ann")
    assert [o.rated for o in e.opponents] == [False, False, True] and e.score == 1.0
    assert e.expected == pytest.approx(0.5) and e.mu > e.mu_before
    assert "beat bob (not rated) and cy (equal μ), lost to bob (not rated); it scored 1 of 1" in e.reason
    assert format_text([e]).count("not rated: its bot held several seats") == 2


def test_a_match_trueskill_could_not_compute_says_so():
    """Rule 7: μ and σ unchanged."""
    m = MatchRows(3, GAME, None, [SeatRow(0, "a", 2, True, 50.0, 0.5, 50.0, 0.5), SeatRow(1, "b", 1, True, 0.0, 0.5, 0.0, 0.5)])
    assert "could not compute so unlikely a result (rule 7)" in explain(m, "a").reason


# ----------------------------------------------------------------------------- the ledger


def record(led: Ledger, bots, places, game=GAME) -> int:
    match_id = led.create_match(game, 1, {}, list(bots))
    n = len(bots)
    led.record_match(match_id, places=list(places), scores=[-p for p in places], faults=[0] * n,
                     forfeited=[False] * n, steps=[{0: 0}], events=[{"step": 0, "seats": None, "data": {"type": "deal"}}])
    return match_id


@pytest.fixture
def played(db):
    """ann's matches: three of sixth-card, one of self-play (not rated), one of scout."""
    led = Ledger(db)
    for name in ("ann", "bob", "cy", "dee"):
        led.add_bot(name)
    ids = [record(led, ["ann", "bob", "cy"], [1, 2, 3]), record(led, ["bob", "ann", "cy"], [1, 1, 3]),
           record(led, ["ann", "ann", "cy"], [1, 2, 3]), record(led, ["cy", "dee", "ann", "bob"], [1, 2, 3, 4], "scout"),
           record(led, ["dee", "ann", "cy"], [2, 3, 1])]
    yield led, ids
    led.close()


def test_read_gives_the_rated_matches_newest_first_with_every_seats_rows(played):
    led, (m1, m2, selfplay, scout, m5) = played
    found = read(led, "ann")
    assert [m.match_id for m in found] == [m5, scout, m2, m1]  # the self-play match is not rated for ann
    assert [m.match_id for m in read(led, "ann", GAME, last=2)] == [m5, m2]
    history = {c.bot: c for c in led.match(m2).rating_changes}
    assert [(s.bot, s.place, s.mu_before, s.mu) for s in found[2].seats] == [
        (b, p, history[b].mu_before, history[b].mu) for b, p in (("bob", 1), ("ann", 1), ("cy", 3))]
    assert read(led, "dee", "sixth-card")[0].seats[0].mu_before == 25.0


def test_ratings_explain_prints_each_match_with_its_reason(played, cli):
    led, (m1, m2, _, scout, m5) = played
    code, out, err = cli("ratings", "--explain", "ann", "--game", GAME)
    assert code == 0 and err.endswith("the last 3 rated matches of ann in sixth-card, newest first\n")
    heads = [line for line in out.splitlines() if line.startswith("match ")]
    assert [h.split()[1] for h in heads] == [str(m5), str(m2), str(m1)]
    assert heads[1].startswith(f"match {m2} · sixth-card · ") and "ann tied 1st of 3" in heads[1]
    assert "Tied 1st of 3: beat cy (" in out and "drew with bob (" in out
    change = [c for c in led.match(m2).rating_changes if c.bot == "ann"][0]
    shown = conservative(change.mu, change.sigma) - conservative(change.mu_before, change.sigma_before)
    assert f"({shown:+.2f})" in heads[1]


def test_ratings_explain_as_json(played, cli):
    led, (m1, *_rest) = played
    code, out, _ = cli("ratings", "--explain", "ann", "--last", "1", "--format", "json", "--game", "scout")
    data = json.loads(out)
    assert code == 0 and len(data) == 1 and data[0]["game"] == "scout" and data[0]["place"] == 3
    assert [o["bot"] for o in data[0]["opponents"]] == ["cy", "dee", "bob"]
    assert data[0]["change"] == pytest.approx(data[0]["conservative"] - data[0]["conservative_before"])


def test_an_unknown_bot_or_game_is_one_line_and_a_non_zero_exit(played, cli):
    code, out, err = cli("ratings", "--explain", "nobody")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "no bot named 'nobody'" in err
    code, _, err = cli("ratings", "--explain", "ann", "--game", "chess")
    assert code == 2 and "no game 'chess'" in err


def test_a_bot_without_rated_matches_says_so(played, cli):
    played[0].add_bot("eve")
    code, out, _ = cli("ratings", "--explain", "eve")
    assert code == 0 and out == "eve has no rated matches\n"


def test_a_bad_last_or_format_or_a_server_is_a_bad_argument(played, cli):
    for argv in (["--last", "0"], ["--last", "ten"], ["--format", "csv"], ["--server", "127.0.0.1:1"]):
        code, out, err = cli("ratings", "--explain", "ann", *argv)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (argv, err)
