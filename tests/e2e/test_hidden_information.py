"""No card of another seat's hand ever reaches a bot before it is revealed (DESIGN.md, ANCHORS 8).

A spy bot process records every message the referee sends it over gRPC during a real league.
The test then rebuilds, from the ledger's omniscient log, every seat's hand and the turn each
card was revealed, and checks each decision the spy received: its view and its legal actions
name no card that another seat still held unrevealed; and the events it was sent are exactly the
events of the log that its seat may see (the private deals of other seats never among them).
"""
from __future__ import annotations

import json
from collections import defaultdict

from e2ekit import ROOT, cardarena, example

from cardarena.ratings import Ledger


def test_spy_bot_never_sees_another_seats_unrevealed_cards(workdir, ledger_url):
    db = ledger_url()
    spy_log = workdir / "spy.jsonl"
    bots = ["--bot", f"spy=python {ROOT / 'tests' / 'bots' / 'spy_bot.py'}",
            "--bot", f"r1={example('random_bot.py')}", "--bot", f"r2={example('random_bot.py')}",
            "--bot", f"r3={example('heuristic_bot.py')}"]
    r = cardarena("league", "run", "--game", "sixth-card", *bots, "--seats", "4", "--seed", "5",
                  "--db", db, "--log-dir", str(workdir / "logs"), cwd=workdir, env={"SPY_LOG": str(spy_log)})
    assert r.returncode == 0, r.stderr

    received = [json.loads(line) for line in spy_log.read_text(encoding="utf-8").splitlines()]
    decisions = defaultdict(list)
    ends = {}
    for rec in received:
        if rec["kind"] == "decision":
            decisions[rec["msg"]["matchId"]].append(rec["msg"])
        elif rec["kind"] == "match_end":
            ends[rec["msg"]["matchId"]] = rec["msg"]
        elif rec["kind"] == "match_start":
            assert "seed" not in json.dumps(rec["msg"]), "the seed would reveal the deal"

    led = Ledger(db)
    (league,) = led.leagues()
    checked = 0
    for m in led.league_matches(league.id):
        detail = led.match(m.id)
        spy_seat = detail.bots.index("spy")
        hands = {}  # (round, seat) -> dealt hand
        revealed_at = {}  # (round, seat, card) -> turn
        for ev in detail.events:
            data = ev["data"]
            if data["type"] == "deal" and "hand" in data:
                hands[(data["round"], data["seat"])] = data["hand"]
            if data["type"] == "reveal":
                for c in data["cards"]:
                    revealed_at[(data["round"], c["seat"], c["card"])] = data["turn"]
        mine = decisions[str(m.id)]
        assert mine, "the spy played this match"
        for d in mine:
            view = d["sixthCard"]
            rnd, turn, phase = view["round"], view["turn"], view["phase"]
            forbidden = set()
            for seat in range(len(detail.bots)):
                if seat == spy_seat:
                    continue
                for card in hands[(rnd, seat)]:
                    t = revealed_at.get((rnd, seat, card), 99)
                    if t > turn or (t == turn and phase == "choose"):
                        forbidden.add(card)
            shown = json.dumps([view, d["actions"]], ensure_ascii=False)
            leaked = sorted(c for c in forbidden if f'"{c}"' in shown)
            assert not leaked, f"match {m.id} round {rnd} turn {turn}: the spy saw {leaked}"
            checked += 1
        # the events the spy was sent are exactly those its seat may see, in order
        sent = [e["type"] for d in mine for e in d.get("events", [])]
        sent += [e["type"] for e in ends[str(m.id)].get("events", [])]
        visible = [ev["data"]["type"] for ev in detail.events
                   if ev["seats"] is None or spy_seat in ev["seats"]]
        assert sent == visible
        private_deals = [ev for ev in detail.events if ev["seats"] is not None and spy_seat not in ev["seats"]]
        assert private_deals, "other seats had private events the spy must not get"
    assert checked > 100
