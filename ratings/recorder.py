"""The ledger recorder: a child process that records finished matches for a league.

Recording a match (its rows, its event log packed, TrueSkill, one transaction) is a few
milliseconds of Python and SQLite. Done in a thread of the referee's process, it competes with
the referee for the GIL, and every handover costs the event loop more than the work itself;
done on the event loop, it stalls every match for that long. So ``play_league`` hands each
finished match to this process over a pipe and goes on; the recorder writes it with the same
:meth:`Ledger.record_match` and answers.

Frames, both ways: a 4-byte big-endian length, then a tag byte (``m``: marshal, ``p``: pickle,
for anything marshal cannot carry) and the payload.

* request: ``(request_id, kind, match_id, keyword arguments)``, kind one of
  ``"claim"`` (:meth:`Ledger.claim_match`), ``"release"`` (:meth:`Ledger.release_match`, only
  for a match this recorder claimed and has not recorded: what a league stopped between a
  claim and its answer sends) and ``"record"`` (:meth:`Ledger.record_match`);
* answer:  ``(request_id, "ok", value)`` (the claim's result; a record's seconds),
  ``(request_id, "ledger", message)`` for a :class:`LedgerError` (a match recorded meanwhile by
  another process, say), or ``(request_id, "error", message)``.

The league's claims and records all go through this one process, in order, so they never wait
for each other's SQLite lock.

At the end of its input (the league is over, or the referee's process is gone) the recorder
finishes every whole request it has read, then exits: a match is recorded whole or not at all.

Run as ``python -m cardarena.ratings.recorder`` with the ledger's URL in
``CARDARENA_RECORDER_DB`` (not on the command line: it may hold a password).
"""
from __future__ import annotations

import marshal
import os
import pickle
import signal
import sys
import time
from typing import Any, BinaryIO


def encode(value: Any) -> bytes:
    try:
        body = b"m" + marshal.dumps(value)
    except ValueError:  # a type marshal does not know (the log is JSON-able, so rarely)
        body = b"p" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(body).to_bytes(4, "big") + body


def decode(body: bytes) -> Any:
    if body[:1] == b"m":
        return marshal.loads(body[1:])
    if body[:1] == b"p":
        return pickle.loads(body[1:])
    raise ValueError(f"not a recorder frame (tag {body[:1]!r})")


def read_frame(stream: BinaryIO) -> bytes | None:
    """One frame's body from a blocking stream; None at the end (or at a cut-off frame)."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    n = int.from_bytes(head, "big")
    body = stream.read(n)
    return body if len(body) == n else None


def serve(ledger, requests: BinaryIO, answers: BinaryIO) -> int:
    """Carry out every request read from ``requests``; returns how many matches were recorded."""
    from .ledger import LedgerError

    recorded = 0
    claimed: set[int] = set()
    while (body := read_frame(requests)) is not None:
        request_id, kind, match_id, kwargs = decode(body)
        t = time.perf_counter()
        try:
            if kind == "claim":
                value = ledger.claim_match(match_id)
                if value:
                    claimed.add(match_id)
            elif kind == "release":
                if match_id in claimed:
                    ledger.release_match(match_id)
                    claimed.discard(match_id)
                value = None
            elif kind == "record":
                ledger.record_match(match_id, **kwargs)
                claimed.discard(match_id)
                recorded += 1
                value = time.perf_counter() - t
            else:
                raise ValueError(f"unknown request {kind!r}")
            answer = (request_id, "ok", value)
        except LedgerError as e:
            answer = (request_id, "ledger", str(e))
        except Exception as e:  # reported to the league, which fails loudly
            answer = (request_id, "error", f"{type(e).__name__}: {e}")
        try:
            answers.write(encode(answer))
            answers.flush()
        except BrokenPipeError:  # the referee is gone; go on recording what was sent
            pass
    return recorded


def main() -> int:
    url = os.environ.get("CARDARENA_RECORDER_DB", "")
    if not url:
        print("cardarena recorder: set CARDARENA_RECORDER_DB to the ledger's URL", file=sys.stderr)
        return 2
    # Ctrl-C in a terminal reaches the whole process group: the league puts its unfinished
    # matches back and closes the pipe; the recorder finishes what it was sent, then ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .ledger import Ledger

    serve(Ledger(url), sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
