"""The arena end to end (server/ladder.py's module docstring is the spec).

Real `cardarena serve --ladder …` processes on a real SQLite ledger, and bots of two languages
that join through `cardarena bot connect`: Python SDK bots and bash bots behind the stdin/stdout
bridge (plus a Node.js bot where the helper is built: `make examples`; without bash and jq, or
the Node.js helper, those tests skip here and fail under CI, as tests/e2e does).

- Six bots on two ladders play only the games they claim (Hello.games), every match of kind
  ladder and rated; a bot that connects late joins; `bot pause` / `bot resume` (the ledger file
  and --server); no bot ever holds more matches at once than its Hello.max_matches asks.
- Quarantine: a bot that crashes forfeits, is benched (`bot list`, `bot list --server` say so and
  why), is started again by `bot connect` and plays once the bench is over; a bot that answers
  out of range often is benched for its faults.
- Shutdown: SIGTERM drains (exit 143; what does not finish is unplayed, nothing half-recorded;
  `ledger check --replay` OK) and a restarted server goes on; a SIGKILLed server's running
  matches are marked unplayed by the next one.

- In-process, what these found in server/ladder.py: a match that ends during a bench is not
  judged after it, nor by a restarted server; a bench not yet written to the ledger holds; the
  table its bots have just left waits a moment for another bot (rematches).

Every wait polls the ledger with a generous limit, a guard against hanging: no assertion here
is about speed (bench/arena.py measures that).
"""
from __future__ import annotations

import asyncio
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from arenakit import (FAULTY_SH_BOT, HERE, NODE_BOT, PY_BOT, PY_HEURISTIC, ROOT, SH_BOT, Bots, Ladders, Served,
                      need_bridge, need_node, utc, wait_for)

from cardarena.ratings.models import BotState
from cardarena.server.ladder import REMATCH_WAIT, UNPLAYED, Arena, LadderSpec, QuarantineRule

GAMES = {"sixth-card": 2, "unsorted": 3}   # the two ladders: game → seats at a table
LADDERS = ["--ladder", "sixth-card", "--ladder", "unsorted:3"]
K = 3                                        # ladder matches each bot plays in the first test
SIX = {  # name: (command, the games it claims (none: every game), its Hello.max_matches (0: the server's 2))
    "py-any": (PY_HEURISTIC, (), 0),
    "py-sixth": (PY_BOT, ("sixth-card",), 1),
    "py-unsorted": (PY_BOT, ("unsorted",), 0),
    "sh-any": (SH_BOT, (), 0),
    "sh-sixth": (SH_BOT, ("sixth-card",), 0),
    "sh-unsorted": (SH_BOT, ("unsorted",), 1),
}


def line_of(listing: str, bot: str) -> str:
    """The line of ``bot`` in the output of `bot list`."""
    return next(line for line in listing.splitlines() if line.split("\t")[0] == bot)


def six_played_k(ladders: Ladders) -> None:
    wait_for(f"each of the six bots played {K} ladder matches", lambda: all(
        ladders.played_by(name) >= K for name in SIX), explain=ladders.describe)


@pytest.fixture(scope="class")
def six(tmp_path_factory, new_ledger):
    """The server of TestSixBotsOnTwoLadders and its six bots (SIX)."""
    need_bridge()
    workdir = tmp_path_factory.mktemp("six")
    # a pace of a match a second a ladder: every behaviour here shows within seconds, and the
    # machine is not spent on matches nobody waits for (flat out is ~10 a second)
    served = Served(workdir, new_ledger(workdir, "arena"), [*LADDERS, "--move-time", "1", "--max-matches", "2",
                                                            "--rate", "60"])
    bots = Bots(served)
    try:
        bots.add(*SIX)
        served.start()
        for name, (command, games, most) in SIX.items():
            bots.connect(name, command, games=games, max_matches=most)
        yield served, bots, Ladders(served.db)
    finally:
        bots.close()
        served.close()


class TestSixBotsOnTwoLadders:
    """One server, six bots (three Python, three bridge), and the bots that join later."""

    def test_six_bots_play_the_games_they_claim_in_rated_ladder_matches(self, six):
        served, bots, ladders = six

        six_played_k(ladders)
        before = ladders.played()
        rated = {(r.bot, r.game): r.matches for game in GAMES for r in ladders.ledger.ratings(game)}
        after = ladders.played()
        for m in ladders.matches():
            assert m.kind == "ladder"
            assert len(set(m.bots)) == len(m.bots) == GAMES[m.game], m
            for b in m.bots:
                assert bots.claims(b, m.game), f"{b} claims only {bots.games[b]} but sat at {m.game} (match {m.id})"
        for (b, game), n in before.items():  # every finished ladder match is rated, in its own game
            assert n <= rated[(b, game)] <= after[(b, game)], (b, game)
        assert not ladders.ledger.matches(kind="league") and not ladders.ledger.matches(kind="match")

    @pytest.mark.parametrize("language", ["python", "node"])
    def test_a_bot_that_connects_late_joins_and_plays(self, six, language):
        """Added through the admin service while the ladders run (`bot add --server` prints the
        token), then connected: it gets tables of the games it claims. The Node.js bot claims
        unsorted alone and one match at a time (its helper's Hello from CARDARENA_GAMES and
        CARDARENA_MAX_MATCHES, set by `bot connect`)."""
        served, bots, ladders = six
        if language == "node":
            need_node()
        name = f"late-{language}"
        r = served.cli("bot", "add", name, "--owner", "the arena tests", remote=True)
        assert r.returncode == 0, r.stderr
        bots.tokens[name] = r.stdout.strip()
        since = ladders.last_id()
        if language == "python":
            bots.connect(name, PY_BOT)
        else:
            bots.connect(name, NODE_BOT, games=["unsorted"], max_matches=1)
        wait_for(f"{name} played 2 ladder matches", lambda: ladders.played_by(name, since) >= 2,
                 explain=ladders.describe)
        games = {m.game for m in ladders.matches() if name in m.bots}
        assert games <= {g for g in GAMES if bots.claims(name, g)}, games

    def test_bot_pause_stops_its_new_matches_and_bot_resume_brings_it_back(self, six):
        """Paused on the ledger file (`bot pause --db`, from another process: the server reads it
        once a second) and resumed through the admin service (`--server`: at once); then the
        other way round. `bot list` says paused, on the file and from the server."""
        served, bots, ladders = six
        for pause_remote, listed_remote in ((False, True), (True, False)):
            r = served.cli("bot", "pause", "py-any", remote=pause_remote)
            assert r.returncode == 0 and "paused" in r.stdout, r.stderr
            time.sleep(2)  # a couple of seconds: the tables it was drawn for till then still count
            settled = ladders.last_id()
            assert line_of(served.cli("bot", "list", remote=listed_remote).stdout, "py-any").endswith("\tpaused")
            wait_for("the other bots played 3 more ladder matches", lambda: len(
                [m for m in ladders.matches("finished") if m.id > settled]) >= 3, explain=ladders.describe)
            assert not [m.id for m in ladders.matches() if m.id > settled and "py-any" in m.bots], ladders.describe()
            r = served.cli("bot", "resume", "py-any", remote=not pause_remote)
            assert r.returncode == 0 and "resumed" in r.stdout, r.stderr
            wait_for("py-any playing again", lambda: ladders.played_by("py-any", settled) >= 1,
                     explain=ladders.describe)

    def test_no_bot_holds_more_matches_at_once_than_its_hello_asks(self, six):
        """Hello.max_matches (the SDK's and the bridge's from CARDARENA_MAX_MATCHES), else the
        server's --max-matches 2: the matches' intervals in the ledger never overlap more. (That
        a bot reaches its limit depends on how long matches take at this pace: tests/arena/
        test_pace.py shows it on the arena's injected clock.)"""
        served, bots, ladders = six
        six_played_k(ladders)  # when run alone
        for bot, n in ladders.most_at_once().items():
            assert n <= (bots.max_matches[bot] or 2), (bot, n, ladders.describe())


@pytest.fixture(scope="class")
def quarantine(tmp_path_factory, new_ledger):
    """The server of TestQuarantine (its docstring) and its five bots."""
    need_bridge()
    workdir = tmp_path_factory.mktemp("quarantine")
    served = Served(workdir, new_ledger(workdir, "arena"),
                    ["--ladder", "sixth-card", "--move-time", "1", "--grace", "0.5", "--max-faults", "0",
                     "--bench-seconds", "30", "--bench-window", "5", "--bench-forfeits", "2",
                     "--rate", "60"])  # a match a second: the 30 s bench is waited out at that pace
    bots = Bots(served)
    try:
        bots.add("crasher", "faulty", "py-good", "sh-good", "py-good-2")
        served.start()
        bots.connect("crasher", f"python {HERE / 'crashing_bot.py'} {workdir / 'crasher-runs.txt'} 2")
        bots.connect("faulty", FAULTY_SH_BOT)
        bots.connect("py-good", PY_BOT)
        bots.connect("sh-good", SH_BOT)
        bots.connect("py-good-2", PY_BOT)
        yield served, bots, Ladders(served.db)
    finally:
        bots.close()
        served.close()


class TestQuarantine:
    """One server whose quarantine rule is quick: a bot away 0.5 s in a match forfeits it; two
    forfeits (or faults above 10 % of its decisions) in its last five ladder matches bench a bot
    for 30 s. Faults never forfeit here (--max-faults 0), so the faulty bot is judged by its faults."""

    @staticmethod
    def benched(ladders: Ladders, bot: str, seconds_left: float = 0.0):
        """The bot's state if it is benched (for at least ``seconds_left`` more), else None."""
        state = next(s for s in ladders.ledger.bot_states() if s.name == bot)
        return state if state.benched(datetime.now(timezone.utc) + timedelta(seconds=seconds_left)) else None

    def test_a_bot_that_crashes_forfeits_is_benched_and_comes_back(self, quarantine):
        served, bots, ladders = quarantine
        # `bot list` must run while the bench lasts: at least 20 s of it left (a CLI takes ~1 s,
        # much more on a loaded machine)
        state = wait_for("the crasher benched, 20 s of its bench to go", lambda: self.benched(ladders, "crasher", 20),
                         timeout=120, explain=ladders.describe)
        assert "forfeited 2 of its last" in state.bench_reason
        with ThreadPoolExecutor(2) as pool:  # both at once, while the bench lasts
            listed = list(pool.map(lambda remote: served.cli("bot", "list", remote=remote).stdout, (False, True)))
        for listing in listed:  # the ledger file's, then the server's
            line = line_of(listing, "crasher")
            assert "benched until" in line and "forfeited 2 of its last" in line, line
        lost = [m for m in ladders.matches("finished") if "crasher" in m.bots
                and ladders.ledger.match(m.id).forfeited[m.bots.index("crasher")]]
        assert len(lost) >= 2, ladders.describe()
        until, benched_at = state.benched_until, sorted(utc(m.finished_at) for m in lost)[1]
        assert not [m.id for m in ladders.matches() if "crasher" in m.bots and benched_at < utc(m.created_at) < until]
        # the bench ends by itself; `bot connect` has started the program again meanwhile

        def played_again():
            return [m for m in ladders.matches("finished") if "crasher" in m.bots and utc(m.created_at) >= until
                    and not ladders.ledger.match(m.id).forfeited[m.bots.index("crasher")]]

        wait_for("the crasher playing a whole match after its bench", played_again, timeout=120,
                 explain=ladders.describe)
        assert self.benched(ladders, "crasher") is None
        runs = (served.workdir / "crasher-runs.txt").read_text().splitlines()
        assert len(runs) >= 3, runs  # two crashes, then the run that plays
        assert "starting it again" in (served.workdir / "crasher.log").read_text()

    def test_a_bot_that_answers_out_of_range_often_is_benched(self, quarantine):
        served, bots, ladders = quarantine
        state = wait_for("the faulty bot benched, 20 s of its bench to go", lambda: self.benched(ladders, "faulty", 20),
                         explain=ladders.describe)
        rate = re.search(r"\d+ faults in \d+ decisions \((\d+) %\)", state.bench_reason)
        assert rate and int(rate.group(1)) > 10, state.bench_reason  # one answer in three is out of range
        seats = [(d.faults[d.bots.index("faulty")], d.forfeited[d.bots.index("faulty")])
                 for d in (ladders.ledger.match(m.id) for m in ladders.matches("finished") if "faulty" in m.bots)]
        assert seats and all(faults > 0 and not forfeited for faults, forfeited in seats), seats
        line = line_of(served.cli("bot", "list", remote=True).stdout, "faulty")
        assert "benched until" in line and "faults in" in line, line


def test_sigterm_drains_the_ladders_and_a_restarted_server_goes_on_even_after_sigkill(tmp_path, ledger_url):
    """SIGTERM mid-ladder: no new match, the running ones get --drain 2 s, the rest (the slow
    bot's: 0.8 s a decision) are unplayed; exit 143 and a clean ledger. The bots reconnect to a
    server started again on the same ledger and address, and the ratings keep counting. A
    SIGKILLed server leaves matches running, which the next one marks unplayed."""
    need_bridge()
    served = Served(tmp_path, ledger_url("arena"), [*LADDERS, "--move-time", "2", "--drain", "2", "--rate", "120"])
    bots = Bots(served)
    ladders = Ladders(served.db)

    def running_with_slow():
        return [m for m in ladders.matches("running") if "slow" in m.bots]

    def clean_ledger() -> None:
        assert {m.status for m in ladders.matches()} <= {"finished", "failed"}, ladders.describe()
        assert {m.fail_reason for m in ladders.matches("failed")} <= {UNPLAYED}, ladders.describe()
        r = served.cli("ledger", "check", "--replay")
        assert r.returncode == 0 and "ledger OK" in r.stdout, r.stdout + r.stderr

    try:
        bots.add("py-a", "py-b", "sh-c", "sh-d", "slow")
        served.start()
        for name, command in (("py-a", PY_BOT), ("py-b", PY_HEURISTIC), ("sh-c", SH_BOT), ("sh-d", SH_BOT)):
            bots.connect(name, command)
        bots.connect("slow", f"python {ROOT / 'tests' / 'bots' / 'slow_bot.py'}", games=["sixth-card"],
                     env={"CARDARENA_THINK": "0.8"})
        wait_for("six ladder matches finished and the slow bot's running",
                 lambda: len(ladders.matches("finished")) >= 6 and running_with_slow(), explain=ladders.describe)
        slow_match = running_with_slow()[0].id
        assert served.stop(signal.SIGTERM, timeout=15) == 143, served.log()  # drain 2 s, then the gRPC's 2 s
        assert "ladder matches may take up to 2 s to finish" in served.log()
        clean_ledger()
        assert ladders.ledger.match(slow_match).status == "failed"
        first_run, last = ladders.played(), ladders.last_id()

        served.start()  # the same address: the bots' SDKs and bridges connect again by themselves
        wait_for("six ladder matches of the restarted server", lambda: len([
            m for m in ladders.matches("finished") if m.id > last]) >= 6, explain=ladders.describe)
        wait_for("the slow bot's running again", running_with_slow, explain=ladders.describe)
        left_running = [m.id for m in running_with_slow()]  # long matches: still running at the kill
        assert served.stop(signal.SIGKILL) == -signal.SIGKILL

        served.start()
        wait_for("the matches a killed server left running marked unplayed", lambda: all(
            ladders.ledger.match(i).status == "failed" for i in left_running), explain=ladders.describe)
        assert {ladders.ledger.match(i).fail_reason for i in left_running} == {UNPLAYED}
        assert served.stop(signal.SIGTERM, timeout=15) == 143, served.log()  # drain 2 s, then the gRPC's 2 s
        clean_ledger()
        played = ladders.played()
        assert sum(played.values()) > sum(first_run.values())
        for game in GAMES:  # the ratings count every finished ladder match, of both servers' runs
            for r in ladders.ledger.ratings(game):
                assert r.matches == played[(r.bot, game)] >= first_run[(r.bot, game)], (r, played)
    finally:
        bots.close()
        served.close()


# ----- what the tests above found in server/ladder.py, pinned in-process ------------------------
class StubLedger:
    """The few ledger calls Arena makes, over a bench the test sets."""

    def __init__(self, benched_until=None, conduct=()):
        self.benched_until, self.conduct = benched_until, list(conduct)

    def bot_states(self, **_):
        return [BotState("crasher", None, False, self.benched_until, "forfeited" if self.benched_until else None)]

    def recent_conduct(self, kind, window):
        return {"crasher": self.conduct}

    def fail_running_matches(self, kind, reason, alive=None, mine=None):
        return 0

    def ratings(self, game):
        return []

    def bench_bot(self, name, until, reason):
        self.benched_until = until


def outcome(forfeited: bool):
    """A finished 2-seat match, the crasher at seat 0: 30 decisions each, no faults."""
    return SimpleNamespace(steps=[{0: 0, 1: 0}] * 30, faults=[0, 0], forfeited=[forfeited, False])


def test_a_match_that_ends_during_a_bench_is_not_judged_after_it():
    """The quarantine rule: a bot comes back "with a fresh window". A bot benched by its first
    forfeit (here the rule takes one) still had a second match, drawn before the bench, that it
    forfeited too; that match ends during the bench and must not count once the bench is over."""
    async def play() -> Arena:
        arena = Arena(SimpleNamespace(links={}), StubLedger(), [LadderSpec("sixth-card", 2)],
                      rule=QuarantineRule(max_forfeits=1, bench_seconds=60))
        arena._after(arena.ladders[0], ["crasher", "good"], outcome(forfeited=True))
        assert "crasher" in arena.benched
        arena._after(arena.ladders[0], ["crasher", "good"], outcome(forfeited=True))  # drawn before the bench
        del arena.benched["crasher"]  # the bench is over
        arena._after(arena.ladders[0], ["crasher", "good"], outcome(forfeited=False))
        await asyncio.sleep(0.1)  # the bench written to the ledger
        return arena

    assert "crasher" not in asyncio.run(play()).benched


def test_a_restarted_server_judges_a_bot_only_by_its_matches_since_its_last_bench():
    """The same fresh window from the ledger (server/ladder.py, "Shutdown": a restarted server
    starts from the ledger as it is): the forfeits that benched a bot, whose bench is over, do
    not count again."""
    ended = datetime.now(timezone.utc) - timedelta(seconds=5)
    before = ended - timedelta(seconds=60)
    ledger = StubLedger(ended, [(30, 0, True, before), (30, 0, True, before), (30, 0, False, ended)])
    arena = Arena(SimpleNamespace(links={}), ledger, [LadderSpec("sixth-card", 2)], rule=QuarantineRule(max_forfeits=2))
    arena._load()
    assert list(arena.recent["crasher"]) == [(30, 0, False)]


def test_a_bench_not_yet_written_to_the_ledger_holds_when_the_states_are_read():
    """The arena writes a bench to the ledger in a thread; a reading of the bots' states from
    the ledger that comes first must not lift it (the bot would be drawn while benched)."""
    arena = Arena(SimpleNamespace(links={}), StubLedger(), [LadderSpec("sixth-card", 2)])
    until = datetime.now(timezone.utc) + timedelta(seconds=60)
    arena.benched["crasher"] = (until, "forfeited 3 of its last 3 ladder matches")
    arena._refresh_states()
    assert arena.benched["crasher"][0] == until


def test_the_table_its_bots_just_left_waits_a_moment_for_another_bot():
    """Matchmaking, rematches (server/ladder.py): a and b have just played each other and are
    the only free bots, c is busy: their rematch is held back for REMATCH_WAIT, then played;
    in a ladder of those two alone it is played at once."""
    async def scenario() -> list:
        hello = SimpleNamespace(is_set=lambda: True)
        links = {n: SimpleNamespace(games=(), hello=hello, max_matches=0) for n in ("a", "b", "c")}
        arena = Arena(SimpleNamespace(links=links), StubLedger(), [LadderSpec("sixth-card", 2)], max_per_bot=1)
        spec, started = arena.ladders[0], []

        async def play(spec, table):
            started.append(sorted(table))
        arena._play = play
        arena._after(spec, ["a", "b"], outcome(forfeited=False))
        arena.running["c"] = 1
        assert not arena._schedule(spec)  # c may be free in a moment
        for bot in ("a", "b"):
            arena.free_since[bot] -= REMATCH_WAIT
        assert arena._schedule(spec)  # waited long enough
        arena.running.update(a=0, b=0)
        arena.free_since.clear()
        del links["c"]
        assert arena._schedule(spec)  # nobody else to wait for
        await asyncio.sleep(0)
        return started

    assert asyncio.run(scenario()) == [["a", "b"], ["a", "b"]]
