"""The arena's deals, end to end: a real `cardarena serve --ladder` and two bots that write every
message they get (tests/bots/spy_bot.py, through `cardarena bot connect`). Each ladder match's
bots got its commitment before their first decision and its seed and salt at its end; the SHA-256
of the documented string, computed here, is that commitment, as the ledger and `match verify` say.
"""
from __future__ import annotations

import hashlib
import json
import sys

from arenakit import ROOT, Bots, Ladders, Served, wait_for

SPY = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'spy_bot.py'}"


def test_every_ladder_match_is_dealt_as_committed(tmp_path, new_ledger):
    served = Served(tmp_path, new_ledger(tmp_path, "arena"), ["--ladder", "sixth-card", "--move-time", "20"])
    bots = Bots(served)
    logs = {name: tmp_path / f"{name}.jsonl" for name in ("spy-a", "spy-b")}
    try:
        bots.add(*logs)
        served.start()
        for name, path in logs.items():
            bots.connect(name, SPY, env={"SPY_LOG": str(path)})
        ladders = Ladders(served.db)
        wait_for("two finished ladder matches", lambda: len(ladders.matches("finished")) >= 2,
                 timeout=240, explain=ladders.describe)
        assert served.stop() == 143  # SIGTERM
    finally:
        bots.close()
        served.close()
    ledger = Ladders(served.db).ledger
    finished = {str(m.id): ledger.match(m.id) for m in ledger.matches(kind="ladder", status="finished", limit=None)}
    checked = 0
    for path in logs.values():
        started, ended = {}, {}
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            msg = entry["msg"]
            if entry["kind"] == "match_start":
                started[msg["matchId"]] = msg.get("dealCommitment", "")
            elif entry["kind"] == "decision":
                assert msg["matchId"] in started, "a decision came before its match's commitment"
            elif entry["kind"] == "match_end" and msg["matchId"] in finished:
                ended[msg["matchId"]] = (msg.get("seed", ""), msg.get("dealSalt", ""))
        for match_id, (seed, salt) in ended.items():
            m = finished[match_id]
            text = f"cardarena-deal:v1:sixth-card:{match_id}:{seed}:{salt}"
            assert hashlib.sha256(text.encode()).hexdigest() == started[match_id] == m.deal_commitment
            assert (int(seed), salt) == (m.seed, m.deal_salt)
            checked += 1
    assert checked >= 2 * 2  # both bots, every finished match they played
    verify = served.cli("match", "verify", next(iter(finished)))
    assert verify.returncode == 0 and "dealt as committed" in verify.stdout, verify.stdout + verify.stderr
