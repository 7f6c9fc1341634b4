#!/usr/bin/env python3
"""A random bot that writes every message the referee sends it to $SPY_LOG (JSON lines).

Used by the hidden-information test: the test reads everything this bot was ever sent and
checks that no card of another seat's hand reached it before that card was revealed.
"""
import json
import os
import random

from google.protobuf import json_format

from cardarena.client import run

LOG = open(os.environ["SPY_LOG"], "a", encoding="utf-8")


class Spy:
    def _write(self, kind, msg):
        LOG.write(json.dumps({"kind": kind, "msg": json_format.MessageToDict(msg)}, ensure_ascii=False) + "\n")
        LOG.flush()

    def decide(self, decision):
        self._write("decision", decision.raw)
        return random.randrange(len(decision.actions))

    def on_start(self, msg):
        self._write("match_start", msg)

    def on_end(self, msg):
        self._write("match_end", msg)

    def on_notice(self, msg):
        self._write("notice", msg)


if __name__ == "__main__":
    run(Spy())
