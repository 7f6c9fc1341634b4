"""Deals no bot can predict, and every bot can check, tried as a hostile bot would (server/deal.py).

Through the CLI, with real bot processes on a real referee:

- The oracle (tests/bots/oracle_bot.py) searches the seeds it can guess for the deal that gives
  it its own hand. Given the organizer's seed among its guesses it finds every match, and so
  every opponent's hand (the test's control: the attack works); in a default league, and in one
  seeded by a seed it does not know, it finds nothing.
- Every bot of a league (plain and duplicate) and of `play` gets a commitment before its first
  decision, and the seed and salt in its match end once the deal is spent; the SHA-256 of the
  documented string, computed here with hashlib, matches, and so does the ledger's record.
- A seed or salt changed in the ledger fails `cardarena match verify` (exit 1, one line).
- A crawl of every public answer (API, pages, live frames) while a duplicate league runs finds
  no seed, salt or league secret of a deal still in play, and a finished rotation of an open set
  shows no log and no replay.
- The arena's seeds come from the CSPRNG, not from its table draws' generator.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from cardarena.ratings import Ledger
from cardarena.server import deal

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "cardarena.server.cli"]
ORACLE = f"python {ROOT / 'tests' / 'bots' / 'oracle_bot.py'}"
SPY = f"python {ROOT / 'tests' / 'bots' / 'spy_bot.py'}"
SLOW = f"python {ROOT / 'tests' / 'bots' / 'slow_bot.py'}"
RANDOM = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"
GAME = "sixth-card"


def cardarena(*args: str, cwd: Path, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout)


def committed(game: str, match_id, seed, salt) -> str:
    """The commitment as docs/deals.md defines it, written out here (not the server's code)."""
    return hashlib.sha256(f"cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}".encode("utf-8")).hexdigest()


def league(tmp_path: Path, db: str, *bots: str, extra: tuple = (), env: dict | None = None):
    args = ["league", "run", "--game", GAME, "--seats", "3", "--db", db, "--log-dir", str(tmp_path / "logs"),
            "--move-time", "20", "-j", "2", *extra]
    for b in bots:
        args += ["--bot", b]
    r = cardarena(*args, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    return r


def oracle_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.any_ledger  # a bot guessing seeds: the SQLite pass only
@pytest.mark.parametrize("seed", [None, 987_654_321_123], ids=["default", "unknown-organizer-seed"])
def test_the_oracle_finds_no_deal_it_was_not_given(tmp_path, ledger_url, seed):
    log = tmp_path / "oracle.jsonl"
    extra = ("--seed", str(seed)) if seed is not None else ()
    r = league(tmp_path, ledger_url(), f"o={ORACLE}", f"r1={RANDOM}", f"r2={RANDOM}", extra=extra,
               env={"ORACLE_LOG": str(log)})
    lines = oracle_lines(log)
    assert len(lines) == 3  # one search in each of the league's matches
    assert [line["found"] for line in lines] == [None, None, None]
    warned = "organizer-seeded" in r.stderr
    assert warned == (seed is not None), r.stderr


@pytest.mark.any_ledger
def test_the_oracle_knows_every_hand_of_a_league_seeded_by_a_seed_it_guesses(tmp_path, ledger_url):
    """The control: the same attack on a league whose organizer's seed is among its guesses."""
    log = tmp_path / "oracle.jsonl"
    db = ledger_url()
    r = league(tmp_path, db, f"o={ORACLE}", f"r1={RANDOM}", f"r2={RANDOM}", extra=("--seed", "5"),
               env={"ORACLE_LOG": str(log)})
    assert "organizer-seeded (--seed 5): whoever knows the seed knows every hand" in r.stderr
    ledger = Ledger(db)
    for line in oracle_lines(log):
        found = line["found"]
        assert found is not None and found["league_seed"] == 5, line
        assert found["match_seed"] == ledger.match(int(line["match"])).seed
    show = cardarena("league", "show", "1", "--db", db, "--format", "json", cwd=tmp_path)
    shown = json.loads(show.stdout)["league"]
    assert shown["organizer_seeded"] is True and shown["settings"]["seed"] == 5  # ended: shown


def spied(path: Path) -> dict[str, dict]:
    """What each spy saw of each match: the commitment at its start, seed and salt at its end."""
    seen: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        msg = entry["msg"]
        if entry["kind"] == "match_start":
            seen.setdefault(msg["matchId"], {})["commitment"] = msg.get("dealCommitment", "")
        elif entry["kind"] == "match_end":
            seen.setdefault(msg["matchId"], {}).update(seed=msg.get("seed", ""), salt=msg.get("dealSalt", ""))
        elif entry["kind"] == "decision":  # the commitment came first, or this says so
            seen.setdefault(msg["matchId"], {}).setdefault("commitment", "a decision before the commitment")
    return seen


@pytest.mark.parametrize("duplicate", [False, True], ids=["plain", "duplicate"])
def test_every_bot_can_check_its_deal_against_the_commitment_it_got_first(tmp_path, ledger_url, duplicate):
    db = ledger_url()
    logs = {n: tmp_path / f"{n}.jsonl" for n in ("s1", "s2", "s3")}
    extra = ("--duplicate", "-j", "1") if duplicate else ()
    for n, path in logs.items():
        path.touch()
    bots = [f"{n}=env SPY_LOG={logs[n]} {sys.executable} {ROOT / 'tests' / 'bots' / 'spy_bot.py'}" for n in logs]
    league(tmp_path, db, *bots, extra=extra)
    ledger = Ledger(db)
    revealed = hidden = 0
    for n, path in logs.items():
        seen = spied(path)
        assert len(seen) == 3
        for match_id, got in seen.items():
            m = ledger.match(int(match_id))
            assert got["commitment"] == m.deal_commitment == committed(GAME, match_id, m.seed, m.deal_salt)
            assert re.fullmatch(r"[0-9a-f]{32}", m.deal_salt)
            if got["seed"]:
                revealed += 1
                assert (int(got["seed"]), got["salt"]) == (m.seed, m.deal_salt)
            else:
                hidden += 1
                assert got["salt"] == ""
    for m in ledger.league_matches(1):  # the league is over: every deal is spent, shown, and proven
        exported = json.loads(cardarena("match", "export", str(m.id), "--db", db, cwd=tmp_path).stdout)
        assert exported["deal_spent"] and exported["seed"] == m.seed
        assert committed(GAME, m.id, exported["seed"], exported["deal_salt"]) == exported["deal_commitment"]
    if duplicate:
        # one set of three rotations played one after the other: only the last one's end reveals it
        assert (revealed, hidden) == (3, 6)
    else:
        assert (revealed, hidden) == (9, 0)
    verify = cardarena("match", "verify", "--league", "1", "--db", db, cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr


@pytest.mark.any_ledger
def test_a_duplicate_sets_rotations_are_never_played_at_once(tmp_path, ledger_url):
    """A bot seated at two tables of one deal at once would read at one what its opponent holds
    at the other (its own hand there). With room for four matches at once, the spy's own record
    of every match's start and end shows the rotations of each set one after another, while
    different sets do overlap (the league is not simply played one match at a time)."""
    db = ledger_url()
    log = tmp_path / "spy.jsonl"
    log.touch()
    spy = f"s1=env SPY_LOG={log} {sys.executable} {ROOT / 'tests' / 'bots' / 'spy_bot.py'}"
    league(tmp_path, db, spy, f"r2={RANDOM}", f"r3={RANDOM}",
           extra=("--duplicate", "--rounds", "4", "-j", "4", "--option", "rounds=1"))
    set_of = {str(m.id): m.duplicate_set for m in Ledger(db).league_matches(1)}
    assert len(set(set_of.values())) == 4 and len(set_of) == 12
    open_now: set[str] = set()
    overlapped_sets = False
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        match_id = entry["msg"].get("matchId")
        if entry["kind"] == "match_start":
            assert all(set_of[other] != set_of[match_id] for other in open_now), (match_id, open_now)
            overlapped_sets |= bool(open_now)
            open_now.add(match_id)
        elif entry["kind"] == "match_end":
            open_now.discard(match_id)
    assert overlapped_sets


def test_play_commits_to_its_deal_and_reveals_it_after(tmp_path, ledger_url):
    db = ledger_url()
    logs = [tmp_path / f"s{i}.jsonl" for i in range(3)]
    args = ["play", "--game", GAME, "--record", "--db", db, "--log-dir", str(tmp_path / "logs"), "--move-time", "20"]
    for i, path in enumerate(logs):
        args += ["--bot", f"s{i}=env SPY_LOG={path} {sys.executable} {ROOT / 'tests' / 'bots' / 'spy_bot.py'}"]
    r = cardarena(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "a secret seed (shown after the match)" in r.stdout
    match_id = re.search(r"recorded as match (\d+)", r.stdout).group(1)
    m = Ledger(db).match(int(match_id))
    printed = re.search(r"deal: seed (\d+), salt ([0-9a-f]{32}), commitment ([0-9a-f]{64})", r.stdout)
    assert (int(printed.group(1)), printed.group(2), printed.group(3)) == (m.seed, m.deal_salt, m.deal_commitment)
    for path in logs:
        got = spied(path)[match_id]
        assert got["commitment"] == committed(GAME, match_id, got["seed"], got["salt"]) == m.deal_commitment
    again = cardarena(*args, cwd=tmp_path)  # no --seed: another secret seed each time
    assert re.search(r"deal: seed (\d+)", again.stdout).group(1) != printed.group(1)


@pytest.mark.parametrize("column", ["seed", "deal_salt"])
def test_a_tampered_seed_or_salt_fails_match_verify(tmp_path, ledger_url, column):
    db = ledger_url()
    league(tmp_path, db, f"a={RANDOM}", f"b={RANDOM}", f"c={RANDOM}")
    ok = cardarena("match", "verify", "2", "--db", db, cwd=tmp_path)
    assert ok.returncode == 0 and "dealt as committed" in ok.stdout, ok.stdout + ok.stderr
    ledger = Ledger(db)
    value = "seed + 1" if column == "seed" else "'00000000000000000000000000000000'"
    with ledger.engine.begin() as c:
        c.execute(text(f"UPDATE match SET {column} = {value} WHERE id = 2"))
    bad = cardarena("match", "verify", "2", "--db", db, cwd=tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "the deal does not match its commitment" in bad.stdout
    assert bad.stderr.strip().splitlines() == [bad.stderr.strip()] and "does not verify" in bad.stderr


def _crawl(base: str, ledger_db: str, league_id: int, stop: threading.Event, seen: list) -> None:
    """Fetch every public answer again and again until ``stop``; each kept with its time."""
    with httpx.Client(base_url=base, timeout=30) as web:
        while not stop.is_set():
            try:
                paths = ["/", "/leagues", f"/leagues/{league_id}", f"/api/v1/leagues/{league_id}", "/api/v1/leagues",
                         "/api/v1/live", f"/api/v1/matches?league={league_id}&limit=100", "/matches", "/api/v1/matches",
                         f"/games/{GAME}", f"/api/v1/games/{GAME}/ratings"]
                # 404 until the league is in the ledger (its web server starts first): an answer too
                listed = f"/api/v1/matches?league={league_id}&limit=100"
                r = web.get(listed)
                seen.append((time.time(), listed, r.status_code, r.text))
                listing = r.json() if r.status_code == 200 else []
                for m in listing:
                    i = m["id"]
                    paths += [f"/api/v1/matches/{i}", f"/matches/{i}", f"/matches/{i}/replay",
                              f"/api/v1/matches/{i}/steps/1", f"/matches/{i}/live", f"/matches/{i}/live/table"]
                for path in paths:
                    r = web.get(path)
                    seen.append((time.time(), path, r.status_code, r.text))
                for m in listing:
                    if m["status"] == "running":
                        with web.stream("GET", f"/api/v1/matches/{m['id']}/live") as stream:
                            kind = ""
                            for line in stream.iter_lines():
                                if line.startswith("event:"):
                                    kind = line.split(":", 1)[1].strip()
                                elif line.startswith("data:"):
                                    seen.append((time.time(), f"live {kind} {m['id']}", 200, line))
                                    break
            except (httpx.HTTPError, ValueError):
                time.sleep(0.05)  # the server is starting or has stopped


def test_a_crawl_of_every_public_answer_during_a_duplicate_league_holds_no_unspent_deal(tmp_path, ledger_url):
    db = ledger_url()
    args = [*CLI, "league", "run", "--game", GAME, "--seats", "3", "--duplicate", "--rounds", "2", "-j", "2",
            "--db", db, "--log-dir", str(tmp_path / "logs"), "--move-time", "20", "--web-address", "127.0.0.1:0"]
    for n in ("a", "b", "c"):
        args += ["--bot", f"{n}={SLOW}"]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CARDARENA_THINK": "0.03"})
    seen: list = []
    stop = threading.Event()
    crawler = None
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            found = re.search(r"watch it live: (http://127\.0\.0\.1:\d+)/", line)
            if found:
                crawler = threading.Thread(target=_crawl, args=(found.group(1), db, 1, stop, seen))
                crawler.start()
                break
        assert crawler is not None, "".join(lines)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    finally:
        stop.set()
        if crawler is not None:
            crawler.join(60)
        if proc.poll() is None:
            proc.kill()
    ledger = Ledger(db)
    matches = ledger.league_matches(1)
    info = ledger.league(1)
    assert len(matches) == 6 and info.counts["finished"] == 6
    # when each deal was spent: its set's last rotation recorded
    spent_at = {}
    for m in matches:
        done = max(x.finished_at for x in matches if x.duplicate_set == m.duplicate_set)
        spent_at[m.id] = (done if done.tzinfo else done.replace(tzinfo=timezone.utc)).timestamp()
    secret = info.settings["secret"]
    assert re.fullmatch(r"[0-9a-f]{64}", secret)
    details = {m.id: ledger.match(m.id) for m in matches}
    sealed_rotation_seen = sealed_live_seen = False
    ended = max(spent_at.values())
    for when, path, status, body in seen:
        if when < ended:  # answered while the league was still being played
            assert secret not in body, path
        for m in details.values():
            if when < spent_at[m.id]:  # fetched (and so answered) before its deal was spent
                assert str(m.seed) not in body, (path, m.id)
                assert m.deal_salt not in body, (path, m.id)
        if path.startswith("/api/v1/matches/") and path.count("/") == 4 and status == 200:
            d = json.loads(body)
            if d["status"] == "finished" and not d["deal_spent"]:
                sealed_rotation_seen = True
                assert d["seed"] is None and d["events"] == [] and d["steps"] == [] and d["play_by_play"] == []
                assert d["deal_commitment"] == details[d["id"]].deal_commitment
        if path.endswith("/replay") and status == 403:
            assert "duplicate set" in body or "running" in body or "scheduled" in body
        if path.startswith("live frame "):
            frame = json.loads(body[len("data:"):])
            assert frame.get("sealed") is True and frame["view"] is None and frame["events"] == []
            sealed_live_seen = True
    assert len(seen) > 50  # the crawl ran through the league
    assert sealed_rotation_seen, "no finished rotation of an open set was crawled"
    assert sealed_live_seen, "no live frame was crawled"
    # once the league has ended, everything is public, and the secret derives every seed
    shown = json.loads(cardarena("league", "show", "1", "--db", db, "--format", "json", cwd=tmp_path).stdout)
    assert shown["league"]["settings"]["secret"] == secret and shown["league"]["organizer_seeded"] is False
    from cardarena.server.schedule import derive_seed
    assert {m.seed for m in matches} == {derive_seed(secret, 0, 0), derive_seed(secret, 1, 3)}  # each set's first


def test_league_seeds_are_keyed_by_a_fresh_secret_each_time(tmp_path):
    """Without --seed, two leagues of the same bots get other deals; with it, the same ones."""
    from cardarena.server.league import LeagueSpec, check_spec, league_plans
    spec = LeagueSpec(GAME, ["a", "b", "c"], seats=3)
    one, two = check_spec(spec), check_spec(spec)
    assert one.secret and two.secret and one.secret != two.secret
    assert {p.seed for p in league_plans(one)}.isdisjoint({p.seed for p in league_plans(two)})
    seeded = LeagueSpec(GAME, ["a", "b", "c"], seats=3, seed=7)
    assert check_spec(seeded).secret is None
    assert [p.seed for p in league_plans(check_spec(seeded))] == [p.seed for p in league_plans(check_spec(seeded))]


def test_match_seeds_come_from_the_csprng(monkeypatch):
    drawn = []

    def randbits(k):
        drawn.append(k)
        return 12345
    monkeypatch.setattr(deal.secrets, "randbits", randbits)
    assert deal.new_seed() == 12345 and drawn == [63]


def test_arena_seeds_are_not_drawn_from_its_table_generator(tmp_path):
    """Two arenas whose table draws use the same seeded generator still deal other hands; each
    ladder match's commitment is the one its record proves."""
    sys.path.insert(0, str(ROOT / "tests" / "leagues"))
    from leaguekit import random_bots, referee as make_referee

    from cardarena.server.ladder import Arena, LadderSpec

    async def one_match(db: str) -> int:
        ledger = Ledger(db)
        for name in ("a", "b"):
            ledger.add_bot(name)
        ref = make_referee()
        arena = Arena(ref, ledger, [LadderSpec(GAME, 2)], rng=random.Random(1))
        async with random_bots(ref, ["a", "b"]):
            await arena._play(arena.ladders[0], ["a", "b"])
        (m,) = ledger.matches(kind="ladder")
        detail = ledger.match(m.id)
        assert detail.status == "finished"
        assert detail.deal_commitment == committed(GAME, m.id, detail.seed, detail.deal_salt)
        return detail.seed

    first = asyncio.run(one_match(str(tmp_path / "one.db")))
    second = asyncio.run(one_match(str(tmp_path / "two.db")))
    assert first != second
    assert first != random.Random(1).getrandbits(63)
