"""The bots' summaries (ratings/summary.py, table ``bot_summary``): derived per bot and game from
its finished seats, kept by ``record_match`` in the match's transaction, rebuilt from the facts by
``recompute``, compared with them by ``check``; on SQLite and PostgreSQL, and whole when several
processes record matches of one game at once."""
from __future__ import annotations

import random
import threading

import pytest
from sqlalchemy import select, text

from cardarena.ratings import Ledger
from cardarena.ratings import summary
from cardarena.ratings.models import BotSummary

GAME = "sixth-card"


@pytest.fixture(params=["memory", "file", "postgres"])
def led(request, tmp_path):
    where = request.getfixturevalue("postgres_url") if request.param == "postgres" else \
        ":memory:" if request.param == "memory" else str(tmp_path / "ledger.db")
    ledger = Ledger(where)
    yield ledger
    ledger.close()


@pytest.fixture(params=["file", "postgres"])
def shared(request, tmp_path):
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else str(tmp_path / "ledger.db")


def play(led: Ledger, bots, places, *, game=GAME, faults=None, forfeited=None, details=None):
    n = len(bots)
    match_id = led.create_match(game, 1, {}, list(bots))
    led.record_match(match_id, places=list(places), scores=[-p for p in places], faults=faults or [0] * n,
                     forfeited=forfeited or [False] * n, steps=[{s: 0 for s in range(n)}], events=[],
                     result_details=details)
    return match_id


def stored(led: Ledger) -> dict[tuple[str, str], dict]:
    """Every summary row by (bot name, game), without its key columns."""
    names = {b.id: b.name for b in led.bots()}
    with led.engine.connect() as c:
        rows = [dict(r._mapping) for r in c.execute(select(*BotSummary.__table__.c))]
    return {(names[r.pop("bot_id")], r.pop("game")): r for r in rows}


def test_record_match_adds_each_seat_to_its_bots_summary(led):
    for name in ("a", "b", "c"):
        led.add_bot(name)
    play(led, ["a", "b", "c"], [1, 2, 3], faults=[0, 2, 0], forfeited=[False, False, True], details={
        "latency": [{"3": 2, "5": 1}, {"4": 3}, None],
        "faults": [{"seat": 1, "step": 0, "kind": "timeout", "detail": ""},
                   {"seat": 1, "step": 2, "kind": "illegal", "detail": "Q♠"},
                   {"seat": 2, "step": 3, "kind": "forfeit", "detail": "gone"}]})
    play(led, ["a", "b"], [2, 1], faults=[1, 0], details={
        "latency": [{"3": 1}, {"4": 1}], "faults": [{"seat": 0, "step": 1, "kind": "timeout", "detail": ""}]})
    play(led, ["c", "a"], [1, 2], game="scout")  # no latency recorded: an older referee
    play(led, ["b", "b"], [1, 2])  # self-play: both seats count
    got = stored(led)
    assert got["a", GAME] == {"seats": 2, "wins": 1, "place_sum": 3, "faults": 1, "forfeits": 0,
                              "fault_kinds": {"timeout": 1}, "latency": {"3": 3, "5": 1}, "latency_seats": 2}
    assert got["b", GAME] == {"seats": 4, "wins": 2, "place_sum": 6, "faults": 2, "forfeits": 0,
                              "fault_kinds": {"timeout": 1, "illegal": 1}, "latency": {"4": 4},
                              "latency_seats": 2}
    assert got["c", GAME] == {"seats": 1, "wins": 0, "place_sum": 3, "faults": 0, "forfeits": 1,
                              "fault_kinds": {}, "latency": {}, "latency_seats": 0}
    assert got["a", "scout"]["seats"] == 1 and got["a", "scout"]["latency_seats"] == 0
    assert set(got) == {("a", GAME), ("b", GAME), ("c", GAME), ("a", "scout"), ("c", "scout")}
    ids = {b.name: b.id for b in led.bots()}
    with led.engine.connect() as c:  # what the facts give is what was kept
        facts = summary.from_facts(c)
    assert {k: {x: v for x, v in r.items() if x not in ("bot_id", "game")} for k, r in facts.items()} == {
        (ids[b], g): row for (b, g), row in got.items()}


def test_an_unfinished_or_failed_match_adds_nothing(led):
    for name in ("a", "b"):
        led.add_bot(name)
    led.create_match(GAME, 1, {}, ["a", "b"])
    failed = led.create_match(GAME, 2, {}, ["a", "b"])
    led.fail_match(failed, "a test failure")
    assert stored(led) == {}


def random_ledger(led: Ledger, matches: int, seed: int = 3) -> None:
    """Random matches of two games with faults, forfeits, latency and self-play."""
    rng = random.Random(seed)
    names = [f"bot{i}" for i in range(6)]
    for name in names:
        led.add_bot(name)
    for _ in range(matches):
        n = rng.randint(2, 5)
        bots = rng.sample(names, n) if rng.random() < 0.9 else [rng.choice(names) for _ in range(n)]
        faults = [rng.choice([0, 0, 0, 1, 2]) for _ in range(n)]
        details = {"faults": [{"seat": s, "step": k, "kind": rng.choice(["timeout", "illegal", "forfeit"]),
                               "detail": ""} for s in range(n) for k in range(faults[s])]}
        if rng.random() < 0.8:
            details["latency"] = [{str(rng.randint(0, 30)): rng.randint(1, 9)} for _ in range(n)]
        places = [rng.randint(1, n) for _ in range(n)]
        play(led, bots, places, game=rng.choice([GAME, "scout"]), faults=faults,
             forfeited=[rng.random() < 0.1 for _ in range(n)], details=details)


def test_recompute_rebuilds_the_summaries_from_the_facts_and_check_finds_a_wrong_one(led):
    random_ledger(led, 60)
    kept = stored(led)
    assert led.check() == []
    with led.engine.begin() as c:
        c.execute(text("UPDATE bot_summary SET seats = seats + 1 WHERE game = :g AND bot_id = "
                       "(SELECT id FROM bot WHERE name = 'bot2')"), {"g": GAME})
        c.execute(text("DELETE FROM bot_summary WHERE game = 'scout' AND bot_id = "
                       "(SELECT id FROM bot WHERE name = 'bot4')"))
    problems = led.check()
    assert sorted(problems) == [
        f"summary of bot2 in {GAME} differs from its finished seats (`ratings recompute` rebuilds it)",
        "summary of bot4 in scout differs from its finished seats (`ratings recompute` rebuilds it)"]
    led.recompute("scout")  # one game: only its summaries rebuilt
    assert stored(led)[("bot4", "scout")] == kept["bot4", "scout"]
    assert stored(led)[("bot2", GAME)] != kept["bot2", GAME]
    led.recompute()
    assert stored(led) == kept
    assert led.check() == []


def test_each_rated_history_row_counts_its_bots_rated_matches_and_recompute_writes_the_same(led):
    """``rated_n`` (what a rating line is thinned by): 1, 2, … per bot and game in recording
    order, None for a self-play seat; recompute gives the same, check finds a wrong one."""
    random_ledger(led, 40)
    with led.engine.connect() as c:
        rows = c.execute(text("SELECT h.bot_id, h.game, h.rated, h.rated_n FROM rating_history h JOIN match_log l "
                              "ON l.match_id = h.match_id ORDER BY l.seq, h.seat")).all()
    counted: dict = {}
    for bot_id, game, rated, rated_n in rows:
        if rated:
            counted[bot_id, game] = counted.get((bot_id, game), 0) + 1
            assert rated_n == counted[bot_id, game]
        else:
            assert rated_n is None
    assert any(not r.rated for r in rows)
    led.recompute()
    with led.engine.connect() as c:
        again = c.execute(text("SELECT h.bot_id, h.game, h.rated, h.rated_n FROM rating_history h JOIN match_log l "
                               "ON l.match_id = h.match_id ORDER BY l.seq, h.seat")).all()
    assert again == rows
    with led.engine.begin() as c:
        c.execute(text("UPDATE rating_history SET rated_n = rated_n + 1 WHERE id = (SELECT min(id) FROM rating_history "
                       "WHERE rated_n IS NOT NULL)"))
    assert any(p.startswith("rating history of match") for p in led.check())


def test_several_processes_recording_one_game_keep_every_seat(shared):
    """Matches of one game among the same bots recorded by four ledgers at once (four processes):
    each summary counts every seat once (SQLite's BEGIN IMMEDIATE, PostgreSQL's game lock)."""
    first = Ledger(shared)
    for name in ("a", "b", "c"):
        first.add_bot(name)
    ids = [first.create_match(GAME, k, {}, ["a", "b", "c"]) for k in range(24)]
    errors = []

    def worker(chunk):
        led = Ledger(shared)
        try:
            for match_id in chunk:
                led.record_match(match_id, places=[1, 2, 3], scores=[0, -1, -2], faults=[0, 1, 0],
                                 forfeited=[False] * 3, steps=[], events=[],
                                 result_details={"latency": [{"2": 1}, {"3": 2}, {"4": 3}],
                                                 "faults": [{"seat": 1, "step": 0, "kind": "timeout"}]})
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            led.close()
    threads = [threading.Thread(target=worker, args=(ids[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    got = stored(first)
    assert got["a", GAME] == {"seats": 24, "wins": 24, "place_sum": 24, "faults": 0, "forfeits": 0,
                              "fault_kinds": {}, "latency": {"2": 24}, "latency_seats": 24}
    assert got["b", GAME]["fault_kinds"] == {"timeout": 24} and got["b", GAME]["latency"] == {"3": 48}
    assert first.check() == []
    first.close()
