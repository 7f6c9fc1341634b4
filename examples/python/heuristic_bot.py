#!/usr/bin/env python3
"""A bot that plays every cardarena game with the heuristic strategy of that game.

The strategies live in cardarena.client.strategies (one module per game); each reads only the
decision's view and actions, so this file is all the glue a bot needs.
"""
from cardarena.client import run
from cardarena.client.strategies import for_game


def decide(decision):
    return for_game(decision.game)(decision.view, decision.actions)


if __name__ == "__main__":
    run(decide)
