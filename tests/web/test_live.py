"""Live matches as a spectator sees them, against a real referee and the web
app in one event loop (tests/web/livekit.py) with real bot processes playing over gRPC.

Every stream and page here asks ``?pace=0``, each step as it is played (test_live_pace.py plays
matches at a pace). The stream of a whole Three Thirteen match (one deck for two seats: every
card's text names one card, jokers apart): every frame equals the spectator view rebuilt at its
step by replaying the recorded match, with that step's public events in words and the seats to
act; no frame's bytes hold a card that is in a hand at its step and was not seen by the whole table (R5, R7: the cards
taken from the discard pile are public); the ``end`` comes with the recorded places and the
stream closes. /api/v1/live lists the match while it runs (with its league) and not after; a
finished match's stream is one ``end``; an unknown match is a 404, and so is every live answer of
an app without a referee (`cardarena web`), in words. A watcher that fails is dropped and the
match goes on; a watcher that never reads holds at most ``QUEUED`` frames.
"""
from __future__ import annotations

import asyncio
import re

import pytest

pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")

from cardarena.server.games import new_game  # noqa: E402
from cardarena.server.replay import Replay  # noqa: E402
from cardarena.server.web import live  # noqa: E402

from livekit import LiveSite, parse_events  # noqa: E402

CARD = re.compile(r"(?<![\w/])(?:10|[2-9AJQK])[♣♦♥♠](?![\w/])")  # a card's text, jokers left out


@pytest.fixture
def site(tmp_path):
    s = LiveSite(tmp_path).start()
    yield s
    s.stop()


def rebuilt(m) -> list[tuple[object, dict]]:
    """The recorded match at every step 0…len(steps): (the game there, the frame it must send)."""
    replay = Replay(m.game, len(m.bots), m.seed, m.options, m.steps)
    game = new_game(m.game, len(m.bots), m.seed, m.options)
    out = []
    for k in range(len(m.steps) + 1):
        if k:
            chosen = {int(s): game.legal_actions(int(s))[i] for s, i in m.steps[k - 1].items()}
            game.apply(chosen)
        over = game.is_over()
        out.append((game.copy(), {
            "step": k, "over": over, "to_act": [] if over else list(game.to_act()),
            "view": game.spectator_view(),
            "events": [game.event_text(ev.data) for ev in replay.events[k] if ev.seats is None]}))
    return out


def hidden_cards(game) -> set[str]:
    """The cards in hands that the whole table has not seen (Three Thirteen: all but those taken
    from the discard pile, and those put on the pile this round: after a stock rebuild (R9) a
    seat may draw a card the table saw discarded, still listed in the round's ``discards``
    without who holds it now)."""
    state = game.state_json()
    view = game.spectator_view()
    public = {c for s in view["seats"] for c in s["taken"]} | set(view["discards"])
    return {c for hand in state["hands"] for c in hand} - public


def test_the_stream_of_a_whole_match_is_the_spectator_view_at_every_step_and_no_hidden_card(site):
    """The spectator stream of a match, checked frame by frame on the bytes received."""
    played = site.league("three-thirteen", ["ann", "ben"], {"rounds": 1}, think=0.03)
    entry = site.wait_listed()
    assert entry["game"] == "three-thirteen"
    assert sorted(s["bot"] for s in entry["seats"]) == ["ann", "ben"] and entry["started"]
    r, events = site.read_stream(f"/api/v1/matches/{entry['id']}/live?pace=0")
    assert r.headers["content-type"].startswith("text/event-stream")
    league_id = played.result(60)
    assert entry["league"] == league_id
    m = site.ledger.match(int(entry["id"]))
    assert m.status == "finished"

    frames = [e for e in events if e.event == "frame"]
    assert events[-1].event == "end" and [e.event for e in events].count("end") == 1
    steps = [f.data["step"] for f in frames]
    assert steps == list(range(steps[0], len(m.steps) + 1)), "a frame for every step, in order, to the end"
    assert frames[-1].data["over"]
    truth = rebuilt(m)
    shown_cards = 0
    for f in frames:
        game, expected = truth[f.data["step"]]
        assert {k: f.data[k] for k in expected} == expected, f"step {f.data['step']}"
        assert f.data["faults"] == [] and f.id == str(f.data["step"])
        if not expected["over"]:  # at the end every hand is shown (round_end)
            sent = set(CARD.findall(f.raw.decode("utf-8")))
            assert not sent & hidden_cards(game), f"step {f.data['step']} sent a hidden card"
            shown_cards += len(sent)
    assert shown_cards, "the frames show the public cards (the discard pile, the melds)"

    end = events[-1].data
    assert end["status"] == "finished" and end["places"] == list(m.places) and end["steps"] == len(m.steps)
    assert end["match_page"] == f"/matches/{m.id}" and end["replay_page"] == f"/matches/{m.id}/replay"
    assert site.get("/api/v1/live").json() == [], "an ended match is not listed"
    r, again = site.read_stream(f"/api/v1/matches/{m.id}/live?pace=0")
    assert [e.event for e in again] == ["end"] and again[0].data["places"] == list(m.places)


def test_the_page_is_drawn_at_the_current_step_and_links_to_the_match_at_the_end(site):
    played = site.league("unsorted", ["ann", "ben", "cy"], {"max_deals": 1}, think=0.05)
    entry = site.wait_listed()
    page = site.get(f"/matches/{entry['id']}/live?pace=0")
    assert page.status_code == 200
    assert '<noscript><meta http-equiv="refresh"' in page.text and "/static/live.js" in page.text
    assert 'id="live-step"' in page.text and f"seat 2 · {entry['seats'][2]['bot']}" in page.text
    fragment = site.get(f"/matches/{entry['id']}/live/table?pace=0")
    assert fragment.text.lstrip().startswith('<div id="live-step"')
    played.result(60)
    ended = site.get(f"/matches/{entry['id']}/live?pace=0").text
    assert f'href="/matches/{entry["id"]}/replay"' in ended and "The match has ended" in ended
    assert "/static/live.js" not in ended and "refresh" not in ended


def test_unknown_matches_and_an_app_without_referee_are_404_in_words(site, serve):
    """`cardarena web` reads a ledger only: its live answers say where live matches are shown."""
    assert site.get("/api/v1/matches/999/live").status_code == 404
    assert site.get("/api/v1/matches/999/live").json()["detail"] == "no match 999"
    assert site.get("/matches/999/live").status_code == 404
    assert site.get(f"/api/v1/matches/{2 ** 70}/live").status_code == 404  # not an id the ledger can hold
    assert site.get("/api/v1/live").json() == []
    from cardarena.server.web.app import create_app
    with serve(create_app(site.ledger)) as url:
        import httpx
        for path in ("/api/v1/live", "/api/v1/matches/1/live"):
            r = httpx.get(url + path)
            assert r.status_code == 404 and "cardarena serve" in r.json()["detail"]
        r = httpx.get(url + "/matches/1/live")
        assert r.status_code == 404 and "cardarena serve" in r.text


def test_heartbeats_and_a_failing_watcher_does_not_stop_the_match(site, monkeypatch):
    monkeypatch.setattr(live, "HEARTBEAT", 0.05)

    def broken(kind, run, events):
        raise RuntimeError("a broken watcher")
    site.loop.call_soon_threadsafe(site.referee.watchers.add, broken)
    played = site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0.12)
    entry = site.wait_listed()
    _, events = site.read_stream(f"/api/v1/matches/{entry['id']}/live?pace=0")
    played.result(60)
    kinds = [e.event for e in events]
    assert "heartbeat" in kinds and kinds[-1] == "end" and events[-1].data["status"] == "finished"
    assert broken not in site.referee.watchers


def test_a_watcher_that_never_reads_keeps_the_latest_frames_only():
    async def fill():
        w = live.Watcher()
        feed = live.Feed({w})
        for k in range(live.QUEUED + 10):
            feed.push({"step": k})
        return w
    w = asyncio.run(fill())
    assert len(w.queue) == live.QUEUED
    assert [parse_events(raw)[0].data["step"] for _, raw in (w.queue[0], w.queue[-1])] == [10, live.QUEUED + 9]


def test_the_home_page_section_lists_what_is_playing_now():
    from cardarena.server.web.app import templates
    html = templates.get_template("home.html").render(
        games=[], results=[], leagues=[],
        playing=[{"id": "7", "game": "unsorted", "league": 2, "step": 12, "started": "2026-01-01T10:00:00+00:00",
                  "seats": [{"seat": 0, "bot": "ann"}, {"seat": 1, "bot": "ben"}, {"seat": 2, "bot": "cy"}]}])
    assert "Playing now" in html and 'href="/matches/7/live"' in html and "step 12" in html
    assert "Playing now" not in templates.get_template("home.html").render(games=[], results=[], leagues=[], playing=[])
