"""The web's reads made cheap, with httpx against uvicorn: a bot's conduct and
latency read from its summary (ratings/summary.py) are what all its seats give, seat by seat
(every match's details read whole, the way they were read before); a bot's answer is its detail
encoded, byte for byte, its match seconds kept until it finishes another match; a finished match's
answer sends its log as the ledger stores it, the same JSON as its detail encoded; a finished
match's answer and page are kept, byte for byte what a fresh read gives, and dropped least
recently used past their budget; an unfinished match's never are."""
from __future__ import annotations

import json
import random
from collections import Counter

import httpx
import pytest
from sqlalchemy import select, text

from cardarena.ratings import Ledger
from cardarena.ratings.models import Bot, Match, Seat
from cardarena.server import latency
from cardarena.server.web import api
from cardarena.server.web.app import create_app

GAME = "sixth-card"


def from_every_seat(ledger: Ledger, name: str) -> dict:
    """A bot's faults, kinds, forfeits and latency summed over all its finished seats, each
    match's details read whole (what the bot page did before it had a summary)."""
    by_kind, faults, forfeits, hists = Counter(), 0, 0, {}
    with ledger.engine.connect() as c:
        seats = c.execute(select(Match.game, Seat.seat, Seat.faults, Seat.forfeited, Match.result_details)
                          .join(Match, Match.id == Seat.match_id).join(Bot, Bot.id == Seat.bot_id)
                          .where(Bot.name == name, Match.status == "finished")).all()
    for game, seat, n, forfeited, details in seats:
        faults += n or 0
        forfeits += bool(forfeited)
        if n:
            by_kind.update(f["kind"] for f in details.get("faults", ()) if f["seat"] == seat and f["kind"] != "forfeit")
        hist = (details.get("latency") or [None] * (seat + 1))[seat]
        hists.setdefault(game, []).append(hist)

    def said(hs):
        counts = latency.merge(hs)
        kept = sum(h is not None for h in hs)
        return {"decisions": sum(counts.values()), "p50": latency.quantile(counts, 0.5),
                "p99": latency.quantile(counts, 0.99), "matches": kept, "not_recorded": len(hs) - kept}
    return {"faults": faults, "faults_by_kind": dict(sorted(by_kind.items())), "forfeits": forfeits,
            "latency": {"overall": said([h for hs in hists.values() for h in hs]),
                        "by_game": {g: said(hs) for g, hs in sorted(hists.items())}}}


@pytest.fixture
def busy(ledger_url):
    """A ledger of random matches of two games: faults of every kind, forfeits, latency recorded
    or not, self-play; and one match still running."""
    led = Ledger(ledger_url("busy"))
    rng = random.Random(11)
    names = [f"b{i}" for i in range(5)]
    for name in names:
        led.add_bot(name)
    for k in range(80):
        n = rng.randint(2, 4)
        bots = rng.sample(names, n) if rng.random() < 0.9 else [rng.choice(names)] * n
        faults = [rng.choice([0, 0, 1, 3]) for _ in range(n)]
        details = {"faults": [{"seat": s, "step": j, "kind": rng.choice(["timeout", "illegal", "forfeit"]),
                               "detail": ""} for s in range(n) for j in range(faults[s])]}
        if k > 20:
            details["latency"] = [latency.histogram(rng.lognormvariate(-6, 1) for _ in range(rng.randint(0, 30)))
                                  for _ in range(n)]
        match_id = led.create_match(rng.choice([GAME, "scout"]), k, {}, bots)
        led.record_match(match_id, places=[rng.randint(1, n) for _ in range(n)], scores=[0.0] * n, faults=faults,
                         forfeited=[rng.random() < 0.1 for _ in range(n)], steps=[{0: 0}], events=[],
                         result_details=details, duration_s=rng.random())
    running = led.create_match(GAME, 99, {}, names[:3])
    led.claim_match(running)
    yield led, running
    led.close()


def test_a_bots_conduct_and_latency_from_its_summary_are_what_its_seats_give(busy, serve):
    led, _ = busy
    with serve(create_app(led)) as url, httpx.Client(base_url=url) as client:
        for name in ("b0", "b1", "b2", "b3", "b4"):
            got = client.get(f"/api/v1/bots/{name}").json()
            want = from_every_seat(led, name)
            assert {k: got[k] for k in want} == want
            assert got["latency"]["overall"]["not_recorded"] > 0 and got["faults_by_kind"]
            page = client.get(f"/bots/{name}").text
            assert f'<tr><th>faults</th><td class="num">{want["faults"]}</td></tr>' in page


def test_a_finished_matchs_answer_and_page_are_kept_and_an_unfinished_ones_never(busy, serve, monkeypatch):
    led, running = busy
    monkeypatch.setattr(api, "_answers", type(api._answers)())  # this test's own cache
    with serve(create_app(led)) as url, httpx.Client(base_url=url) as client:
        first = [client.get(u).content for u in ("/api/v1/matches/5", "/matches/5")]
        assert set(api._answers[led]) == {("api", 5), ("page", 5)}
        with led.engine.begin() as c:  # not what a ledger does: shows the answers are not read again
            c.execute(text("UPDATE seat SET score = 42 WHERE match_id = 5"))
        kept = [client.get(u) for u in ("/api/v1/matches/5", "/matches/5")]
        assert [r.content for r in kept] == first
        assert kept[0].headers["content-type"] == "application/json"
        assert kept[1].headers["content-type"] == "text/html; charset=utf-8"
        api._answers[led].clear()
        fresh = client.get("/api/v1/matches/5").json()
        assert {s["score"] for s in fresh["seats"]} == {42}  # a fresh read, byte for byte as before but the score
        assert client.get("/api/v1/matches/5").content == client.get("/api/v1/matches/5").content

        before = client.get(f"/api/v1/matches/{running}").json()
        client.get(f"/matches/{running}")
        assert before["status"] == "running" and not any(k[1] == running for k in api._answers[led])
        led.record_match(running, places=[1, 2, 3], scores=[3.0, 2.0, 1.0], faults=[0] * 3,
                         forfeited=[False] * 3, steps=[], events=[])
        after = client.get(f"/api/v1/matches/{running}").json()
        assert after["status"] == "finished" and [s["place"] for s in after["seats"]] == [1, 2, 3]

        sizes = {m: len(client.get(f"/api/v1/matches/{m}").content) for m in (7, 8)}
        api._answers[led].clear()
        monkeypatch.setattr(api, "ANSWERS_KEPT", sizes[7] + sizes[8])
        for match_id in (7, 8, 7, 9):  # 8 is then the least recently used
            client.get(f"/api/v1/matches/{match_id}")
        assert ("api", 9) in api._answers[led] and ("api", 8) not in api._answers[led]
        assert sum(map(len, api._answers[led].values())) <= sizes[7] + sizes[8]


def test_a_bots_answer_is_its_detail_encoded_and_its_match_seconds_are_kept_until_it_plays_again(busy, serve,
                                                                                               monkeypatch):
    """The answer splices each rating line's history encoded once (api.Line) into the
    detail's JSON, byte for byte what encoding the detail whole gives; ``match_seconds`` are the
    exact quantiles of the bot's durations, kept under its finished seats, read again once it
    has finished another match."""
    led, _ = busy
    monkeypatch.setattr(api, "_seconds", api.KeptByCount(api.SECONDS_KEPT))  # this test's own
    with serve(create_app(led)) as url, httpx.Client(base_url=url) as client:
        for name in ("b0", "b1", "b2"):
            r = client.get(f"/api/v1/bots/{name}")
            assert r.headers["content-type"] == "application/json"
            assert r.content == api.answer(api.bot_detail(led, name)).body
            assert any(len(rating["history"]) > 1 for rating in r.json()["ratings"])
        with led.engine.connect() as c:
            durations = sorted(c.execute(text(
                "SELECT m.duration_s FROM seat s JOIN match m ON m.id = s.match_id JOIN bot b ON b.id = s.bot_id "
                "WHERE b.name = 'b0' AND m.status = 'finished'")).scalars())
        said = client.get("/api/v1/bots/b0").json()["match_seconds"]
        assert said == {"matches": len(durations), "p50": api.percentile(durations, 50),
                        "p99": api.percentile(durations, 99)}
        with led.engine.begin() as c:  # not what a ledger does: shows the durations are not read again
            c.execute(text("UPDATE match SET duration_s = 1000 WHERE status = 'finished'"))
        assert client.get("/api/v1/bots/b0").json()["match_seconds"] == said
        match_id = led.create_match(GAME, 7, {}, ["b0", "b1"])
        led.record_match(match_id, places=[1, 2], scores=[1.0, 0.0], faults=[0, 0], forfeited=[False, False],
                         steps=[{0: 0}], events=[], duration_s=1000.0)
        again = client.get("/api/v1/bots/b0").json()["match_seconds"]
        assert again == {"matches": len(durations) + 1, "p50": 1000.0, "p99": 1000.0}


def test_a_finished_matchs_answer_sends_its_log_as_the_ledger_stores_it(client, ledger, monkeypatch):
    """The steps and events of a finished match's answer are the ledger's stored JSON
    cut out (``Ledger.match_log_text``: ♦ stays \\u2666), never decoded and encoded again; the
    answer is the same JSON, its keys in the same order, as the match's detail encoded whole."""
    monkeypatch.setattr(api, "_answers", type(api._answers)())  # read afresh
    r = client.get("/api/v1/matches/1")
    detail, steps, events = ledger.match_log_text(1)
    assert b'"steps":' + steps + b',"events":' + events + b"," in r.content
    assert rb"\u26" in events  # the cards' suits, escaped as stored
    want = json.loads(api.answer(api.match_dict(detail)).body)
    assert r.json() == want and list(r.json()) == list(want)
    assert len(r.json()["events"]) == len(detail.events) > 0 and r.json()["play_by_play"]
