"""The ledger recorder: a child process that records finished matches for a league.

``play_league`` hands each claim, lease renewal and finished match to this process over a pipe
and goes on; the recorder writes it with the same :class:`Ledger` methods
(:meth:`Ledger.record_match` and the others) and answers, so the referee's event loop neither
waits for the database nor shares its GIL with it. Frames, both ways: a 4-byte big-endian
length, a tag byte (``m``: marshal, ``p``: pickle) and the payload; a request is
``(request_id, kind, match_id, keyword arguments)``, an answer ``(request_id, "ok" | "ledger" |
"error", value)``.

The rules: every request is one transaction, and the requests are served in order, so a match
is recorded whole or not at all, and counted once. At the end of its input (the league is over,
or the referee's process is gone) the recorder finishes every whole request it has read, then
exits. A database server that cannot be reached (:class:`LedgerUnreachable`) does not end the
league: the request is tried again for up to :data:`RETRY_FOR` seconds.

Run as ``python -m cardarena.ratings.recorder`` with the ledger's URL in
``CARDARENA_RECORDER_DB`` (not on the command line: it may hold a password).

Design notes and measurements: docs/ledger.md (recorder).
"""
from __future__ import annotations

import marshal
import os
import pickle
import signal
import sys
import time
from typing import Any, BinaryIO

#: How long a request is tried again while the database cannot be reached, and how often.
RETRY_FOR = 120.0
RETRY_EVERY = 0.5


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


def carry_out(ledger, kind: str, match_id: int, kwargs: dict, claimed: set[int]) -> Any:
    """One request (module docstring) on ``ledger``; its answer's value. ``claimed``: the
    matches claimed through these requests and not yet recorded (the only ones ``release``
    puts back). The league's writer thread (an in-memory ledger) calls it too."""
    if kind == "claim":
        value = ledger.claim_match(match_id, **kwargs)
        if value:
            claimed.add(match_id)
        return value
    if kind == "claim_next":
        m = ledger.claim_next(match_id, **kwargs)
        if m is None:
            return None
        claimed.add(m.id)
        return (m.id, m.seed, list(m.bots), m.deal_salt, m.duplicate_set)
    if kind == "release":
        if match_id in claimed:
            ledger.release_match(match_id, **kwargs)
            claimed.discard(match_id)
        return None
    if kind == "record":
        t = time.perf_counter()
        try:
            ledger.record_match(match_id, **kwargs)
        finally:
            claimed.discard(match_id)
        return time.perf_counter() - t
    if kind == "fail":
        claimed.discard(match_id)
        return ledger.fail_match(match_id, **kwargs)
    if kind == "renew":
        return ledger.renew_leases(**kwargs)
    if kind == "others":
        return ledger.others_playing(match_id, **kwargs)
    if kind == "unplayed":
        return ledger.release_unplayed(match_id, **kwargs)
    if kind == "rest_of_set_finished":
        return ledger.rest_of_set_finished(match_id)
    raise ValueError(f"unknown request {kind!r}")


def retrying(call, say=lambda line: print(line, file=sys.stderr, flush=True)):
    """``call()``, tried again while the database cannot be reached (module docstring)."""
    from .ledger import LedgerUnreachable

    deadline, failing = None, False
    while True:
        try:
            value = call()
        except LedgerUnreachable as e:
            now = time.monotonic()
            deadline = deadline or now + RETRY_FOR
            if now >= deadline:
                raise
            if not failing:
                say(f"cardarena recorder: {e}; trying again for up to {RETRY_FOR:g} s")
                failing = True
            time.sleep(RETRY_EVERY)
            continue
        if failing:
            say("cardarena recorder: the ledger is reached again; going on")
        return value


def serve(ledger, requests: BinaryIO, answers: BinaryIO) -> int:
    """Carry out every request read from ``requests``; returns how many matches were recorded."""
    from .ledger import LedgerError

    recorded = 0
    claimed: set[int] = set()
    while (body := read_frame(requests)) is not None:
        request_id, kind, match_id, kwargs = decode(body)
        try:
            value = retrying(lambda: carry_out(ledger, kind, match_id, kwargs, claimed))
            recorded += kind == "record"
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
