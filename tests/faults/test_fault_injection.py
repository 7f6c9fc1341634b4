"""Real misbehaving bot processes in a real league. For each: the league completes,
the matches of well-behaved bots are unaffected, the faults and forfeits are in the ledger, and
the ledger check passes (ratings recompute to the stored values, every finished match complete).
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.any_ledger  # the subject is the referee's conduct: the SQLite pass only


def check_league(run, *, bad_forfeits: bool):
    matches = run.matches()
    assert len(matches) == 12
    assert all(m.status == "finished" for m in matches), "the league completes"
    kinds = []
    for m in matches:
        for seat, bot in enumerate(m.bots):
            if bot == run.bad:
                if bad_forfeits:
                    assert m.forfeited[seat], f"match {m.id}: the bad seat forfeits"
                    assert m.places[seat] == len(m.bots), "a forfeited seat ranks below every other"
                kinds += [f["kind"] for f in m.result_details.get("faults", []) if f["seat"] == seat]
            else:
                assert m.faults[seat] == 0 and not m.forfeited[seat], f"match {m.id}: {bot} is unaffected"
    clean = [m for m in matches if run.bad not in m.bots]
    assert len(clean) == 3 and all(sum(m.faults) == 0 for m in clean)
    assert run.ledger.check() == [], "ratings recompute to the stored values; every match complete"
    for token in run.tokens:
        assert token not in run.log_text, "no token in a log"
    return kinds


def test_a_bot_that_never_answers_is_faulted_three_times_then_forfeits(league):
    run = league("never_answers.py")
    kinds = check_league(run, bad_forfeits=True)
    assert kinds.count("late") == 9 * 3 and kinds.count("forfeit") == 9


def test_a_bot_that_answers_just_after_the_deadline(league):
    run = league("late_answers.py")
    kinds = check_league(run, bad_forfeits=True)
    # its program may leave once its seats forfeit: the matches after that find it absent
    assert {"late", "forfeit"} <= set(kinds) <= {"late", "forfeit", "absent"}


def test_a_bot_that_crashes_mid_match_forfeits_after_the_grace(league):
    run = league("crash_mid_match.py")
    kinds = check_league(run, bad_forfeits=True)
    assert "late" not in kinds, "a bot that is gone is held, not timed out"


def test_a_bot_that_exits_before_connecting(league):
    """It never played: each forfeit is logged as absent (not rated: rating rule 4)."""
    run = league("exit_before_connect.py", start_timeout=2.0)
    kinds = check_league(run, bad_forfeits=True)
    assert kinds == ["absent"] * 9


def test_out_of_range_duplicate_and_foreign_answers_are_faults(league):
    run = league("liar.py")
    kinds = check_league(run, bad_forfeits=True)
    assert "out-of-range" in kinds and "unknown-decision" in kinds


def test_a_flooding_bot_is_cut_off_and_forfeits(league):
    run = league("flooder.py")
    check_league(run, bad_forfeits=True)


def test_a_bot_that_reconnects_within_the_grace_plays_on(league):
    # It drops its stream every 7th decision of all its matches at once (up to 4), and each drop
    # counts against every match waiting for it: how many fall on one match, and how long each
    # reconnect takes, depends on the load. The limits are the staller's test (test_conduct.py);
    # here they are far out of reach (~14 drops of ~0.3 s in all).
    run = league("reconnector.py", grace=60.0, move=1.0, max_reconnects=1000)
    kinds = check_league(run, bad_forfeits=False)
    assert kinds == [], "held decisions are re-sent after the reconnect: no fault, no forfeit"
    bad_seats = [(m, m.bots.index(run.bad)) for m in run.matches() if run.bad in m.bots]
    assert len(bad_seats) == 9 and all(not m.forfeited[s] and m.faults[s] == 0 for m, s in bad_seats)
    assert run.log_text.count("bot bad connected") > 3, "the bot did drop and come back"


def test_a_bot_with_a_wrong_token_never_plays(league):
    run = league("wrong_token.py", start_timeout=2.0)
    kinds = check_league(run, bad_forfeits=True)
    assert kinds == ["absent"] * 9, "never seated, so never played: absent"
    assert "not-a-real-token" not in run.log_text
