"""The recorder process's loop (ratings/recorder.py), driven through in-memory pipes: requests
carried out in order, answers by request id, and ``release`` only for a match this recorder
claimed and has not recorded (what a league stopped between a claim and its answer sends)."""
from __future__ import annotations

import io

from cardarena.ratings import Ledger, MatchPlan
from cardarena.ratings.recorder import decode, encode, read_frame, serve


def _answers(raw: bytes) -> dict:
    stream, out = io.BytesIO(raw), {}
    while (body := read_frame(stream)) is not None:
        request_id, status, value = decode(body)
        out[request_id] = (status, value)
    return out


def test_requests_are_carried_out_in_order_and_release_only_undoes_its_own_claim(ledger_url):
    ledger = Ledger(ledger_url())
    for b in ("a", "b"):
        ledger.add_bot(b)
    league = ledger.create_league("sixth-card", {}, {}, [MatchPlan(0, i, i, ["a", "b"]) for i in range(3)])
    m1, m2, m3 = (m.id for m in ledger.league_matches(league))
    assert ledger.claim_match(m3)  # claimed by another process
    record = dict(scores=[3.0, 9.0], places=[1, 2], faults=[0, 0], forfeited=[False, False],
                  steps=[{0: 0, 1: 0}], events=[{"step": 0, "seats": None, "data": {"type": "deal"}}])
    requests = b"".join([
        encode((1, "claim", m1, {})), encode((2, "claim", m1, {})),  # the second finds it running
        encode((3, "claim", m2, {})), encode((4, "release", m2, {})),
        encode((5, "release", m3, {})),                              # not ours: left running
        encode((6, "claim", m2, {})), encode((7, "record", m2, record)),
        encode((8, "record", m2, record)),                           # twice: a LedgerError
        encode((9, "shuffle", m1, {})),
    ])
    out = io.BytesIO()
    assert serve(ledger, io.BytesIO(requests + b"\x00\x00"), out) == 1  # a cut-off frame ends it
    answers = _answers(out.getvalue())
    assert answers[1] == ("ok", True) and answers[2] == ("ok", False)
    assert answers[3] == ("ok", True) and answers[4] == ("ok", None) and answers[6] == ("ok", True)
    assert answers[7][0] == "ok" and answers[7][1] >= 0
    assert answers[8][0] == "ledger"
    assert answers[9] == ("error", "ValueError: unknown request 'shuffle'")
    status = {m.id: m.status for m in ledger.league_matches(league)}
    assert status == {m1: "running", m2: "finished", m3: "running"}
    assert ledger.check() == []


def test_a_frame_carries_what_marshal_cannot():
    from fractions import Fraction

    frame = encode((1, "record", 2, {"x": Fraction(1, 3)}))
    assert frame[4:5] == b"p" and decode(read_frame(io.BytesIO(frame))) == (1, "record", 2, {"x": Fraction(1, 3)})
    assert encode((1, "claim", 2, {}))[4:5] == b"m"
