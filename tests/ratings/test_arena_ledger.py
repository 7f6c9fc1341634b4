"""What the ledger keeps for the arena: a bot's owner, pause and bench, each match's
kind (league, ladder, match), ladder matches a killed server left running, and a bot's recent
conduct. (An older ledger gains them by its migration: tests/ratings/test_schema.py.)"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cardarena.ratings import FINISHED, Ledger, LedgerError, MatchPlan

GAME = "sixth-card"


def finish(led: Ledger, match_id: int, n: int, faults=None, forfeited=None, latency=None):
    led.claim_match(match_id)
    led.record_match(match_id, scores=list(range(n)), places=list(range(1, n + 1)), faults=faults or [0] * n,
                     forfeited=forfeited or [False] * n, steps=[{0: 0}], events=[],
                     result_details={"latency": latency} if latency else None)


def test_owner_pause_and_bench_are_kept(ledger_url):
    led = Ledger(ledger_url())
    info, _ = led.add_bot("ada", owner="Ada L. <ada@example.org>")
    led.add_bot("bo")
    assert info.owner == "Ada L. <ada@example.org>" and led.bot("ada").owner == info.owner
    assert led.set_paused("bo", True).paused
    until = datetime.now(timezone.utc) + timedelta(minutes=10)
    led.bench_bot("ada", until, "forfeited 3 of its last 3 ladder matches")
    states = {s.name: s for s in Ledger(ledger_url()).bot_states()}  # another process reads it
    assert states["bo"].paused and not states["ada"].paused
    assert states["ada"].benched(datetime.now(timezone.utc)) and "forfeited 3" in states["ada"].bench_reason
    assert abs((states["ada"].benched_until - until).total_seconds()) < 1
    assert not states["ada"].benched(until + timedelta(seconds=1))
    led.add_bot("cy")  # neither paused nor ever benched: not among the standing ones
    assert [s.name for s in led.bot_states(standing=True)] == ["ada", "bo"]
    assert not led.set_paused("bo", False).paused
    assert [s.name for s in led.bot_states(standing=True)] == ["ada"]
    with pytest.raises(LedgerError, match="no bot named 'dee'"):
        led.set_paused("dee", True)


def test_every_match_has_a_kind_and_lists_filter_by_it(ledger_url):
    led = Ledger(ledger_url())
    for b in ("a", "b"):
        led.add_bot(b)
    league = led.create_league(GAME, {}, {}, [MatchPlan(0, 0, 1, ["a", "b"])])
    ladder = led.create_match(GAME, 2, {}, ["a", "b"], kind="ladder")
    ad_hoc = led.create_match(GAME, 3, {}, ["b", "a"])
    kinds = {m.id: m.kind for m in led.matches(limit=None)}
    assert kinds[ladder] == "ladder" and kinds[ad_hoc] == "match" and set(kinds.values()) == {"league", "ladder", "match"}
    assert [m.id for m in led.matches(kind="ladder")] == [ladder]
    assert led.match(ladder).kind == "ladder" and led.matches(kind="league")[0].league_id == league
    with pytest.raises(LedgerError, match="kind is one of"):
        led.create_match(GAME, 4, {}, ["a", "b"], kind="friendly")


def test_ladder_matches_left_running_are_failed_not_replayed(ledger_url):
    led = Ledger(ledger_url())
    for b in ("a", "b"):
        led.add_bot(b)
    running = led.create_match(GAME, 1, {}, ["a", "b"], kind="ladder")
    led.claim_match(running)
    done = led.create_match(GAME, 2, {}, ["a", "b"], kind="ladder")
    finish(led, done, 2)
    other = led.create_match(GAME, 3, {}, ["a", "b"])
    led.claim_match(other)
    assert led.fail_running_matches("ladder", "unplayed: the server stopped") == 1
    by_id = {m.id: m for m in led.matches(limit=None)}
    assert by_id[running].status == "failed" and by_id[running].fail_reason == "unplayed: the server stopped"
    assert by_id[done].status == FINISHED and by_id[other].status == "running"
    assert led.check() == []  # a failed ladder match is no problem of the ledger


def test_recent_conduct_counts_answers_faults_and_forfeits_of_the_last_ladder_matches(ledger_url):
    led = Ledger(ledger_url())
    for b in ("a", "b"):
        led.add_bot(b)
    for i in range(5):
        m = led.create_match(GAME, i + 1, {}, ["a", "b"], kind="ladder")
        finish(led, m, 2, faults=[i, 0], forfeited=[i == 4, False], latency=[{"10": 7}, {"10": 9}])
    finish(led, led.create_match(GAME, 99, {}, ["a", "b"]), 2, faults=[50, 0])  # not a ladder match
    conduct = led.recent_conduct("ladder", 3)
    assert [c[:3] for c in conduct["a"]] == [(7 + 2, 2, False), (7 + 3, 3, False), (7 + 4, 4, True)]
    assert [c[:3] for c in conduct["b"]] == [(9, 0, False)] * 3
    assert all(c[3].tzinfo is not None for c in conduct["a"])


def test_only_the_ladder_matches_of_a_gone_server_are_failed(ledger_url):
    """Several servers on one ledger: a match another live server plays on a lease is left alone;
    one whose worker is gone, whose lease ran out, or claimed without a lease, is failed."""
    led = Ledger(ledger_url())
    for b in ("a", "b"):
        led.add_bot(b)
    ids = {}
    for name, worker, lease in (("live", "here:1", 60), ("dead", "here:2", 60), ("expired", "far:3", 0.01),
                                ("no lease", None, None)):
        ids[name] = led.create_match(GAME, len(ids) + 1, {}, ["a", "b"], kind="ladder")
        led.claim_match(ids[name], worker, lease)
    import time
    time.sleep(0.05)
    assert led.fail_running_matches("ladder", "unplayed: the server stopped", alive=lambda w: w != "here:2") == 3
    status = {m.id: m.status for m in led.matches(limit=None)}
    assert status[ids["live"]] == "running"
    assert all(status[ids[n]] == "failed" for n in ("dead", "expired", "no lease"))


def test_a_server_never_fails_its_own_matches_whose_lease_ran_out(ledger_url):
    """A renewal late on a busy machine lets a server's own lease run out; its clean-up
    (``mine``: its own worker name) leaves those matches alone, and fails another server's."""
    led = Ledger(ledger_url())
    for b in ("a", "b"):
        led.add_bot(b)
    own = led.create_match(GAME, 1, {}, ["a", "b"], kind="ladder")
    other = led.create_match(GAME, 2, {}, ["a", "b"], kind="ladder")
    led.claim_match(own, "here:1", 0.01)
    led.claim_match(other, "far:3", 0.01)
    import time
    time.sleep(0.05)
    assert led.fail_running_matches("ladder", "unplayed", alive=lambda w: True, mine="here:1") == 1
    status = {m.id: m.status for m in led.matches(limit=None)}
    assert (status[own], status[other]) == ("running", "failed")
    assert led.renew_leases("here:1", [own], 60) == [own], "and it renews it as before"
