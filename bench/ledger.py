"""Ledger benchmark: the time to record one match, and to read the rating table of a big ledger.

    .venv/bin/python bench/ledger.py                    # 1,000 recorded matches, a 100,000-match ledger
    .venv/bin/python bench/ledger.py --matches 20000 --record 300 --events 1000

Both run on a SQLite file in a temporary folder (WAL, synchronous NORMAL: the ledger's settings).

1. ``record_match``: a league of 4-seat matches among 12 bots, each match with ``--events``
   events and ``--steps`` steps (roughly a Sixth Card match), claimed and recorded one by one.
   Printed: wall and CPU time per match, and the parts that are not the database (serialising
   the log, the TrueSkill update), so the database's share can be read off.
2. ``ratings()``: a ledger of ``--matches`` finished matches (written in bulk, then rated with
   ``recompute``, which gives exactly what ``record_match`` would have stored), then the rating
   table read and formatted, and a few more matches recorded to show the time does not grow
   with the ledger.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert, text

from cardarena.ratings import Ledger, MatchPlan, format_ratings, update
from cardarena.ratings.ledger import pack_events, pack_steps
from cardarena.ratings.models import FINISHED, Match, MatchLog, Seat

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


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def bench_record(folder: Path, matches: int, events: int, steps: int) -> None:
    rng = random.Random(1)
    led = Ledger(str(folder / "record.db"))
    names = [f"bot{i:02d}" for i in range(12)]
    for name in names:
        led.add_bot(name)
    plans = [MatchPlan(0, i, i, rng.sample(names, 4)) for i in range(matches)]
    t = time.perf_counter()
    league_id = led.create_league(GAME, {}, {"bench": True}, plans)
    print(f"create_league with {matches} matches: {ms(time.perf_counter() - t)}")

    wall, cpu, pack_t, rate_t = [], [], [], []
    for m in led.league_matches(league_id):
        evs, sts = fake_log(rng, events, steps, 4)
        places = places_of(rng, 4)
        t = time.perf_counter()
        pack_events(evs), pack_steps(sts)
        pack_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        update([(25.0 + rng.random(), 5.0)] * 4, places, GAME)
        rate_t.append(time.perf_counter() - t)
        assert led.claim_match(m.id)
        t, c = time.perf_counter(), time.process_time()
        led.record_match(m.id, scores=[float(p) for p in places], places=places, faults=[0] * 4,
                         forfeited=[False] * 4, steps=sts, events=evs, duration_s=1.0)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    wall.sort()
    print(f"record_match, {matches} matches of 4 seats, {events} events, {steps} steps each:")
    print(f"  wall: median {ms(statistics.median(wall))}, mean {ms(statistics.mean(wall))}, "
          f"p95 {ms(wall[int(len(wall) * 0.95)])}")
    print(f"  CPU:  median {ms(statistics.median(cpu))}")
    print(f"  of which (outside the database): serialising the log {ms(statistics.median(pack_t))}, "
          f"TrueSkill update {ms(statistics.median(rate_t))}")
    problems = led.check()
    print(f"  check(): {len(problems)} problems")
    led.close()


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


def bench_ratings(folder: Path, matches: int, bots: int) -> None:
    rng = random.Random(2)
    path = folder / "big.db"
    led = Ledger(str(path))
    names = [f"bot{i:03d}" for i in range(bots)]
    ids = [led.add_bot(n)[0].id for n in names]
    t = time.perf_counter()
    write_finished(led, ids, matches, rng)
    print(f"ledger of {matches} finished matches (3-5 seats, {bots} bots) written in bulk: "
          f"{time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    replayed = led.recompute()
    print(f"recompute(): {replayed} matches in {time.perf_counter() - t:.1f} s")

    times = []
    for _ in range(20):
        t = time.perf_counter()
        rows = led.ratings()
        text_table = format_ratings(rows, "table")
        times.append(time.perf_counter() - t)
    print(f"ratings() + format_ratings(table) on {matches} matches, {len(rows)} rows: "
          f"median {ms(statistics.median(times))}, worst {ms(max(times))}")
    led.close()

    fresh = Ledger(str(path))  # a new process: cold engine, cold cache
    t = time.perf_counter()
    rows = fresh.ratings()
    print(f"  the same from a new Ledger (first query, cold): {ms(time.perf_counter() - t)}")

    wall = []
    for k in range(200):
        match_id = fresh.create_match(GAME, k, {}, rng.sample(names, 4))
        evs, sts = fake_log(rng, 300, 100, 4)
        places = places_of(rng, 4)
        t = time.perf_counter()
        fresh.record_match(match_id, scores=[float(p) for p in places], places=places, faults=[0] * 4,
                           forfeited=[False] * 4, steps=sts, events=evs)
        wall.append(time.perf_counter() - t)
    print(f"record_match on the {matches}-match ledger: median {ms(statistics.median(wall))}")
    with fresh.engine.connect() as c:
        size = sum(os.path.getsize(p) for p in (path, Path(f"{path}-wal")) if p.exists())
        c.execute(text("SELECT 1"))
    print(f"  database size {size / 1e6:.1f} MB")
    t = time.perf_counter()
    problems = fresh.check()
    print(f"check() on {matches + 200} matches: {len(problems)} problems, {time.perf_counter() - t:.1f} s")
    fresh.close()
    if "--show" in sys.argv:
        print(text_table)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--record", type=int, default=1000, help="matches to record one by one")
    p.add_argument("--events", type=int, default=300, help="events per recorded match")
    p.add_argument("--steps", type=int, default=100, help="steps per recorded match")
    p.add_argument("--matches", type=int, default=100_000, help="finished matches in the big ledger")
    p.add_argument("--bots", type=int, default=40, help="bots in the big ledger")
    p.add_argument("--show", action="store_true", help="print the big ledger's rating table")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.record:
            bench_record(Path(folder), args.record, args.events, args.steps)
        if args.matches:
            bench_ratings(Path(folder), args.matches, args.bots)


if __name__ == "__main__":
    main()
