"""The ledger queries leagues need (cardarena.ratings.Ledger): results per league, releasing and
rescheduling matches, ids, counts, and the progress of recompute and check."""
from __future__ import annotations

import pytest

from cardarena.ratings import LedgerError, MatchPlan

GAME = "sixth-card"


def record(led, match_id, places):
    led.record_match(match_id, scores=[float(p) for p in places], places=places, faults=[0] * len(places),
                     forfeited=[False] * len(places), steps=[{0: 0}], events=[{"step": 0, "seats": None, "data": {}}])


def league(led, n=4):
    plans = [MatchPlan(0, i, 100 + i, ["a", "b", "c"][i % 3:] + ["a", "b", "c"][:i % 3], duplicate_set=i // 3)
             for i in range(n)]
    return led.create_league(GAME, {}, {"bots": ["a", "b", "c"]}, plans)


def test_league_results_hold_every_match_in_schedule_order_with_its_seats(led):
    lid = league(led)
    first = led.claim_next(lid)
    record(led, first.id, [2, 1, 3])
    results = led.league_results(lid)
    assert [r.index for r in results] == [0, 1, 2, 3] and [r.seed for r in results] == [100, 101, 102, 103]
    assert results[0].status == "finished" and results[0].bots == ["a", "b", "c"] and results[0].places == [2, 1, 3]
    assert results[0].faults == [0, 0, 0] and results[0].forfeited == [False, False, False]
    assert results[1].status == "scheduled" and results[1].places == [None, None, None] and results[1].bots == ["b", "c", "a"]
    assert [r.duplicate_set for r in results] == [0, 0, 0, 1]
    with pytest.raises(LedgerError, match="no league 9"):
        led.league_results(9)


def test_release_puts_only_a_running_match_back(led):
    lid = league(led)
    m = led.claim_next(lid)
    assert led.release_match(m.id) and led.match(m.id).status == "scheduled"
    assert not led.release_match(m.id), "a scheduled match is not running"
    led.claim_match(m.id)
    record(led, m.id, [1, 2, 3])
    assert not led.release_match(m.id), "a finished match stays finished"


def test_retry_failed_reschedules_a_leagues_failed_matches(led):
    lid = league(led)
    m = led.claim_next(lid)
    led.fail_match(m.id, "boom")
    assert led.retry_failed(lid) == 1
    again = led.match(m.id)
    assert again.status == "scheduled" and again.fail_reason is None and again.finished_at is None
    assert led.retry_failed(lid) == 0
    with pytest.raises(LedgerError):
        led.retry_failed(42)


def test_ids_and_counts(led):
    lid = league(led)
    m = led.claim_next(lid)
    record(led, m.id, [1, 2, 3])
    led.create_match(GAME, 7, {}, ["a", "b"])
    assert led.match_ids("finished") == [m.id]
    assert len(led.match_ids()) == 5 and len(led.match_ids(league_id=lid)) == 4
    assert led.counts() == {"bots": 3, "leagues": 1,
                            "matches": {"scheduled": 4, "running": 0, "finished": 1, "failed": 0}}


def test_recompute_and_check_report_their_progress(led, monkeypatch):
    from cardarena.ratings import ledger_ratings as module  # where recompute and check read it
    monkeypatch.setattr(module, "PROGRESS_EVERY", 2)
    lid = league(led, 5)
    for _ in range(5):
        record(led, led.claim_next(lid).id, [1, 2, 3])
    seen = []
    assert led.recompute(progress=lambda done, total: seen.append((done, total))) == 5
    assert seen == [(0, 5), (2, 5), (4, 5), (5, 5)]
    seen.clear()
    assert led.check(progress=lambda done, total: seen.append((done, total))) == []
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
