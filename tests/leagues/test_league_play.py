"""Leagues played on a real Referee with in-process random bots: the schedule in the ledger, duplicate
deals, concurrency, interruption and resume, failed matches, and replay verification."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from leaguekit import GAME, random_bots, referee

from cardarena.ratings import Ledger
from cardarena.server.league import (
    LeagueSpec, LeagueStats, check_spec, league_plans, prepare_resume, resume_league, run_league, verify_match,
)

BOTS = ["ada", "bo", "cy", "di"]


@pytest.fixture
def ledger(ledger_url):
    """The test's ledger (:func:`ledger_url`) with the four bots registered."""
    ledger = Ledger(ledger_url())
    for b in BOTS:
        ledger.add_bot(b)
    yield ledger
    ledger.close()


def run(ledger, spec, **kw):
    async def main():
        ref = referee()
        async with random_bots(ref, spec.bots):
            stats = LeagueStats()
            league_id = await run_league(ref, ledger, spec, stats=stats, **kw)
            return league_id, stats
    return asyncio.run(main())


def assert_counted_once(ledger: Ledger, league_id: int) -> None:
    """Every match finished once: one log, one rating row per seat, ratings = recomputation."""
    matches = ledger.league_matches(league_id)
    assert all(m.status == "finished" for m in matches)
    plays = {b: 0 for b in BOTS}
    for m in matches:
        for b in m.bots:
            plays[b] += 1
        assert len(ledger.match(m.id).rating_changes) == len(m.bots)
    assert {r.bot: r.matches for r in ledger.ratings(GAME)} == plays
    assert ledger.check() == []


def test_a_duplicate_league_writes_its_schedule_and_plays_every_match_once(ledger):
    spec = LeagueSpec(GAME, BOTS, seats=3, seed=11, concurrency=3, matches=9, duplicate=True,
                      commands={b: f"python bots/{b}.py" for b in BOTS}, workdir="/somewhere",
                      bank_seconds=1.5, max_faults=2, grace_seconds=4)
    active = []

    async def main():
        ref = referee()
        async with random_bots(ref, BOTS):
            async def watch():
                while True:
                    active.append(ref.active_matches)
                    await asyncio.sleep(0.002)
            w = asyncio.create_task(watch())
            stats = LeagueStats()
            league_id = await run_league(ref, ledger, spec, stats=stats)
            w.cancel()
            return league_id, stats

    league_id, stats = asyncio.run(main())
    assert stats.played == 9 and stats.decisions > 9 * 20 and len(stats.record_seconds) == 9
    assert max(active) >= 2, "matches run concurrently"
    info = ledger.league(league_id)
    s = info.settings
    assert s["schedule"] == "balanced" and s["matches"] == 9 and s["duplicate"] is True and s["seed"] == 11
    assert s["commands"] == {b: f"python bots/{b}.py" for b in BOTS} and s["workdir"] == "/somewhere"
    assert (s["bank_seconds"], s["max_faults"], s["grace_seconds"]) == (1.5, 2, 4)
    plans = league_plans(check_spec(spec))
    matches = ledger.league_matches(league_id)
    assert [(m.seed, m.bots, m.duplicate_set) for m in matches] == [(p.seed, p.bots, p.duplicate_set) for p in plans]
    assert_counted_once(ledger, league_id)

    # the same deal in every rotation of a set: the setup (step 0) is the same, seat by seat
    for set_id in range(3):
        members = [ledger.match(m.id) for m in matches if m.duplicate_set == set_id]
        setups = [[e for e in m.events if e["step"] == 0] for m in members]
        assert len(members) == 3 and setups[0] and setups[0] == setups[1] == setups[2]
        assert len({tuple(m.bots) for m in members}) == 3
    other_sets = [[e for e in ledger.match(m.id).events if e["step"] == 0] for m in matches[::3]]
    assert other_sets[0] != other_sets[1], "each set its own deal"


def test_an_interrupted_league_resumes_without_losing_repeating_or_double_counting(ledger):
    spec = LeagueSpec(GAME, BOTS, seats=3, rounds=1, seed=5, concurrency=2)
    total = len(league_plans(check_spec(spec)))  # 12

    async def interrupted():
        ref = referee()
        async with random_bots(ref, BOTS):
            task = asyncio.create_task(run_league(ref, ledger, spec))
            while not ledger.leagues() or ledger.leagues()[0].counts["finished"] < 3:
                await asyncio.sleep(0.01)
            task.cancel()  # what Ctrl-C does to the CLI's league
            try:
                await task
            except asyncio.CancelledError:
                pass

    asyncio.run(interrupted())
    (league,) = ledger.leagues()
    assert league.counts["running"] == 0, "matches being played went back to the schedule"
    assert 3 <= league.counts["finished"] < total
    before = {m.id: (m.places, m.scores) for m in ledger.league_matches(league.id, "finished")}
    # a process killed outright leaves its match running, unrecorded
    killed = ledger.claim_next(league.id)
    assert ledger.league(league.id).counts["running"] == 1

    async def resume():
        ref = referee()
        async with random_bots(ref, BOTS, seed=1):
            stats = LeagueStats()
            played = await resume_league(ref, ledger, league.id, stats=stats)
            return played, stats

    played, stats = asyncio.run(resume())
    assert played == total - len(before) and stats.played == played
    after = {m.id: (m.places, m.scores) for m in ledger.league_matches(league.id)}
    assert len(after) == total
    assert all(after[mid] == res for mid, res in before.items()), "finished matches are never played again"
    replayed = ledger.match(killed.id)
    assert replayed.status == "finished" and replayed.seed == killed.seed
    assert_counted_once(ledger, league.id)
    for m in ledger.league_matches(league.id):
        assert verify_match(ledger.match(m.id)) == []


def test_resume_resets_only_stale_matches_when_asked(ledger):
    plans = league_plans(check_spec(LeagueSpec(GAME, BOTS, seats=2)))
    league_id = ledger.create_league(GAME, {}, {"bots": BOTS}, plans)
    ledger.claim_next(league_id)
    assert prepare_resume(ledger, league_id, stale_after=3600) == (0, 0), "claimed just now: maybe alive"
    assert prepare_resume(ledger, league_id) == (1, 0)
    assert ledger.league(league_id).counts["running"] == 0


def test_a_match_that_raises_fails_alone_and_can_be_played_again(ledger, monkeypatch):
    spec = LeagueSpec(GAME, BOTS, seats=4, rounds=1, seed=2, concurrency=2)
    ref = referee()
    real_play = ref.play
    broken = set()

    async def play(game, bots, seed, options, match_id, tc=None, **kw):
        if not broken:
            broken.add(match_id)
            raise RuntimeError("engine bug")
        return await real_play(game, bots, seed, options, match_id, tc, **kw)

    monkeypatch.setattr(ref, "play", play)

    async def main(fn):
        async with random_bots(ref, BOTS):
            return await fn()

    stats = LeagueStats()
    league_id = asyncio.run(main(lambda: run_league(ref, ledger, spec, stats=stats)))
    info = ledger.league(league_id)
    assert info.counts == {"scheduled": 0, "running": 0, "finished": 3, "failed": 1}
    assert stats.failed == 1 and "engine bug" in stats.first_failure
    (failed,) = ledger.league_matches(league_id, "failed")
    assert failed.fail_reason == "RuntimeError: engine bug" and failed.id == int(next(iter(broken)))
    assert asyncio.run(main(lambda: resume_league(ref, ledger, league_id))) == 0, "failed stays failed"
    assert asyncio.run(main(lambda: resume_league(ref, ledger, league_id, retry_failed=True))) == 1
    assert ledger.league(league_id).counts["finished"] == 4
    assert_counted_once(ledger, league_id)


@pytest.mark.parametrize("recorder", ["process", "thread"])
def test_a_match_recorded_meanwhile_elsewhere_is_skipped_not_counted_twice(ledger, monkeypatch, recorder):
    """Through the recorder process (a ledger file) and through the writer thread (used for an
    in-memory ledger): the LedgerError of the second record skips the match."""
    from cardarena.server import league as league_mod

    spec = LeagueSpec(GAME, BOTS, seats=4, rounds=1, seed=3, concurrency=1)
    raced = []
    if recorder == "process":
        real = league_mod.Recorder.record

        async def record(self, match_id, **kw):
            if not raced:  # another process (after a reset) recorded this match first
                raced.append(match_id)
                ledger.record_match(match_id, **kw)
            return await real(self, match_id, **kw)

        monkeypatch.setattr(league_mod.Recorder, "record", record)
    else:
        monkeypatch.setattr(league_mod.Recorder, "can_serve", staticmethod(lambda ledger: False))
        real_record = ledger.record_match

        def record_match(match_id, **kw):
            if not raced:
                raced.append(match_id)
                real_record(match_id, **kw)
            return real_record(match_id, **kw)

        monkeypatch.setattr(ledger, "record_match", record_match)
    league_id, stats = run(ledger, spec)
    assert raced and stats.skipped == 1 and stats.played == 3
    assert_counted_once(ledger, league_id)


def test_verify_finds_a_tampered_record(ledger):
    league_id, _ = run(ledger, LeagueSpec(GAME, BOTS, seats=2, matches=2, seed=8))
    m = ledger.match(ledger.league_matches(league_id)[0].id)
    assert verify_match(m) == []
    steps = [dict(s) for s in m.steps]
    seat = next(iter(steps[0]))
    steps[0][seat] = 0 if steps[0][seat] else 1
    assert any("differs" in p or "place" in p or "score" in p for p in verify_match(dataclasses.replace(m, steps=steps)))
    assert any("places" in p for p in verify_match(dataclasses.replace(m, places=list(reversed(m.places)))))
    assert any("steps" in p for p in verify_match(dataclasses.replace(m, steps=m.steps[:-1])))
    events = [dict(e) for e in m.events]
    events[1] = {**events[1], "seats": None}
    assert any("event 1" in p for p in verify_match(dataclasses.replace(m, events=events)))
    try:
        verify_match(dataclasses.replace(m, status="scheduled"))
    except Exception as e:
        assert "only a finished match" in str(e)
    else:
        raise AssertionError("an unfinished match cannot be verified")


def test_a_recorder_that_dies_ends_the_league_with_its_reason_and_resume_completes_it(ledger, monkeypatch):
    """The recorder process is killed after its first record: the league stops with a clear
    error, nothing half-written is left, and `resume` plays and records the rest."""
    from cardarena.server import league as league_mod

    spec = LeagueSpec(GAME, BOTS, seats=2, matches=6, seed=5, concurrency=2)
    real = league_mod.Recorder.record

    async def record(self, match_id, **kw):
        seconds = await real(self, match_id, **kw)
        self.proc.kill()  # the recorder dies after recording one match
        return seconds

    monkeypatch.setattr(league_mod.Recorder, "record", record)
    with pytest.raises(league_mod.RecorderError, match="the ledger recorder stopped"):
        run(ledger, spec)
    (league,) = ledger.leagues()
    counts = ledger.league(league.id).counts
    assert counts["finished"] >= 1 and counts["finished"] < 6 and counts["failed"] == 0
    assert ledger.check() == [], "every finished match complete; ratings recompute"

    monkeypatch.setattr(league_mod.Recorder, "record", real)

    async def resume():
        ref = referee()
        async with random_bots(ref, spec.bots):
            return await resume_league(ref, ledger, league.id)
    asyncio.run(resume())
    assert_counted_once(ledger, league.id)
