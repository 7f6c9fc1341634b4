"""Ledger benchmark, SQLite and PostgreSQL side by side: the time to record one match, and the
rating table and ``ratings recompute`` of a 100,000-match ledger.

    .venv/bin/python bench/ledger.py          # SQLite and a throwaway PostgreSQL: 1,000 recorded, 100,000 in the big ledger
    .venv/bin/python bench/ledger.py --quick  # 200 recorded, 1,000 in the big ledger: about a minute
    .venv/bin/python bench/ledger.py --db sqlite --db postgresql://bench@db.example.org/bench --matches 20000

``--db`` names the ledgers (bench/_backends.py: ``sqlite``, ``postgresql`` for a throwaway
server of tests/pgserver.py, a file, a URL of your server); each measurement below takes a
fresh, empty ledger on each, one backend after the other, and the figures are printed side by
side, one column a backend, with the ratio of each to the first, and the load average when each
was measured (the machine may be shared). Printed, never asserted.

1. ``record_match``: a league of ``--record`` 4-seat matches among 12 bots (``create_league``
   timed), each match with ``--events`` events and ``--steps`` steps (roughly a Sixth Card
   match), claimed and recorded one by one in this process: wall time p50/p95/mean, and this
   process's CPU (a PostgreSQL server's own CPU is not in it); then the parts that are not the
   database (serialising the log, the TrueSkill update), so the database's share can be read
   off, and ``check()`` of the result.
2. A ledger of ``--matches`` finished 3–5 seat matches among ``--bots`` bots, its facts written
   in bulk (``write_finished``, as ``record_match`` would leave them, without ratings), then
   rated by ``cardarena ratings recompute --db …`` run as a user runs it, a new process (its
   wall time, and the time the command itself prints); then the rating table, the query of the
   ``ratings`` command and of the web leaderboard: ``Ledger.ratings()`` with
   ``format_ratings(…, "table")`` in this process (median and worst of 20), the first one from
   a new ``Ledger`` (connecting included), and ``cardarena ratings --game sixth-card --db …`` as
   a new process (median of ``--runs``); then ``--later`` more matches (300 events, 100 steps
   each) recorded on the big ledger, to show the time does not grow with it, and the ledger's
   size on disk (for PostgreSQL, its tables with their indexes and TOAST).
"""
from __future__ import annotations

import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import insert, text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _backends import CLI, backends, column, load, parser, side_by_side, size_mb  # noqa: E402

from cardarena.ratings import Ledger, MatchPlan, format_ratings, update  # noqa: E402
from cardarena.ratings.ledger import pack_events, pack_steps  # noqa: E402
from cardarena.ratings.models import FINISHED, Match, MatchLog, Seat  # noqa: E402

GAME = "sixth-card"


def fake_log(rng: random.Random, events: int, steps: int, seats: int):
    cards = ["A♠", "7♦", "10♣", "Q♥", "Jo", "3♠", "K♦"]
    evs = [{"step": i * steps // max(events, 1), "seats": None if i % 3 else [i % seats],
            "data": {"type": "play", "seat": i % seats, "card": rng.choice(cards), "row": i % 4}}
           for i in range(events)]
    sts = [{s: rng.randrange(10) for s in range(seats)} for _ in range(steps)]
    return evs, sts


def places_of(rng: random.Random, n: int) -> list[int]:
    scores = [rng.randint(0, 60) for _ in range(n)]
    return [1 + sum(o < s for o in scores) for s in scores]  # fewer points is better; ties share


def p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95)]


def record_one(led: Ledger, match_id: int, rng: random.Random, events: int, steps: int) -> tuple[float, float]:
    """Record match ``match_id`` with a fake log of this size: (wall, CPU) seconds of ``record_match``."""
    evs, sts = fake_log(rng, events, steps, 4)
    places = places_of(rng, 4)
    t, c = time.perf_counter(), time.process_time()
    led.record_match(match_id, scores=[float(p) for p in places], places=places, faults=[0] * 4,
                     forfeited=[False] * 4, steps=sts, events=evs, duration_s=1.0)
    return time.perf_counter() - t, time.process_time() - c


def bench_record(where: str, matches: int, events: int, steps: int) -> dict:
    rng = random.Random(1)
    led = Ledger(where)
    names = [f"bot{i:02d}" for i in range(12)]
    for name in names:
        led.add_bot(name)
    plans = [MatchPlan(0, i, i, rng.sample(names, 4)) for i in range(matches)]
    t = time.perf_counter()
    league_id = led.create_league(GAME, {}, {"bench": True}, plans)
    fig = {f"create_league, {matches:,} matches": ((time.perf_counter() - t) * 1000, "ms")}

    wall, cpu, pack_t, rate_t = [], [], [], []
    for m in led.league_matches(league_id):
        evs, sts = fake_log(rng, events, steps, 4)
        t = time.perf_counter()
        pack_events(evs), pack_steps(sts)
        pack_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        update([(25.0 + rng.random(), 5.0)] * 4, places_of(rng, 4), GAME)
        rate_t.append(time.perf_counter() - t)
        assert led.claim_match(m.id)
        w, c = record_one(led, m.id, rng, events, steps)
        wall.append(w)
        cpu.append(c)
    shape = f"{matches:,} × 4 seats, {events} events, {steps} steps"
    fig[f"record_match p50 ({shape})"] = (statistics.median(wall) * 1000, "ms")
    fig["record_match p95"] = (p95(wall) * 1000, "ms")
    fig["record_match mean"] = (statistics.mean(wall) * 1000, "ms")
    fig["record_match CPU p50 (this process)"] = (statistics.median(cpu) * 1000, "ms")
    fig["  of which serialising the log, p50"] = (statistics.median(pack_t) * 1000, "ms")
    fig["  of which the TrueSkill update, p50"] = (statistics.median(rate_t) * 1000, "ms")
    fig["check() problems"] = (len(led.check()), "")
    led.close()
    return fig


def write_finished(led: Ledger, ids: list[int], matches: int, rng: random.Random) -> None:
    """``matches`` finished 3–5 seat matches among the bots ``ids``, written in bulk as
    record_match would leave their facts (no ratings: ``Ledger.recompute`` rates them)."""
    log_events, log_steps = pack_events([]), pack_steps([])
    league_id = led.create_league(GAME, {}, {"bench": True}, [])
    with led.engine.begin() as c:  # the facts, in bulk, as record_match would leave them
        for start in range(0, matches, 10_000):
            chunk = range(start + 1, min(start + 10_000, matches) + 1)
            c.execute(insert(Match.__table__), [
                {"id": i, "league_id": league_id, "game": GAME, "seed": i, "options": {}, "round": 0, "index": i,
                 "status": FINISHED, "result_details": {}} for i in chunk])
            seats = []
            for i in chunk:
                n = rng.choice((3, 4, 5))
                for s, (bot, place) in enumerate(zip(rng.sample(ids, n), places_of(rng, n))):
                    seats.append({"match_id": i, "seat": s, "bot_id": bot, "score": float(place), "place": place,
                                  "faults": 0, "forfeited": False})
            c.execute(insert(Seat.__table__), seats)
            c.execute(insert(MatchLog.__table__),
                      [{"match_id": i, "events": log_events, "steps": log_steps} for i in chunk])
        if c.dialect.name == "postgresql":  # ids given: the next match's id must come after them
            c.execute(text("SELECT setval(pg_get_serial_sequence('match', 'id'), (SELECT max(id) FROM match))"))


def run_cli(*args: str) -> tuple[float, str]:
    """``cardarena ARGS…`` in a new process, as a user runs it: (wall seconds, its output)."""
    t = time.perf_counter()
    r = subprocess.run([*CLI, *args], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode:
        raise SystemExit(f"cardarena {' '.join(args)}: {r.stderr.strip() or r.stdout.strip()}")
    return wall, r.stdout


def bench_ratings(where: str, matches: int, bots: int, runs: int, later: int) -> dict:
    rng = random.Random(2)
    led = Ledger(where)
    names = [f"bot{i:03d}" for i in range(bots)]
    ids = [led.add_bot(n)[0].id for n in names]
    t = time.perf_counter()
    write_finished(led, ids, matches, rng)
    fig = {f"big ledger: {matches:,} matches (3–5 seats, {bots} bots) written in bulk":
           (time.perf_counter() - t, "s")}
    print(f"  … {matches:,} matches written; `cardarena ratings recompute` …", flush=True)
    wall, said = run_cli("ratings", "recompute", "--db", where)
    fig["`ratings recompute` (a new process)"] = (wall, "s")
    took = re.search(r"in ([\d.]+) s", said)
    fig["  the recompute itself (as it prints)"] = (float(took.group(1)), "s") if took else ("?", "")

    times = []
    for _ in range(20):
        t = time.perf_counter()
        format_ratings(led.ratings(), "table")
        times.append(time.perf_counter() - t)
    fig["ratings() + format_ratings(table) p50"] = (statistics.median(times) * 1000, "ms")
    fig["ratings() + format_ratings(table) worst of 20"] = (max(times) * 1000, "ms")
    led.close()
    fresh = Ledger(where)  # as a new process has it: a new engine, no connection yet
    t = time.perf_counter()
    fresh.ratings()
    fig["the first ratings() of a new Ledger (connecting)"] = ((time.perf_counter() - t) * 1000, "ms")
    shown = [run_cli("ratings", "--game", GAME, "--db", where)[0] for _ in range(runs)]
    fig[f"`cardarena ratings` (a new process), p50 of {runs}"] = (statistics.median(shown) * 1000, "ms")

    wall = []
    for k in range(later):
        wall.append(record_one(fresh, fresh.create_match(GAME, k, {}, rng.sample(names, 4)), rng, 300, 100)[0])
    fig[f"record_match on the big ledger, p50 of {later}"] = (statistics.median(wall) * 1000, "ms")
    fig["record_match on the big ledger, p95"] = (p95(wall) * 1000, "ms")
    fig["big ledger's size on disk"] = (size_mb(fresh), "MB")
    fresh.close()
    return fig


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--record", type=int, help="matches recorded one by one (default 1,000; --quick 200)")
    p.add_argument("--events", type=int, default=300, help="events per recorded match")
    p.add_argument("--steps", type=int, default=100, help="steps per recorded match")
    p.add_argument("--matches", type=int, help="finished matches of the big ledger (default 100,000; --quick 1,000)")
    p.add_argument("--bots", type=int, default=40, help="bots of the big ledger")
    p.add_argument("--runs", type=int, help="times `cardarena ratings` is run (default 5; --quick 1)")
    p.add_argument("--later", type=int, help="matches recorded on the big ledger (default 200; --quick 50)")
    args = p.parse_args()
    record = args.record if args.record is not None else (200 if args.quick else 1000)
    matches = args.matches if args.matches is not None else (1000 if args.quick else 100_000)
    runs = args.runs or (1 if args.quick else 5)
    later = args.later or (50 if args.quick else 200)
    print(f"{load()} at the start", flush=True)
    with backends(args) as found:
        columns = []
        for b in found:
            fig = column()
            if record:
                print(f"{b.name}: recording {record:,} matches …", flush=True)
                fig |= bench_record(b.new(), record, args.events, args.steps)
            if matches:
                print(f"{b.name}: a {matches:,}-match ledger …", flush=True)
                fig |= bench_ratings(b.new(), matches, args.bots, runs, later)
            columns.append(fig)
        side_by_side("the ledger (ms and s: lower is better)", found, columns)
    t = time.perf_counter()
    subprocess.run([*CLI[:1], "-c", "import cardarena.server.cli"], check=True)
    print(f"  (of each new process: starting Python and importing the CLI, "
          f"{(time.perf_counter() - t) * 1000:.0f} ms)")
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
