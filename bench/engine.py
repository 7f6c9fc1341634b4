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


def solver_figures(hands: int = 300) -> None:
    """Three Thirteen's meld solver on 13-card hands with 4 wild cards (2 jokers and 2 of the
    round's wild rank), alone and going out with a 14th card: mean and worst time per hand."""
    import random

    from cardarena.server.games.cards import JOKER, make_card, rank_of
    from cardarena.server.games.melds import arrange, going_out_discards

    rng = random.Random(13)
    wild = 13  # the last round: Kings are wild
    deck = [c for c in range(52) if rank_of(c) != wild] * 4
    times_arrange, times_out = [], []
    for _ in range(hands):
        hand = rng.sample(deck, 9) + [JOKER, JOKER, make_card(wild, rng.randrange(4)), make_card(wild, rng.randrange(4))]
        t0 = time.perf_counter()
        arrange(hand, wild)
        times_arrange.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        going_out_discards(hand + [rng.choice(deck)], wild)
        times_out.append(time.perf_counter() - t0)
    for name, ts in (("13 cards, 4 wild: best arrangement", times_arrange),
                     ("14 cards, 4 wild: going-out discards", times_out)):
        print(f"meld solver, {name}: mean {1000 * sum(ts) / len(ts):.2f} ms, worst {1000 * max(ts):.2f} ms "
              f"({len(ts)} random hands)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per game and player count")
    ap.add_argument("--game", action="append", help="only these games")
    ap.add_argument("--players", type=int, action="append", help="only these player counts")
    ap.add_argument("--no-solver", action="store_true", help="skip the meld solver figures")
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
    if not args.no_solver and (not args.game or "three-thirteen" in args.game):
        solver_figures()


if __name__ == "__main__":
    main()
