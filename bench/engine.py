#!/usr/bin/env python3
"""Engine speed: full random games per second for every registered game and player count.

Each decision is built as the referee builds it — a view for the seat, its legal actions, the
events it saw — and a random bot picks an index; so the figures include view building. One
core, one process. Usage: python bench/engine.py [--seconds S] [--game ID] [--players N]
"""
from __future__ import annotations

import argparse
import time

from cardarena.server.games import games
from cardarena.server.match import RandomBot, play_match


def measure(game_id: str, players: int, seconds: float) -> tuple[float, float, float]:
    bots = [RandomBot(s) for s in range(players)]
    n = decisions = 0
    t0 = time.perf_counter()
    while True:
        rec = play_match(game_id, bots, seed=n)
        n += 1
        decisions += rec.decisions
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds and n >= 3:
            break
    return n / elapsed, decisions / elapsed, 1000 * elapsed / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per game and player count")
    ap.add_argument("--game", action="append", help="only these games")
    ap.add_argument("--players", type=int, action="append", help="only these player counts")
    args = ap.parse_args()
    print(f"{'game':<16}{'players':>8}{'games/s':>12}{'decisions/s':>14}{'ms/game':>10}")
    for gid, cls in games().items():
        if args.game and gid not in args.game:
            continue
        for n in range(cls.min_players, cls.max_players + 1):
            if args.players and n not in args.players:
                continue
            gps, dps, ms = measure(gid, n, args.seconds)
            print(f"{gid:<16}{n:>8}{gps:>12.1f}{dps:>14.0f}{ms:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
