"""A random SDK bot that writes one line for each match_start (with its time control) and
match_end it reads (to its log), one when the referee ends its stream, and one when it is
stopped by SIGTERM instead."""
import random
import signal
import sys

from cardarena.client import run


class ReportsEnd:
    def decide(self, decision):
        return random.randrange(len(decision))

    def on_start(self, match_start):
        tc = match_start.time_control
        print(f"match_start {match_start.match_id} grace {tc.grace_seconds:g} max_reconnects {tc.max_reconnects}",
              flush=True)

    def on_end(self, match_end):
        places = " ".join(str(r.place) for r in match_end.results)
        print(f"match_end {match_end.match_id} {match_end.status} places {places}", flush=True)


def stopped(signum, frame):
    print("stopped by SIGTERM", flush=True)
    sys.exit(143)


signal.signal(signal.SIGTERM, stopped)
run(ReportsEnd())
print("the referee ended the stream", flush=True)
