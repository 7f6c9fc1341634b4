#!/usr/bin/env python3
"""A hostile bot that tries to learn every hand: at its first decision of each match it searches
the seeds it can guess for the deal that gives it its own hand, and writes what it found to
$ORACLE_LOG (JSON lines), then plays at random.

What it guesses: every organizer seed from 0 to $ORACLE_SEEDS - 1 (default 32), each at every
place of a schedule up to $ORACLE_ROUNDS rounds (default 2) and $ORACLE_INDEXES matches a round
(default 12), through the league's own seed derivation (:func:`derive_seed`), and the plain
seeds themselves (a match played with ``--seed N``). A league whose seeds come from a secret
leaves it nothing to find.
"""
import json
import os
import random

from cardarena.client import run
from cardarena.server.games import new_game
from cardarena.server.schedule import derive_seed

LOG = open(os.environ["ORACLE_LOG"], "a", encoding="utf-8")
SEEDS = int(os.environ.get("ORACLE_SEEDS", "32"))
ROUNDS = int(os.environ.get("ORACLE_ROUNDS", "2"))
INDEXES = int(os.environ.get("ORACLE_INDEXES", "12"))


def candidates():
    for seed in range(SEEDS):
        yield seed, None, None, seed  # a match seed given as it is
        for rnd in range(ROUNDS):
            for index in range(INDEXES):
                yield seed, rnd, index, derive_seed(seed, rnd, index)


class Oracle:
    def __init__(self):
        self.players: dict[str, int] = {}
        self.searched: set[str] = set()

    def on_start(self, msg):
        self.players[msg.match_id] = len(msg.players)

    def decide(self, decision):
        if decision.match_id not in self.searched:
            self.searched.add(decision.match_id)
            hand = sorted(decision.view["hand"])
            players = self.players.get(decision.match_id, 0)
            found = None
            for seed, rnd, index, match_seed in candidates():
                game = new_game(decision.game, players, match_seed, {})
                if sorted(game.view(decision.seat)["hand"]) == hand:
                    others = [game.view(s)["hand"] for s in range(players) if s != decision.seat]
                    found = {"league_seed": seed, "round": rnd, "index": index, "match_seed": match_seed,
                             "others": others}
                    break
            LOG.write(json.dumps({"match": decision.match_id, "seat": decision.seat, "found": found}) + "\n")
            LOG.flush()
        return random.randrange(len(decision))


if __name__ == "__main__":
    run(Oracle())
