"""Web benchmark: the leaderboard, bot and match pages and their API calls on a big ledger, through
the real `cardarena web` and a real HTTP client.

    .venv/bin/python bench/web.py                          # 100,000 matches among 1,000 bots
    .venv/bin/python bench/web.py --matches 5000 --bots 100 --requests 50      # a quick run
    .venv/bin/python bench/web.py --only api               # the API calls alone

1. The ledger (built once, then kept in the temporary folder under a name made of its
   parameters, ``cardarena-bench-web-<matches>-<bots>-<seeds>/ledger.db``; ``--rebuild`` makes
   it again): real matches are played in-process first (``server.match.play_match``, heuristic
   bots and RandomBot alternating at each table, ``--seeds`` seeds for each game of
   :data:`GAMES` and each of 3, 4 and 5 seats), and each of
   the ``--matches`` ledger matches reuses one of them: its seed, steps, event log and result,
   at a table of bots drawn from ``--bots``, so every match page and replay is a real match.
   Each seat gets a decision-latency histogram (server/latency.py) counting the decisions that
   seat answered, around a speed of its bot's own; the oldest tenth of the matches has none, as
   matches recorded before the referee kept latency. The facts are written in bulk, then rated
   by ``Ledger.recompute`` (what ``cardarena ratings recompute`` does, the same numbers
   ``record_match`` stores), as bench/ledger.py does.
2. The server: ``cardarena web --db … --address 127.0.0.1:0`` as a subprocess (the real CLI,
   uvicorn), its URL read from the line it prints.
3. The measures, with httpx: first the server's floor, a static file on a kept-alive connection
   and on a new one (a kept-alive one that stalls ~40 ms is Nagle's algorithm meeting delayed
   ACKs: the bench then opens a new connection per request, and says so); then for each kind
   of URL, ``--requests`` requests one after another,
   then as many again from ``--concurrency`` clients at once, over varied games, leaderboard
   pages, bots and matches (drawn with a fixed seed). Printed per kind: p50, p99 and max of
   each run, the very first request (a cold cache), against the targets (p99 under
   50 ms a page, under 20 ms an API call), then one summary line with the machine's load
   average (1, 5 and 15 minutes) before and after the measures: the machine is shared, and a
   loaded one slows every figure. The second run asks for the URLs of the first (in the other
   order): a finished match's answer and page are then kept by the server (server/web/api.py,
   Speed), a bot's rating lines and match seconds too; the first run's misses are the cold
   figures. Each run's ``cpu`` is the server process's CPU time (user + system, from Linux's
   /proc) per request: what a change saves, seen through a loaded machine's noise.

Figures are printed, never asserted (tests do not time anything).
"""
from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import insert

from cardarena.ratings import Ledger, LedgerVersionError
from cardarena.ratings.ledger import pack_events, pack_steps
from cardarena.ratings.models import FINISHED, Match, MatchLog, Seat
from cardarena.server import latency
from cardarena.server.games import get as get_game
from cardarena.client.strategies import for_game
from cardarena.server.match import RandomBot, StrategyBot, play_match

GAMES = ("sixth-card", "unsorted", "scouting", "scout", "three-thirteen")
SEATS = (3, 4, 5)
PAGE_MS, API_MS = 50.0, 20.0  # the targets for the p99
CHUNK = 5000


# --------------------------------------------------------------------------------- the ledger


def played_matches(seeds: int) -> list[dict]:
    """Real matches, each as the columns a ledger match of it needs: at each table heuristic bots
    (``cardarena.client.strategies``) and random ones alternate (random bots alone make Three
    Thirteen matches ten times as long as any real one: they never go out)."""
    out = []
    for game in GAMES:
        version = get_game(game).engine_version
        for n in SEATS:
            for seed in range(1, seeds + 1):
                bots = [StrategyBot(for_game(game)) if (s + seed) % 2 else RandomBot(seed * 10 + s) for s in range(n)]
                r = play_match(game, bots, seed=seed)
                events = [{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                          for step, ev in r.log]
                answered = [sum(s in step for step in r.steps) for s in range(n)]
                out.append({"game": game, "seed": seed, "options": dict(r.options), "players": n,
                            "scores": [float(x) for x in r.result.scores], "places": list(r.result.places),
                            "events": pack_events(events), "steps": pack_steps(r.steps), "answered": answered,
                            "version": version})
    return out


def seat_histogram(rng: random.Random, answered: int, speed: int) -> dict[str, int]:
    """``answered`` decisions around a bot's usual latency bin (``speed``), with a slow tail."""
    counts: dict[int, int] = {}
    for _ in range(min(answered, 40)):  # a few draws, scaled up: cheap for a 6,000-step match
        b = max(0, speed + int(rng.gauss(0, 2)) + (12 if rng.random() < 0.02 else 0))
        counts[b] = counts.get(b, 0) + 1
    draws = sum(counts.values())
    scaled = {b: c * answered // draws for b, c in counts.items()} if draws else {}
    if answered:
        scaled[speed] = scaled.get(speed, 0) + answered - sum(scaled.values())
    return {str(b): c for b, c in sorted(scaled.items()) if c}


def build_ledger(path: Path, matches: int, bots: int, seeds: int) -> None:
    t = time.perf_counter()
    templates = played_matches(seeds)
    size = statistics.mean(len(m["events"]) + len(m["steps"]) for m in templates)
    print(f"played {len(templates)} real matches of heuristic and random bots ({len(GAMES)} games, 3-5 seats, "
          f"{size / 1000:.1f} kB of log each on average) in {time.perf_counter() - t:.1f} s", flush=True)
    rng = random.Random(15)
    led = Ledger(str(path))
    names = [f"bot{i:04d}" for i in range(bots)]
    ids = [led.add_bot(n)[0].id for n in names]
    speed = {b: latency.bin_of(rng.lognormvariate(-5.5, 1.2)) for b in ids}  # each bot's usual latency
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    t = time.perf_counter()
    with led.engine.begin() as c:
        for first in range(1, matches + 1, CHUNK):
            rows, seats, logs = [], [], []
            for i in range(first, min(first + CHUNK, matches + 1)):
                m = rng.choice(templates)
                table = rng.sample(ids, m["players"])
                details = {"faults": [], "engine_version": m["version"]}
                if i > matches // 10:  # the oldest tenth was recorded before the referee kept latency
                    details["latency"] = [seat_histogram(rng, n, speed[b]) for b, n in zip(table, m["answered"])]
                when = start + timedelta(seconds=30 * i)
                rows.append({"id": i, "game": m["game"], "seed": m["seed"], "options": m["options"],
                             "status": FINISHED, "result_details": details, "duration_s": 1.0 + rng.random(),
                             "created_at": when, "claimed_at": when, "finished_at": when + timedelta(seconds=2)})
                seats += [{"match_id": i, "seat": s, "bot_id": b, "score": m["scores"][s], "place": m["places"][s],
                           "faults": 0, "forfeited": False} for s, b in enumerate(table)]
                logs.append({"match_id": i, "events": m["events"], "steps": m["steps"]})
            c.execute(insert(Match.__table__), rows)
            c.execute(insert(Seat.__table__), seats)
            c.execute(insert(MatchLog.__table__), logs)
            print(f"  … {min(first + CHUNK - 1, matches)}/{matches} matches written", flush=True)
    print(f"ledger of {matches} finished matches among {bots} bots written in bulk: "
          f"{time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    replayed = led.recompute()
    print(f"recompute: {replayed} matches rated in {time.perf_counter() - t:.1f} s", flush=True)
    led.close()


def ledger_path(matches: int, bots: int, seeds: int, rebuild: bool) -> Path:
    """The cached ledger of these parameters, built first if it is not there (or ``rebuild``)."""
    folder = Path(tempfile.gettempdir()) / f"cardarena-bench-web-{matches}-{bots}-{seeds}"
    path = folder / "ledger.db"
    if path.exists() and not rebuild:
        try:
            Ledger(str(path)).close()
        except LedgerVersionError:  # cached by an older cardarena: made again
            print(f"ledger: {path} is of an older schema; building it again")
        else:
            print(f"ledger: {path} (cached; --rebuild makes it again)")
            return path
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / "building.db"
    for p in folder.glob("*.db*"):
        p.unlink()
    build_ledger(partial, matches, bots, seeds)
    partial.rename(path)  # only a complete ledger gets the name (WAL checkpointed by close)
    print(f"ledger: {path}")
    return path


# --------------------------------------------------------------------------------- the server


class Web:
    """`cardarena web` over a ledger as a subprocess; its URL from the line it prints."""

    def __init__(self, db: Path, log: Path):
        self.log = log.open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "cardarena.server.cli", "web", "--db", str(db),
                                      "--address", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        found = re.search(r"http://\S+?/", line)
        if not found:
            self.stop()
            raise SystemExit(f"`cardarena web` printed {line!r}; see {log}")
        self.url = found.group(0).rstrip("/")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # never let its pipe fill

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


# --------------------------------------------------------------------------------- the measures


def url_kinds(db: Path, rng: random.Random, n: int) -> dict[str, tuple[float, list[str]]]:
    """Each kind of URL: its target (ms) and ``n`` URLs of it over varied games, bots, matches."""
    led = Ledger(str(db))
    counts = led.counts()
    bots = [b.name for b in led.bots()]
    rated = {g: len(led.ratings(g)) for g in GAMES}
    led.close()
    top = max(counts["matches"][FINISHED], 1)
    pages = [(g, p) for g in GAMES for p in range(1, max(1, min(3, -(-rated[g] // 100))) + 1)]

    def some(make):
        return [make() for _ in range(n)]

    def board():
        g, p = rng.choice(pages)
        return g, p

    return {
        "page /games/{g}": (PAGE_MS, some(lambda: "/games/{}?page={}".format(*board()))),
        "page /bots/{name}": (PAGE_MS, some(lambda: f"/bots/{rng.choice(bots)}")),
        "page /matches/{id}": (PAGE_MS, some(lambda: f"/matches/{rng.randint(1, top)}")),
        "api /games/{g}/ratings": (API_MS, some(lambda: "/api/v1/games/{}/ratings?offset={}".format(
            board()[0], 100 * rng.randrange(3)))),
        "api /bots/{name}": (API_MS, some(lambda: f"/api/v1/bots/{rng.choice(bots)}")),
        "api /matches/{id}": (API_MS, some(lambda: f"/api/v1/matches/{rng.randint(1, top)}")),
        "api /matches?bot=": (API_MS, some(lambda: f"/api/v1/matches?bot={rng.choice(bots)}")),
    }


def timed(client, url: str) -> float:
    t = time.perf_counter()
    r = client.get(url)
    elapsed = time.perf_counter() - t
    if r.status_code != 200:
        raise SystemExit(f"{url}: {r.status_code} {r.text[:200]}")
    return elapsed * 1000


def quantile(ordered: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of sorted figures."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def figures(ms: list[float]) -> str:
    ordered = sorted(ms)
    return f"{quantile(ordered, 0.5):7.1f} {quantile(ordered, 0.99):7.1f} {ordered[-1]:7.1f}"


STALL_MS = 30.0  # a static file slower than this on a kept-alive connection: Nagle and delayed ACKs


def floor(url: str, keepalive: bool) -> float:
    """The median time of a static file (the server's floor, no ledger read), kept-alive or not."""
    import httpx
    limits = httpx.Limits(max_keepalive_connections=None if keepalive else 0)
    with httpx.Client(base_url=url, timeout=60, limits=limits) as client:
        return statistics.median(timed(client, "/static/site.css") for _ in range(20))


def server_cpu(pid: int) -> float | None:
    """The CPU time (s, user + system) the process has used so far, from Linux's /proc; None
    elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def measure(url: str, kinds: dict, concurrency: int, keepalive: bool, pid: int) -> list[bool]:
    import httpx
    limits = httpx.Limits(max_connections=concurrency + 1,
                          max_keepalive_connections=concurrency + 1 if keepalive else 0)
    met = []
    print(f"\n{'':26}{'first':>7} | {'sequential ms':^31} | {f'{concurrency} at once ms':^31} | target")
    print(f"{'URL kind':26}{'ms':>7} | {'p50':>7} {'p99':>7} {'max':>7} {'cpu':>7} | "
          f"{'p50':>7} {'p99':>7} {'max':>7} {'cpu':>7} | p99 <")
    with httpx.Client(base_url=url, timeout=60, limits=limits) as client:
        for kind, (target, urls) in kinds.items():
            first = timed(client, urls[0])
            cpu = [server_cpu(pid)]
            sequential = [timed(client, u) for u in urls]
            cpu.append(server_cpu(pid))
            with ThreadPoolExecutor(concurrency) as pool:
                together = list(pool.map(lambda u: timed(client, u), urls[::-1]))
            cpu.append(server_cpu(pid))
            per = ["    n/a" if None in cpu else f"{(b - a) * 1000 / len(urls):7.1f}" for a, b in zip(cpu, cpu[1:])]
            worst = max(quantile(sorted(sequential), 0.99), quantile(sorted(together), 0.99))
            ok = worst < target
            met.append(ok)
            print(f"{kind:26}{first:7.1f} | {figures(sequential)} {per[0]} | {figures(together)} {per[1]} | "
                  f"{target:.0f} {'ok' if ok else 'MISSED'}", flush=True)
    return met


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=100_000, help="finished matches of the ledger")
    p.add_argument("--bots", type=int, default=1000, help="bots of the ledger")
    p.add_argument("--seeds", type=int, default=3, help="real matches played for each game and table size")
    p.add_argument("--requests", type=int, default=300, help="requests of each URL kind, in each run")
    p.add_argument("--concurrency", type=int, default=2, help="clients at once in the second run")
    p.add_argument("--rebuild", action="store_true", help="build the ledger again even if it is cached")
    p.add_argument("--only", default="", help="measure only the URL kinds whose name holds this text (e.g. api)")
    p.add_argument("--keepalive", action="store_true",
                   help="keep connections alive even if the server stalls on them (see the printed floor)")
    args = p.parse_args()
    db = ledger_path(args.matches, args.bots, args.seeds, args.rebuild)
    kinds = url_kinds(db, random.Random(7), args.requests)
    web = Web(db, db.parent / "web.log")
    try:
        print(f"cardarena web: {web.url} (pid {web.proc.pid})")
        kept, fresh = floor(web.url, True), floor(web.url, False)
        print(f"GET /static/site.css, median: {kept:.1f} ms on a kept-alive connection, {fresh:.1f} ms on a new one")
        load = os.getloadavg()
        keepalive = kept < STALL_MS or args.keepalive
        if not keepalive:
            print(f"  a kept-alive connection stalls ~40 ms a request: the response's segments wait for the client's "
                  f"delayed ACK (Nagle: the listening socket lacks TCP_NODELAY); measuring with a new connection "
                  f"per request instead (--keepalive measures it anyway)")
        met = measure(web.url, {k: v for k, v in kinds.items() if args.only in k}, args.concurrency, keepalive,
                      web.proc.pid)
    finally:
        web.stop()
    print(f"\nsummary: {sum(met)} of {len(met)} URL kinds meet their p99 target on {args.matches} matches among "
          f"{args.bots} bots ({args.requests} requests each, sequential and {args.concurrency} at once, "
          f"{'kept-alive connections' if keepalive else 'a new connection per request'}); load average "
          f"{' '.join(f'{x:.2f}' for x in load)} before, {' '.join(f'{x:.2f}' for x in os.getloadavg())} after")


if __name__ == "__main__":
    main()
