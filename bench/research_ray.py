#!/usr/bin/env python3
"""In-process matches per second on Ray: ``cardarena.research.ray_play.play_many`` in this process
(no Ray, the baseline), then on a local Ray of 1 worker and of 2 workers.

    .venv/bin/python bench/research_ray.py                       # sixth-card, 4 seats, 600 matches, 3 repeats
    .venv/bin/python bench/research_ray.py --game scout --players 3 --matches 200 --repeats 1

The bots: the game's ready-made heuristic and N − 1 random bots (``RandomBot``) at tables of N,
the seating rotating (``play_many(…, seats=N)``), the game's default options, seeds 0 … M − 1. Each
figure is wall-clock matches per second (the median of ``--repeats`` runs of all M matches);
Ray's start and its workers' first imports are left out (one untimed run of a few matches on
each worker count first). One local Ray is started with as many CPUs as the most workers asked
(``ray.init(address="local", num_cpus=N)``); ``num_workers=n`` keeps at most n tasks on it at
once. The modes are measured in turns (every mode once, then again), so a burst of load on the
shared machine moves one sample of each rather than one mode; the samples are printed beside
the medians, and the load average before and after. Every mode must give the same results,
match for match: the bench checks it, so its figures are of the same work.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from cardarena.research import ray_play
from cardarena.research.ray_league import heuristic
from cardarena.server.match import RandomBot


def policies(game: str, players: int) -> dict:
    bots = {"heuristic": heuristic(game)}
    bots.update({f"random{i}": RandomBot(i) for i in range(1, players)})
    return bots


def timed(run, matches: int) -> tuple[float, list]:
    """Matches/s of one ``run()``, and its results."""
    t0 = time.perf_counter()
    results = run()
    return matches / (time.perf_counter() - t0), results


def measure(game: str = "sixth-card", players: int = 4, matches: int = 600, repeats: int = 3,
            workers: tuple[int, ...] = (1, 2)) -> dict[str, float]:
    """Median matches/s without Ray and on a local Ray with each number of workers; prints them."""
    bots = policies(game, players)
    seeds = range(matches)
    modes = {"no Ray (this process)": lambda: ray_play.play_many(game, bots, seeds, seats=players, in_process=True)}
    for n in workers:
        modes[f"Ray, {n} worker{'s' if n != 1 else ''}"] = (
            lambda n=n: ray_play.play_many(game, bots, seeds, seats=players, num_workers=n))
    ray_play.connect(None, num_workers=max(workers))
    try:
        for n in workers:  # every worker up, its imports done
            ray_play.play_many(game, bots, range(4 * n), seats=players, num_workers=n)
        samples: dict[str, list[float]] = {label: [] for label in modes}
        expected = None
        for _ in range(repeats):  # in turns: a burst of load moves one sample of each, not one mode
            for label, run in modes.items():
                per_s, results = timed(run, matches)
                if expected is None:
                    expected = results
                elif results != expected:
                    raise SystemExit(f"{label} gave other results than this process: a bug")
                samples[label].append(per_s)
    finally:
        ray_play.shutdown()
    figures = {label: statistics.median(v) for label, v in samples.items()}
    base = figures["no Ray (this process)"]
    for label, per_s in figures.items():
        print(f"{label:<24} {per_s:8.1f} matches/s  {per_s / base:5.2f}×  (samples: "
              f"{', '.join(f'{v:.0f}' for v in samples[label])})", flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="sixth-card")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--matches", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args(argv)
    print(f"{a.game}, {a.players} seats, {a.matches} matches (the heuristic and {a.players - 1} random bots), "
          f"median of {a.repeats}; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", flush=True)
    measure(a.game, a.players, a.matches, a.repeats, tuple(a.workers))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
