"""A bot for the arena's tests (test_ladder.py): its first CRASHES runs each play three decisions
and die without a word (os._exit); every later run (``cardarena bot connect`` starts it again)
plays at random. Usage: ``crashing_bot.py RUNS_FILE CRASHES``; RUNS_FILE counts the runs."""
import os
import random
import sys
from pathlib import Path

from cardarena.client import run

runs_file, crashes = Path(sys.argv[1]), int(sys.argv[2])
runs = len(runs_file.read_text().splitlines()) if runs_file.exists() else 0
with runs_file.open("a") as f:
    f.write("run\n")
crash = runs < crashes
decided = 0


def decide(decision):
    global decided
    decided += 1
    if crash and decided > 3:
        os._exit(3)
    return random.randrange(len(decision))


if __name__ == "__main__":
    run(decide)
