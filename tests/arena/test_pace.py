"""The arena's pace and its leases (server/ladder.py's module docstring; docs/arena.md, "Pace",
"Leases on one server").

- Pace, on an injected clock (no wall time): a ladder starts one match every 60/N s, never a
  burst after a stall; each ladder its own pace (``GAME@N``; 0: none); a bot's
  ``Hello.max_matches_per_hour`` spreads its starts 3600/M s apart over every ladder. The SDK
  says it in its hello and the server hands it to the arena.
- The CLI: a bad ``--rate`` or ``@RATE`` is one line, exit 2; a real `serve --rate 60` with two
  bots starts no more matches than its pace allows over the time it ran (a busy machine only
  makes fewer).
- Leases: a match whose end this server writes while a renewal runs is not reported lost; one
  the ledger no longer lets it renew while it plays is; renewals go on through the drain.
"""
from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from arenakit import PY_BOT, Bots, Ladders, Served, wait_for

from cardarena.ratings import Ledger
from cardarena.server.ladder import Arena, LadderError, LadderSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "leagues"))
from leaguekit import random_bots  # noqa: E402

LOST = "is no longer this server's"


# ----- pace, on an injected clock ------------------------------------------------------------
class NoLedger:
    """The ledger calls a scheduling arena makes (none of them writes)."""

    def bot_states(self, **_):
        return []

    def ratings(self, game):
        return []


class Sim:
    """An arena whose clock is ``now``, stepped by :meth:`run`; its matches take ``duration``
    seconds of that clock and are not played (``_play`` records the start; the end frees the
    seats as ``_play``'s own end does)."""

    def __init__(self, bots, ladders, *, rate=0.0, hourly=None, max_per_bot=4, duration=0.5):
        self.now, self.duration = 0.0, duration
        hello = SimpleNamespace(is_set=lambda: True)
        self.links = {b: SimpleNamespace(games=(), hello=hello, max_matches=0,
                                         max_matches_per_hour=(hourly or {}).get(b, 0)) for b in bots}
        self.arena = Arena(SimpleNamespace(links=self.links), NoLedger(), ladders, max_per_bot=max_per_bot,
                           rate=rate, clock=lambda: self.now)
        self.arena._play = self._play
        self.starts: list[tuple[float, str, tuple]] = []   # (clock, game, table)
        self._ends: list[tuple[float, list]] = []

    async def _play(self, spec, table):
        self.starts.append((self.now, spec.game, tuple(table)))
        self._ends.append((self.now + self.duration, table))

    async def run(self, until: float, step: float = 0.25) -> None:
        """As ``Arena._run`` does, every ``step`` of the clock up to ``until``: the ended
        matches free their seats, then every ladder starts what it may."""
        arena = self.arena
        while self.now < until:
            for end in [e for e in self._ends if e[0] <= self.now]:
                self._ends.remove(end)
                for b in end[1]:
                    arena.running[b] -= 1
                    arena.free_since.setdefault(b, self.now)
            while sum(arena._schedule(spec) for spec in arena.ladders):
                pass
            await asyncio.sleep(0)  # the started "matches" run: their starts are recorded
            self.now += step

    def times(self, game: str | None = None, bot: str | None = None) -> list[float]:
        return [t for t, g, table in self.starts if (game is None or g == game) and (bot is None or bot in table)]


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:])]


BOTS = [f"bot{i}" for i in range(8)]


def test_a_ladder_starts_one_match_every_60_over_n_seconds():
    """30 a minute: one start every 2 s of the clock, exactly, with eight bots free enough for
    many more; 300 in ten minutes."""
    sim = Sim(BOTS, [LadderSpec("sixth-card", 2)], rate=30)
    asyncio.run(sim.run(600))
    starts = sim.times()
    assert len(starts) == 300
    assert set(gaps(starts)) == {2.0}


def test_a_stall_is_not_made_up_by_a_burst():
    """A minute with no bot connected, then five minutes the loop did not run at all: once it
    runs again one match starts, and the next one 60/N s later, as if nothing had happened."""
    sim = Sim(BOTS, [LadderSpec("sixth-card", 2)], rate=30)

    async def scenario():
        await sim.run(10)
        away = dict(sim.links)
        sim.links.clear()
        await sim.run(70)
        sim.links.update(away)
        await sim.run(80)
        sim.now += 300.0  # the loop starved: no scheduling at all
        await sim.run(400)
    asyncio.run(scenario())
    starts = sim.times()
    assert min(gaps(starts)) >= 2.0
    assert [t for t in starts if 70 <= t < 80] == [70.0, 72.0, 74.0, 76.0, 78.0]
    assert [t for t in starts if 380 <= t < 390] == [380.0, 382.0, 384.0, 386.0, 388.0]


def test_each_ladder_has_its_own_pace_and_zero_is_none():
    """The arena's rate for a spec without one, ``@N`` for a spec with one; a ladder at 0 starts
    what its free bots allow, all at once (here four 2-seat tables of eight bots, one match each)."""
    sim = Sim(BOTS, [LadderSpec("sixth-card", 2), LadderSpec("unsorted", 3, rate=6.0)], rate=30)
    asyncio.run(sim.run(600))
    assert len(sim.times("sixth-card")) == 300 and set(gaps(sim.times("sixth-card"))) == {2.0}
    assert len(sim.times("unsorted")) == 60 and set(gaps(sim.times("unsorted"))) == {10.0}

    unpaced = Sim(BOTS, [LadderSpec("sixth-card", 2, rate=0.0)], rate=30, max_per_bot=1)
    asyncio.run(unpaced.run(0.1))
    assert unpaced.times() == [0.0] * 4


@pytest.mark.parametrize("asked,held", [(0, 2), (1, 1), (5, 2)])
def test_a_bot_holds_as_many_matches_at_once_as_it_may_and_no_more(asked, held):
    """The server's limit (2) for a bot whose hello asks none, or asks more; the hello's own when
    it asks fewer: two bots whose matches never end fill up to it, at once."""
    sim = Sim(["a", "b"], [LadderSpec("sixth-card", 2, rate=0.0)], max_per_bot=2, duration=1e9)
    sim.links["b"].max_matches = asked
    asyncio.run(sim.run(5))
    assert len(sim.times()) == held and sim.arena.running == {"a": held, "b": held}


def test_a_bot_starts_at_most_its_hourly_matches_evenly_spread_over_every_ladder():
    """A bot whose hello asks for 7 matches an hour, on two ladders that start one every 2 and
    2.5 s: its starts are 3600/7 s apart at the least, over both ladders, and it plays again at
    the first start of either once it may (it is the bot that has waited longest then): 14 in
    two hours. The other bots play on at the ladders' pace."""
    sim = Sim(BOTS, [LadderSpec("sixth-card", 2), LadderSpec("unsorted", 3, rate=24.0)], rate=30,
              hourly={"bot0": 7})
    asyncio.run(sim.run(7200))
    mine = sim.times(bot="bot0")
    assert min(gaps(mine)) >= 3600 / 7
    assert max(gaps(mine)) <= 3600 / 7 + 2.5
    assert len(mine) == 14
    assert {g for _, g, table in sim.starts if "bot0" in table} == {"sixth-card", "unsorted"}
    assert len(sim.times("sixth-card")) == 3600 and len(sim.times("unsorted")) == 2880


def test_the_sdk_asks_for_its_hourly_matches_in_its_hello():
    """``play(..., max_matches_per_hour=M)`` → Hello.max_matches_per_hour → the bot's link →
    what the arena counts for it."""
    from cardarena.client import bot as sdk
    from cardarena.server.referee import Referee
    from cardarena.server.service import start_server

    async def scenario() -> int:
        referee = Referee()
        hosted = await start_server(referee, "127.0.0.1:0")
        token = referee.mint_session_token("capped")
        player = asyncio.create_task(sdk.play(lambda d: 0, hosted.address, token, max_matches_per_hour=7))
        try:
            for _ in range(200):
                link = referee.links.get("capped")
                if link is not None and link.hello.is_set():
                    break
                await asyncio.sleep(0.05)
            arena = Arena(referee, NoLedger(), [LadderSpec("sixth-card", 2)])
            return arena._hourly("capped")
        finally:
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
            await hosted.server.stop(grace=0)

    assert asyncio.run(scenario()) == 7


# ----- the CLI --------------------------------------------------------------------------------
def test_a_ladder_may_name_its_pace():
    assert LadderSpec.parse("sixth-card:4@30") == LadderSpec("sixth-card", 4, 30.0)
    assert LadderSpec.parse("sixth-card@0.5") == LadderSpec("sixth-card", 2, 0.5)
    assert LadderSpec.parse("unsorted@0").rate == 0.0
    assert LadderSpec.parse("unsorted:4").rate is None  # the arena's (serve --rate)
    for bad, words in (("sixth-card@-1", "0 (no pace) or more, not -1"), ("sixth-card:4@fast", "not 'fast'"),
                       ("sixth-card@", "not ''"), ("sixth-card@inf", "not inf"), ("unsorted:2@5", "3 to 5 seats")):
        with pytest.raises(LadderError, match=re.escape(words)):
            LadderSpec.parse(bad)


@pytest.mark.parametrize("argv, words", [
    (["--rate", "-1"], ["--rate", "0 (no pace) or more, not -1"]),
    (["--rate", "nan"], ["--rate", "not nan"]),
    (["--rate", "lots"], ["--rate"]),
    (["--ladder", "sixth-card@-3"], ["--ladder", "not -3"]),
    (["--ladder", "sixth-card:4@fast"], ["--ladder", "not 'fast'"]),
])
def test_a_bad_pace_is_one_line_and_exit_2(cli, tmp_path, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)  # were it to start after all, its ledger lands here
    code, _, err = cli("serve", "--no-web", "--db", str(tmp_path / "x.db"), *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    for w in words:
        assert w in lines[0], lines[0]
    assert not (tmp_path / "x.db").exists()


def test_serve_plays_at_its_pace(tmp_path, new_ledger):
    """`serve --ladder sixth-card --rate 60` and two random bots (whose matches take a fraction
    of a second) for about ten seconds after the first match: no more matches than one a second
    over the whole time the server ran, plus the first; unpaced they would be dozens."""
    served = Served(tmp_path, new_ledger(tmp_path, "arena"), ["--ladder", "sixth-card", "--rate", "60"])
    bots = Bots(served)
    ladders = Ladders(served.db)
    try:
        bots.add("a", "b")
        began = time.monotonic()
        served.start()
        bots.connect("a", PY_BOT)
        bots.connect("b", PY_BOT)
        wait_for("the first ladder match", lambda: ladders.matches(), timeout=120, explain=ladders.describe)
        first = time.monotonic()
        while time.monotonic() - first < 10:
            time.sleep(0.5)
        served.stop()
        ran = time.monotonic() - began
        started = len(ladders.matches())
        assert "sixth-card (tables of 2, at most 60 matches a minute)" in served.log()
        assert 2 <= started <= 1 + ran, (started, ran, ladders.describe())
    finally:
        bots.close()
        served.close()


# ----- leases ---------------------------------------------------------------------------------
def two_bots(ledger: Ledger) -> list[str]:
    names = ["a", "b"]
    for n in names:
        ledger.add_bot(n)
    return names


def arena_of(referee, ledger: Ledger, **kw) -> Arena:
    return Arena(referee, ledger, [LadderSpec("sixth-card", 2, rate=0.0)], max_per_bot=1, tick=0.02,
                 lease_seconds=0.3, **kw)


async def arena_until(referee, ledger: Ledger, names: list[str], finished: int) -> Arena:
    """An arena of ``names`` (random bots) until ``finished`` matches are recorded; then stopped."""
    arena = arena_of(referee, ledger)
    async with random_bots(referee, names) as links:
        for link in links:
            link.hello.set()
        arena.start()
        while arena.stats.finished < finished:
            await asyncio.sleep(0.02)
        await arena.stop()
    return arena


def renewals(ledger: Ledger) -> list[set[int]]:
    """Wraps ``ledger.renew_leases``: every renewal's match ids, in the list returned."""
    calls: list[set[int]] = []
    renew = ledger.renew_leases

    def counted(worker, ids, lease_s):
        calls.append(set(ids))
        return renew(worker, ids, lease_s)
    ledger.renew_leases = counted
    return calls


def test_a_match_this_server_ends_during_a_renewal_is_not_reported_lost(ledger_url, caplog):
    """The race behind the false "lease ran out" lines of a single server: a renewal takes the
    ids of the matches playing, a match's own end is written (it is no longer running, so the
    renewal does not renew it) before the event loop has seen that end. Here every recording
    waits, once written, for the next renewal to be done; no match may be called lost."""
    from cardarena.server.referee import Referee, TimeControl
    ledger = Ledger(ledger_url())
    names = two_bots(ledger)
    calls = renewals(ledger)
    raced = []
    record = ledger.record_match

    def record_then_a_renewal(match_id, **kw):
        changes = record(match_id, **kw)
        seen = len(calls)
        deadline = time.monotonic() + 5
        while len(calls) == seen and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.05)  # that renewal's answer is back on the loop before this recording's
        raced.append(any(match_id in ids for ids in calls[seen:]))
        return changes
    ledger.record_match = record_then_a_renewal

    async def scenario():
        referee = Referee(time_control=TimeControl(move_seconds=5.0))
        await arena_until(referee, ledger, names, 3)

    with caplog.at_level(logging.WARNING, logger="cardarena.ladder"):
        asyncio.run(asyncio.wait_for(scenario(), 120))
    assert any(raced), "no renewal ran over a match's end: the race was not played"
    assert not [r for r in caplog.records if LOST in r.getMessage()], caplog.text
    ledger.close()


def test_a_match_the_ledger_no_longer_lets_this_server_renew_is_reported(ledger_url, caplog):
    """The line stays for what it is for: a match still being played here whose lease the
    ledger no longer renews (another server took it) is named."""
    from cardarena.server.referee import Referee, TimeControl
    ledger = Ledger(ledger_url())
    names = two_bots(ledger)
    renewed = threading.Event()

    def taken(worker, ids, lease_s):
        if ids:
            renewed.set()
        return []  # none is this server's any more
    ledger.renew_leases = taken

    async def scenario():
        referee = Referee(time_control=TimeControl(move_seconds=5.0))
        play = referee.play

        async def slow_play(*args, **kw):
            renewed.clear()
            for _ in range(200):  # played on until a renewal has seen it
                if renewed.is_set():
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.1)
            return await play(*args, **kw)
        referee.play = slow_play
        await arena_until(referee, ledger, names, 1)

    with caplog.at_level(logging.WARNING, logger="cardarena.ladder"):
        asyncio.run(asyncio.wait_for(scenario(), 120))
    assert [r for r in caplog.records if LOST in r.getMessage()], caplog.text
    ledger.close()


def test_leases_are_renewed_through_the_drain(ledger_url):
    """At a stop the running matches get their drain, and their leases keep being renewed
    meanwhile (else, past the lease, another server would take a match still being played)."""
    from cardarena.server.referee import Referee, TimeControl
    ledger = Ledger(ledger_url())
    names = two_bots(ledger)
    calls = renewals(ledger)
    stopping = threading.Event()
    during_drain: list[set[int]] = []

    async def scenario():
        referee = Referee(time_control=TimeControl(move_seconds=5.0))
        play = referee.play

        async def long_play(*args, **kw):
            while not stopping.is_set():
                await asyncio.sleep(0.02)
            seen = len(calls)
            for _ in range(100):  # up to 2 s of the drain, or three renewals
                if len(calls) >= seen + 3:
                    break
                await asyncio.sleep(0.02)
            during_drain.extend(calls[seen:])
            return await play(*args, **kw)
        referee.play = long_play
        arena = arena_of(referee, ledger, drain_seconds=30)
        async with random_bots(referee, names) as links:
            for link in links:
                link.hello.set()
            arena.start()
            while not arena.playing_ids:
                await asyncio.sleep(0.02)
            (match_id,) = arena.playing_ids
            stopping.set()
            await arena.stop()
        return match_id

    match_id = asyncio.run(asyncio.wait_for(scenario(), 120))
    assert [ids for ids in during_drain if match_id in ids], during_drain
    assert ledger.match(match_id).status == "finished"
    ledger.close()


def test_the_arena_takes_its_own_matches_ratings_as_they_are_recorded(ledger_url):
    """The ledger's ratings are read every RATINGS_EVERY seconds; between two reads the arena
    holds the ratings its own recorded matches gave, the same as the ledger's."""
    from cardarena.server.referee import Referee, TimeControl
    ledger = Ledger(ledger_url())
    names = two_bots(ledger)

    async def scenario():
        return await arena_until(Referee(time_control=TimeControl(move_seconds=5.0)), ledger, names, 3)

    arena = asyncio.run(asyncio.wait_for(scenario(), 120))
    assert arena._ratings_at > arena.clock(), "no read of the ledger's ratings since the start"
    want = {r.bot: (r.mu, r.sigma) for r in ledger.ratings("sixth-card")}
    assert set(want) == set(names) and arena._ratings["sixth-card"] == want
    ledger.close()


@pytest.mark.parametrize("client", ["python", "node", "bridge"])
def test_bot_connect_hands_every_client_its_hourly_limit(client):
    """``bot connect --max-matches-per-hour 7`` sets CARDARENA_MAX_MATCHES_PER_HOUR, which the
    Python SDK, the Node.js helper and the bridge each put in their hello."""
    import os
    import signal
    import subprocess

    from arenakit import CLI, NODE_BOT, SH_BOT, need_bridge, need_node

    from cardarena.server.referee import Referee
    from cardarena.server.service import start_server

    command = {"python": PY_BOT, "node": NODE_BOT, "bridge": SH_BOT}[client]
    if client == "node":
        need_node()
    if client == "bridge":
        need_bridge()

    async def scenario() -> int:
        referee = Referee()
        hosted = await start_server(referee, "127.0.0.1:0")
        token = referee.mint_session_token("capped")
        proc = await asyncio.create_subprocess_exec(
            *CLI, "bot", "connect", "--address", hosted.address, "--max-matches-per-hour", "7", "--",
            *command.split(), env={**os.environ, "CARDARENA_TOKEN": token},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            for _ in range(1200):  # a minute at most: a busy machine's Node or Python start-up
                link = referee.links.get("capped")
                if link is not None and link.hello.is_set():
                    return link.max_matches_per_hour
                await asyncio.sleep(0.05)
            raise AssertionError(f"the {client} bot never said hello")
        finally:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 60)
            await hosted.server.stop(grace=0)

    assert asyncio.run(scenario()) == 7
