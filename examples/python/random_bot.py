#!/usr/bin/env python3
"""A bot that plays any cardarena game by choosing a legal action at random.

Run it against a referee:  CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... python random_bot.py
"""
import random

from cardarena.client import run


def decide(decision):
    return random.randrange(len(decision))  # the number of legal actions


if __name__ == "__main__":
    run(decide)
