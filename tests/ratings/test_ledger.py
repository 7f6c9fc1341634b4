"""The ledger (cardarena.ratings.ledger), on an in-memory database and on the test's ledger.

Every test that takes the ``led`` fixture runs twice: on ``:memory:`` (SQLite's in-memory
database, Ledger's default) and on the test's ledger (tests/conftest.py ``ledger_url``: a file in
a temporary folder, WAL and several connections, as the referee and the CLI use it; a database on
a real PostgreSQL server under CARDARENA_TEST_LEDGER=postgresql, where the ``:memory:`` variant
does not run again). The tests of ``file_path`` are about the SQLite file itself.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import sqlite3
import threading
import zlib

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from cardarena.ratings import FINISHED, RUNNING, SCHEDULED, Ledger, LedgerError, MatchPlan
from cardarena.ratings import ledger as ledger_module
from cardarena.ratings import ledger_matches
from cardarena.ratings import rating as rules
from cardarena.ratings.models import MatchInfo

GAME = "sixth-card"


@pytest.fixture(params=[pytest.param("memory", marks=pytest.mark.sqlite), "ledger"])
def led(request, ledger_url):
    ledger = Ledger(":memory:" if request.param == "memory" else ledger_url())
    yield ledger
    ledger.close()


@pytest.fixture
def file_path(tmp_path):
    """A SQLite file's path (the tests of the file itself)."""
    return str(tmp_path / "ledger.db")


@pytest.fixture
def shared(ledger_url):
    """Where several Ledger objects (as several processes) meet: the test's ledger."""
    return ledger_url()


def add_bots(led: Ledger, *names: str) -> dict[str, str]:
    return {name: led.add_bot(name)[1] for name in names}


def record(led: Ledger, match_id: int, places, *, scores=None, faults=None, forfeited=None,
           steps=None, events=None, **kw):
    """record_match with plausible defaults: score = -place, no faults, a two-event log."""
    n = len(places)
    return led.record_match(
        match_id, places=list(places), scores=scores if scores is not None else [-p for p in places],
        faults=faults or [0] * n, forfeited=forfeited or [False] * n,
        steps=steps if steps is not None else [{s: 0 for s in range(n)}],
        events=events if events is not None else [{"step": 0, "seats": None, "data": {"type": "deal"}},
                                                  {"step": 1, "seats": [0], "data": {"type": "play", "card": "Q♠"}}],
        **kw)


def play(led: Ledger, bots, places, game=GAME, seed=1, **kw):
    match_id = led.create_match(game, seed, {}, list(bots))
    return match_id, record(led, match_id, places, **kw)


def snapshot(led: Ledger):
    """Every stored rating and history row, floats exact."""
    with led.engine.connect() as c:
        ratings = c.execute(text("SELECT bot_id, game, mu, sigma, matches, wins, place_sum FROM rating "
                                 "ORDER BY bot_id, game")).all()
        history = c.execute(text("SELECT match_id, seat, bot_id, game, rated, mu_before, sigma_before, mu, sigma "
                                 "FROM rating_history ORDER BY match_id, seat")).all()
    return ratings, history


# ----------------------------------------------------------------------------- bots


def test_bots_are_added_and_found_by_name_and_by_token(led):
    bot, token = led.add_bot("alice")
    led.add_bot("bob")
    assert bot.name == "alice" and bot.id
    assert len(token) >= 43  # token_urlsafe(32): 256 random bits
    assert led.bot_by_token(token) == bot
    assert led.bot("alice") == bot
    assert [b.name for b in led.bots()] == ["alice", "bob"]
    assert led.bot_by_token(token + "x") is None
    assert led.bot_by_token("") is None
    with pytest.raises(LedgerError, match="no bot named 'carol'"):
        led.bot("carol")


def test_only_the_hash_of_a_token_is_stored(file_path):
    led = Ledger(file_path)
    _, token = led.add_bot("alice")
    with led.engine.connect() as c:
        stored = c.execute(text("SELECT token_hash FROM bot WHERE name = 'alice'")).scalar()
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    led.close()
    raw = b"".join(open(file_path + suffix, "rb").read() for suffix in ("", "-wal")
                   if os.path.exists(file_path + suffix))
    assert b"alice" in raw  # the bytes were really searched
    assert token.encode() not in raw


def test_rotated_token_replaces_the_old_one(led):
    bot, old = led.add_bot("alice")
    new = led.rotate_token("alice")
    assert led.bot_by_token(old) is None
    assert led.bot_by_token(new) == bot


def test_a_duplicate_bot_name_is_refused(led):
    led.add_bot("alice")
    with pytest.raises(LedgerError) as e:
        led.add_bot("alice")
    assert str(e.value) == "a bot named 'alice' exists"
    assert len(led.bots()) == 1


@pytest.mark.parametrize("name", ["", " alice", "a b", "-x", "x" * 65, "a/b"])
def test_a_bad_bot_name_is_refused(led, name):
    with pytest.raises(LedgerError, match="not a bot name"):
        led.add_bot(name)


# ----------------------------------------------------------------------------- leagues


def test_a_league_is_written_with_all_its_matches_before_play(led):
    add_bots(led, "a", "b", "c")
    plans = [MatchPlan(r, i, 1000 * r + i, bots, duplicate_set=r)
             for r in range(3) for i, bots in enumerate([["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]])]
    random.Random(1).shuffle(plans)
    league_id = led.create_league(GAME, {"decks": 1}, {"rounds": 3}, plans)

    info = led.league(league_id)
    assert info.game == GAME and info.options == {"decks": 1} and info.settings == {"rounds": 3}
    assert info.counts == {"scheduled": 9, "running": 0, "finished": 0, "failed": 0}
    assert info.total == 9 and not info.done
    matches = led.league_matches(league_id)
    assert [(m.round, m.index) for m in matches] == [(r, i) for r in range(3) for i in range(3)]
    assert all(m.status == SCHEDULED and m.league_id == league_id for m in matches)
    by_key = {(p.round, p.index): p for p in plans}
    for m in matches:
        plan = by_key[m.round, m.index]
        assert (m.bots, m.seed, m.duplicate_set, m.options) == (plan.bots, plan.seed, plan.duplicate_set, {"decks": 1})
    assert [lg.id for lg in led.leagues()] == [league_id]


def test_a_league_with_an_unknown_bot_writes_nothing(led):
    add_bots(led, "a", "b")
    with pytest.raises(LedgerError, match="no bot named 'zed'"):
        led.create_league(GAME, {}, {}, [MatchPlan(0, 0, 1, ["a", "b"]), MatchPlan(0, 1, 2, ["a", "zed"])])
    assert led.leagues() == [] and led.matches() == []


def test_a_league_resumes_from_the_file(shared):
    led = Ledger(shared)
    add_bots(led, "a", "b")
    league_id = led.create_league(GAME, {}, {}, [MatchPlan(0, i, i, ["a", "b"]) for i in range(4)])
    first, second = led.league_matches(league_id)[:2]
    assert led.claim_match(first.id)
    record(led, first.id, [1, 2])
    assert led.claim_match(second.id)  # then the process is killed
    led.close()

    again = Ledger(shared)
    assert again.league(league_id).counts == {"scheduled": 2, "running": 1, "finished": 1, "failed": 0}
    assert again.reset_stale(league_id) == 1
    todo = again.league_matches(league_id, status="scheduled")
    assert [m.index for m in todo] == [1, 2, 3]
    again.close()


def test_claim_match_succeeds_only_once(led):
    add_bots(led, "a", "b")
    match_id = led.create_match(GAME, 7, {}, ["a", "b"])
    assert led.claim_match(match_id) is True
    assert led.claim_match(match_id) is False
    assert led.match(match_id).status == RUNNING
    assert led.reset_stale(older_than_s=3600) == 0  # claimed just now: not stale
    assert led.reset_stale() == 1
    assert led.claim_match(match_id) is True
    record(led, match_id, [1, 2])
    assert led.claim_match(match_id) is False
    assert led.claim_match(12345) is False


def test_an_arena_match_is_made_claimed_so_a_kill_right_after_leaves_nothing_scheduled(led):
    """create_match(claim_for=...) makes the match running, on its worker's lease, in one
    transaction: the server that made it and died before playing it leaves a running match whose
    worker is gone, marked unplayed by the next server at once. A match made scheduled just now is
    left alone, as one another live server may be about to claim (the 60 s of older ledgers)."""
    add_bots(led, "a", "b")
    claimed = led.create_match(GAME, 7, {}, ["a", "b"], kind="ladder", claim_for="elsewhere:1", lease_s=30)
    waiting = led.create_match(GAME, 8, {}, ["a", "b"], kind="ladder")
    assert led.match(claimed).status == RUNNING and led.match(waiting).status == SCHEDULED
    assert led.claim_match(claimed) is False  # on a lease that has not run out
    assert led.fail_running_matches("ladder", "unplayed", alive=lambda worker: worker != "elsewhere:1") == 1
    assert (led.match(claimed).status, led.match(claimed).fail_reason) == ("failed", "unplayed")
    assert led.match(waiting).status == SCHEDULED


def test_several_processes_claim_each_match_of_a_league_once(shared):
    setup = Ledger(shared)
    add_bots(setup, "a", "b", "c")
    league_id = setup.create_league(GAME, {}, {}, [MatchPlan(0, i, i, ["a", "b", "c"]) for i in range(60)])
    claimed: list[int] = []
    lock = threading.Lock()

    def worker():
        led = Ledger(shared)  # its own engine and connections, as another process has
        while (m := led.claim_next(league_id)) is not None:
            record(led, m.id, [1, 2, 3])
            with lock:
                claimed.append(m.id)
        led.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(m.id for m in setup.league_matches(league_id))
    assert setup.league(league_id).counts["finished"] == 60
    assert setup.check() == []
    setup.close()


# ----------------------------------------------------------------------------- recording


def test_record_match_stores_the_whole_match(led):
    add_bots(led, "a", "b", "c")
    match_id = led.create_match(GAME, 2 ** 62, {"decks": 2}, ["c", "a", "b"])
    steps = [{0: 3, 1: 0, 2: 5}, {1: 2}]
    events = [{"step": 0, "seats": None, "data": {"type": "deal", "cards": 10}},
              {"step": 0, "seats": [2], "data": {"type": "hand", "cards": ["Q♠", "10♦", "Jo"]}},
              {"step": 2, "seats": None, "data": {"type": "end"}}]
    changes = record(led, match_id, [2, 1, 3], scores=[10, 4.5, 30], faults=[0, 2, 0],
                     forfeited=[False, False, True], steps=steps, events=events,
                     result_details={"rounds": 3}, duration_s=1.25)
    detail = led.match(match_id)
    assert detail.status == FINISHED and detail.finished_at is not None
    assert detail.bots == ["c", "a", "b"] and detail.seed == 2 ** 62 and detail.options == {"decks": 2}
    assert detail.scores == [10.0, 4.5, 30.0] and detail.places == [2, 1, 3]
    assert detail.faults == [0, 2, 0] and detail.forfeited == [False, False, True]
    assert detail.steps == steps  # integer seat keys survive, for replay
    assert detail.events == events
    assert detail.result_details == {"rounds": 3} and detail.duration_s == 1.25
    assert [c.bot for c in changes] == ["c", "a", "b"] and all(c.rated for c in changes)
    assert detail.rating_changes == changes
    assert changes[1].mu > changes[1].mu_before and changes[2].mu < changes[2].mu_before
    listed = led.matches(game=GAME)
    assert [m.id for m in listed] == [match_id] and listed[0].places == [2, 1, 3]
    assert led.matches(bot="a")[0].id == match_id and led.matches(game="scout") == []


def test_record_match_is_one_transaction_with_the_rating_update(led, monkeypatch):
    """The event log is written after the ratings in the same transaction: if it fails, the
    ratings, the history, the seats and the status are as before."""
    add_bots(led, "a", "b")
    play(led, ["a", "b"], [1, 2])
    before = snapshot(led)
    match_id = led.create_match(GAME, 2, {}, ["a", "b"])
    assert led.claim_match(match_id)
    failing = text("INSERT INTO match_log (match_id, events, steps) VALUES (:match_id, NULL, :steps)")
    monkeypatch.setattr(ledger_matches, "_LOG_INSERT", failing)  # where record_match reads it
    with pytest.raises(IntegrityError):
        record(led, match_id, [1, 2])
    assert snapshot(led) == before
    detail = led.match(match_id)
    assert detail.status == RUNNING and detail.places == [None, None] and detail.events == []
    monkeypatch.undo()
    record(led, match_id, [1, 2])
    assert snapshot(led) != before
    assert led.check() == []


def test_recording_a_match_twice_is_refused(led):
    add_bots(led, "a", "b")
    match_id, _ = play(led, ["a", "b"], [1, 2])
    before = snapshot(led)
    with pytest.raises(LedgerError, match=f"match {match_id} is finished"):
        record(led, match_id, [2, 1])
    with pytest.raises(LedgerError, match="is finished"):
        led.fail_match(match_id, "late")
    assert snapshot(led) == before
    assert led.ratings()[0].matches == 1
    with pytest.raises(LedgerError, match="no match 999"):
        record(led, 999, [1, 2])


def test_a_failed_match_changes_no_rating_and_cannot_be_recorded(led):
    add_bots(led, "a", "b")
    match_id = led.create_match(GAME, 1, {}, ["a", "b"])
    led.claim_match(match_id)
    led.fail_match(match_id, "the referee stopped")
    detail = led.match(match_id)
    assert detail.status == "failed" and detail.fail_reason == "the referee stopped"
    with pytest.raises(LedgerError, match="is failed"):
        record(led, match_id, [1, 2])
    assert led.ratings() == [] and snapshot(led) == ([], [])
    assert led.check() == []


@pytest.mark.parametrize("kw, message", [
    ({"places": [1, 2, 3]}, "one of each per seat"),
    ({"places": [0, 1]}, "places must be integers"),
    ({"places": [1, 2], "steps": [[1, 2]]}, "each step must be a dict"),
    ({"places": [1, 2], "events": [{"step": 0, "data": object()}]}, "not JSON"),
])
def test_a_malformed_result_is_refused_before_writing(led, kw, message):
    add_bots(led, "a", "b")
    match_id = led.create_match(GAME, 1, {}, ["a", "b"])
    places = kw["places"]
    n = 2
    with pytest.raises(LedgerError, match=message):
        led.record_match(match_id, places=places, scores=[0] * n, faults=[0] * n, forfeited=[False] * n,
                         steps=kw.get("steps", []), events=kw.get("events", []))
    assert led.match(match_id).status == SCHEDULED


# ----------------------------------------------------------------------------- rating rules in the ledger


def test_tied_seats_that_started_equal_keep_equal_ratings(led):
    add_bots(led, "a", "b", "c", "d")
    play(led, ["c", "d"], [1, 2])  # c and d no longer start at the default
    _, changes = play(led, ["a", "c", "b", "d"], [2, 1, 2, 3])
    a, c, b, d = changes
    assert (a.mu_before, a.sigma_before) == (b.mu_before, b.sigma_before)
    assert (a.mu, a.sigma) == (b.mu, b.sigma)
    assert c.mu > c.mu_before and d.mu < d.mu_before
    rows = {r.bot: r for r in led.ratings()}
    assert rows["a"].mu == rows["b"].mu and rows["a"].wins == rows["b"].wins == 0


def test_a_shared_first_place_is_a_draw_and_a_win_for_both(led):
    add_bots(led, "a", "b")
    _, (a, b) = play(led, ["a", "b"], [1, 1])
    assert a.mu == b.mu and abs(a.mu - 25.0) < 1e-9 and a.sigma < a.sigma_before
    rows = {r.bot: r for r in led.ratings()}
    assert rows["a"].wins == rows["b"].wins == 1 and rows["a"].mean_place == 1.0


def test_self_play_is_recorded_but_not_rated(led):
    add_bots(led, "a", "b", "c")
    match_id, changes = play(led, ["a", "a", "b"], [1, 2, 3])
    assert [c.rated for c in changes] == [False, False, False]  # b alone has no one to be rated against
    assert all((c.mu, c.sigma) == (c.mu_before, c.sigma_before) == rules.initial(GAME) for c in changes)
    assert led.ratings() == []
    assert led.match(match_id).status == FINISHED and led.match(match_id).events

    _, changes = play(led, ["a", "b", "a", "c"], [1, 3, 2, 4])
    assert [c.rated for c in changes] == [False, True, False, True]
    rows = {r.bot: r for r in led.ratings()}
    assert set(rows) == {"b", "c"} and rows["b"].mu > rows["c"].mu
    assert rows["b"].mean_place == 3.0 and rows["b"].matches == 1
    assert led.check() == []


def test_forfeited_seats_are_rated_by_their_given_place(led):
    add_bots(led, "a", "b", "c")
    _, changes = play(led, ["a", "b", "c"], [3, 1, 2], forfeited=[True, False, False], faults=[3, 0, 0])
    assert changes[0].mu < changes[2].mu < changes[1].mu


def test_ratings_are_per_game_ranked_by_conservative_rating(led):
    add_bots(led, "a", "b", "c")
    for _ in range(3):
        play(led, ["a", "b", "c"], [1, 2, 3])
    play(led, ["a", "b"], [2, 1], game="scout")
    rows = led.ratings(GAME)
    assert [(r.rank, r.bot) for r in rows] == [(1, "a"), (2, "b"), (3, "c")]
    assert all(r.conservative == r.mu - 3 * r.sigma for r in rows)
    assert rows[0].wins == 3 and rows[0].matches == 3 and rows[2].mean_place == 3.0
    both = led.ratings()
    assert [(r.game, r.rank, r.bot) for r in both] == [
        ("scout", 1, "b"), ("scout", 2, "a"), (GAME, 1, "a"), (GAME, 2, "b"), (GAME, 3, "c")]
    history = led.rating_history("a", GAME)
    assert len(history) == 3 and history[-1].mu == rows[0].mu


# ----------------------------------------------------------------------------- recompute and check


def random_ledger(led: Ledger, matches: int, seed: int = 5) -> None:
    """Random matches over two games: 2-6 seats, ties, forfeits, some self-play, some failures."""
    rng = random.Random(seed)
    names = [f"bot{i}" for i in range(8)]
    add_bots(led, *names)
    for k in range(matches):
        n = rng.randint(2, 6)
        bots = rng.sample(names, n) if rng.random() < 0.85 else [rng.choice(names) for _ in range(n)]
        match_id = led.create_match(rng.choice([GAME, "scout"]), k, {}, bots)
        if rng.random() < 0.05:
            led.fail_match(match_id, "a test failure")
            continue
        scores = [rng.randint(0, 4) for _ in range(n)]  # small range: many ties
        places = [1 + sum(o > s for o in scores) for s in scores]
        record(led, match_id, places, scores=scores, forfeited=[rng.random() < 0.05 for _ in range(n)])


def test_recompute_reproduces_the_stored_numbers_exactly(led):
    random_ledger(led, 250)
    before = snapshot(led)
    table = led.ratings()
    assert len(before[1]) > 500
    assert led.check() == []
    assert led.recompute() > 200
    assert snapshot(led) == before  # every float bit for bit, history included
    assert led.ratings() == table
    assert led.recompute("scout") > 0
    assert snapshot(led) == before


def test_check_finds_a_corrupted_rating(led):
    random_ledger(led, 40)
    assert led.check() == []
    with led.engine.begin() as c:
        c.execute(text("UPDATE rating SET mu = mu + 1e-12 WHERE bot_id = (SELECT id FROM bot WHERE name = 'bot3') "
                       "AND game = :g"), {"g": GAME})
    problems = led.check()
    assert len(problems) == 1 and problems[0].startswith(f"rating of bot3 in {GAME} differs from its recomputation: μ")
    led.recompute()
    assert led.check() == []


def test_check_finds_an_incomplete_finished_match(led):
    add_bots(led, "a", "b", "c")
    first, _ = play(led, ["a", "b", "c"], [1, 2, 3])
    second, _ = play(led, ["a", "b", "c"], [3, 2, 1])
    with led.engine.begin() as c:
        c.execute(text("UPDATE seat SET place = NULL WHERE match_id = :m AND seat = 1"), {"m": first})
        c.execute(text("DELETE FROM match_log WHERE match_id = :m"), {"m": second})
    problems = led.check()
    assert f"match {first} is finished but seat 1 has no result" in problems
    assert f"match {second} is finished but has no event log" in problems


def test_check_finds_a_match_counted_twice(led):
    add_bots(led, "a", "b")
    match_id, _ = play(led, ["a", "b"], [1, 2])
    with led.engine.begin() as c:  # what a double count would leave: the counts bumped again
        c.execute(text("UPDATE rating SET matches = matches + 1"))
    assert any("matches 2 ≠ 1" in p for p in led.check())


def test_rating_histories_are_each_bots_rating_history_in_one_query(led):
    """Ledger.rating_histories(game) (the web's leaderboard lines) equals rating_history of each
    bot, in recording order, a bot holding two seats of a match included."""
    add_bots(led, "a", "b", "c")
    play(led, ["a", "b", "c"], [1, 2, 3])
    play(led, ["c", "a", "b"], [1, 1, 3], seed=2)
    play(led, ["b", "b", "a"], [2, 1, 3], seed=3)
    histories = led.rating_histories(GAME)
    assert set(histories) == {"a", "b", "c"}
    for bot in "abc":
        assert histories[bot] == led.rating_history(bot, GAME)
    assert len(histories["b"]) == 4 and led.rating_histories("no-such-game") == {}


def test_the_database_refuses_a_second_history_row_for_a_seat(led):
    add_bots(led, "a", "b")
    match_id, _ = play(led, ["a", "b"], [1, 2])
    with pytest.raises(IntegrityError), led.engine.begin() as c:
        c.execute(text("INSERT INTO rating_history (match_id, seat, bot_id, game, rated, mu_before, sigma_before, "
                       "mu, sigma) SELECT match_id, seat, bot_id, game, rated, mu_before, sigma_before, mu, sigma "
                       "FROM rating_history WHERE match_id = :m"), {"m": match_id})


# ----------------------------------------------------------------------------- SQLite settings


def test_a_file_database_runs_in_wal_mode_with_foreign_keys(file_path):
    led = Ledger(file_path)
    with led.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert c.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert c.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    with pytest.raises(IntegrityError), led.engine.begin() as c:
        c.execute(text("INSERT INTO seat (match_id, seat, bot_id) VALUES (1, 0, 42)"))
    led.close()
    plain = sqlite3.connect(file_path)  # WAL is a property of the file, seen by any client
    assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    plain.close()


def test_an_in_memory_ledger_is_shared_by_threads():
    led = Ledger(":memory:")
    add_bots(led, "a", "b")
    ids = [led.create_match(GAME, i, {}, ["a", "b"]) for i in range(40)]
    errors = []

    def worker(chunk):
        try:
            for match_id in chunk:
                if led.claim_match(match_id):
                    record(led, match_id, [1, 2])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(ids[i::2],)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and led.ratings()[0].matches == 40


def test_a_url_is_accepted(tmp_path):
    led = Ledger(f"sqlite:///{tmp_path / 'url.db'}")
    add_bots(led, "a")
    assert (tmp_path / "url.db").exists()
    led.close()


@pytest.mark.parametrize("steps", [[], [{0: 3, 2: 1}, {1: 0}], [{"0": 1}, {"seat": 2, 3: [1, 2]}]])
def test_steps_come_back_with_their_keys(steps):
    assert ledger_module.unpack_steps(ledger_module.pack_steps(steps)) == steps
    assert [list(map(type, s)) for s in ledger_module.unpack_steps(ledger_module.pack_steps(steps))] == \
        [list(map(type, s)) for s in steps]


def test_rating_lines_are_the_rated_history_thinned_to_at_most_the_points_asked_ending_now(led):
    """Ledger.rating_lines (the web's charts): (μ, σ) after each rated match, oldest first; a longer
    line keeps every k-th match counted back from the last (k = ⌈n / points⌉), so the current
    rating is always its last point; self-play seats are left out."""
    add_bots(led, "a", "b", "c")
    for k in range(10):
        play(led, ["a", "b", "c"] if k % 2 else ["c", "a", "b"], [1 + k % 3, 1 + (k + 1) % 3, 1 + (k + 2) % 3],
             seed=k)
    play(led, ["b", "b", "a"], [2, 1, 3], seed=99)  # b's two seats are self-play: not rated
    full = {bot: [(c.mu, c.sigma) for c in led.rating_history(bot, GAME) if c.rated] for bot in "abc"}
    assert len(full["b"]) == 10 and len(led.rating_history("b", GAME)) == 12 and len(full["a"]) == 10
    lines = led.rating_lines(GAME)
    assert lines == {(bot, GAME): full[bot] for bot in "abc"}
    thin = led.rating_lines(GAME, ["a"], points=4)  # k = ⌈10 / 4⌉ = 3: a's rated matches 10, 7, 4, 1
    assert thin == {("a", GAME): [full["a"][i] for i in (0, 3, 6, 9)]}
    current = {r.bot: (r.mu, r.sigma) for r in led.ratings(GAME)}
    assert all(line[-1] == current[bot] for (bot, _), line in led.rating_lines(points=3).items())
    assert led.rating_lines(GAME, ["nobody"]) == {} and led.rating_lines("no-such-game") == {}
    with pytest.raises(LedgerError):
        led.rating_lines(points=0)


def test_the_version_changes_when_a_match_is_recorded_and_only_then(led):
    """Ledger.version, the fingerprint the web caches its rating tables under."""
    add_bots(led, "a", "b")
    before = led.version()
    match_id = led.create_match(GAME, 1, {}, ["a", "b"])
    assert led.version() == before  # a scheduled match rates nothing
    record(led, match_id, [1, 2])
    after = led.version()
    assert after != before and led.version() == after


def test_a_match_detail_as_json_is_every_field_of_it(led):
    """MatchDetail.to_json copies shallowly what dataclasses.asdict would copy deeply."""
    import dataclasses
    add_bots(led, "a", "b")
    match_id, _ = play(led, ["a", "b"], [2, 1], result_details={"faults": []})
    m = led.match(match_id)
    want = dataclasses.asdict(m)
    for k in ("created_at", "finished_at", "claimed_at", "pruned_at"):
        want[k] = want[k].isoformat() if want[k] else None
    want = with_pruned(want)
    assert m.to_json() == want and list(m.to_json()) == list(want)
    assert want["pruned"] is False


def with_pruned(fields: dict) -> dict:
    """The fields in their order, with the derived ``pruned`` flag right before ``pruned_at``."""
    out = {}
    for k, v in fields.items():
        if k == "pruned_at":
            out["pruned"] = v is not None
        out[k] = v
    return out


@pytest.mark.parametrize("ident", [0, -1, ledger_module.ID_MAX + 1, 2 ** 63 - 1, 2 ** 70])
def test_an_id_no_backend_can_hold_names_nothing(led, ident):
    """PostgreSQL's ids are 32-bit INTEGER: a larger number is "no match N" there as on SQLite,
    not the database's "integer out of range" (which the web would answer with a 500)."""
    for ask, words in ((lambda: led.match(ident), f"no match {ident}"),
                       (lambda: led.league(ident), f"no league {ident}"),
                       (lambda: led.league_results(ident), f"no league {ident}"),
                       (lambda: led.league_matches(ident), f"no league {ident}"),
                       (lambda: led.create_match("sixth-card", 1, {}, ["a", "b"], league_id=ident),
                        f"no league {ident}")):
        with pytest.raises(LedgerError, match=f"^{words}$"):
            ask()
    assert led.matches(league_id=ident) == []


# ----------------------------------------------------------------------------- the web's reads

def checkouts(led: Ledger) -> list:
    """The connections the ledger takes from its pool from now on (one per session)."""
    from sqlalchemy import event
    taken: list = []
    event.listen(led.engine, "checkout", lambda *_: taken.append(1))
    return taken


def test_a_bots_page_is_read_in_one_session_and_says_what_the_separate_reads_say(led):
    """Ledger.bot_page: the bot, its state, its recent matches, its summaries, its
    match durations and the ledger's version in one session, each what its own method reads."""
    add_bots(led, "a", "b", "c")
    for k in range(5):
        play(led, ["a", "b", "c"], [1 + k % 3, 1 + (k + 1) % 3, 1 + (k + 2) % 3], seed=k, duration_s=1.0 + k)
    led.set_paused("b", True)
    taken = checkouts(led)
    page = led.bot_page("b", 3)
    assert len(taken) == 1
    assert page.info == led.bot("b") and page.state == led.bot_states(["b"])[0] and page.state.paused
    assert page.recent == led.matches(bot="b", limit=3) and len(page.recent) == 3
    assert (page.summaries, page.durations) == led.bot_summaries("b")
    assert sorted(page.durations) == [1.0, 2.0, 3.0, 4.0, 5.0] == sorted(led.match_durations("b"))
    assert page.version == led.version()
    assert led.bot_page("b", 3, durations=False).durations is None
    with pytest.raises(LedgerError, match="no bot named 'nobody'"):
        led.bot_page("nobody", 3)


@pytest.mark.parametrize("steps", [[{0: 3, 2: 1}, {1: 0}], [{"0": 1}, {"seat": 2, 3: [1, 2]}]])
def test_a_matchs_log_text_is_its_stored_json_cut_out_and_says_what_its_detail_says(led, steps):
    """Ledger.match_log_text: the steps and events as the JSON text of their lists,
    cut out of the stored form (non-ASCII escaped as stored: Q♠ is Q\\u2660); steps keyed by
    other than integers (stored as pairs) are encoded from the detail instead."""
    add_bots(led, "a", "b", "c")
    match_id, _ = play(led, ["a", "b", "c"], [1, 2, 3], steps=steps)
    detail, steps_text, events_text = led.match_log_text(match_id)
    assert detail == led.match(match_id)
    assert json.loads(events_text) == detail.events and rb'"Q\u2660"' in events_text
    assert json.loads(steps_text) == json.loads(json.dumps(detail.steps))
    with led.engine.connect() as c:
        stored = zlib.decompress(c.execute(text("SELECT events FROM match_log WHERE match_id = :m"),
                                           {"m": match_id}).scalar())
    assert stored == b'{"format":1,"events":' + events_text + b"}"


def test_a_listing_as_json_is_each_matchs_own_json_built_from_its_rows(led):
    """Ledger.matches and bot_page with ``as_json`` (the web's listings build their
    JSON straight from the rows, no MatchInfo made): each match's ``MatchInfo.to_json()``, the
    same keys in the same order, for a finished match, a league's scheduled ones (no scores,
    places or finish time) and a failed one, times written by SQLAlchemy and by hand."""
    add_bots(led, "a", "b", "c")
    play(led, ["a", "b", "c"], [2, 1, 3], seed=4, duration_s=1.5)
    league_id = led.create_league(GAME, {"decks": 1}, {"rounds": 1},
                                  [MatchPlan(0, i, 10 + i, ["b", "a"], duplicate_set=0) for i in range(2)])
    led.fail_match(led.matches(league_id=league_id, limit=1)[0].id, "seat 1 never answered")
    with led.engine.begin() as c:  # a time on a whole second: isoformat() leaves out its microseconds
        c.execute(text("UPDATE match SET created_at = '2026-01-01 00:00:30.000000' WHERE id = 1"))
        c.execute(text("UPDATE match SET created_at = '2026-01-01 00:00:31' WHERE id = 2"))  # written by hand
    infos = led.matches(limit=None)
    listed = led.matches(limit=None, as_json=True)
    assert {m.status for m in infos} == {FINISHED, SCHEDULED, "failed"} and len(listed) == 3
    assert listed == [m.to_json() for m in infos]
    assert [list(d) for d in listed] == [list(m.to_json()) for m in infos]
    assert list(listed[0]) == list(with_pruned({f.name: None for f in dataclasses.fields(MatchInfo)}))
    assert led.bot_page("a", 2, as_json=True).recent == [m.to_json() for m in led.matches(bot="a", limit=2)]
    assert led.matches(bot="c", as_json=True) == [infos[-1].to_json()]
    assert infos[-1].to_json()["created_at"] == "2026-01-01T00:00:30+00:00"
    add_bots(led, "d")
    assert led.matches(bot="d", as_json=True) == [] and led.matches(game="scout", as_json=True) == []
