"""Live matches at a pace a person can follow and behind a spectator delay, against a real
referee and the web app in one event loop (tests/web/livekit.py) with real bot processes.

A finished Three Thirteen match rebuilt from the ledger (no steps kept in memory) is played
again from the deal at the pace: every frame is the spectator view rebuilt at its step, no frame
holds a hidden card, the end comes last, and the whole takes at least the pace a step; its page
is drawn at the deal and its last step shows the result. A stream opened while a match runs
starts at the deal and plays every step to the end. Bad paces and steps are 422 in words, and
bad ``serve --live-pace`` / ``--spectator-delay`` one line and exit 2. /watch goes to a match being played, else to the latest to end, else a page says nothing is.
Behind a 60 s delay nothing of a match just played is shown; with a clock that moves a second a
step of the match, the listing, the pages, the bots' states and a stream show it as of 60 s ago
and the rest comes as that time passes; behind a real 1.5 s delay no frame comes before its
step's time + 1.5 s (less a margin for two watchers reading the clock in turn). At the end of
each, the web still watches the referee (a watcher that fails is dropped for good).
"""
from __future__ import annotations

import contextlib
import time

import httpx
import pytest

pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")

from cardarena.server.web import live  # noqa: E402
from cardarena.server.web.broadcast import Clock  # noqa: E402

from livekit import LiveSite, parse_events  # noqa: E402
from test_live import CARD, hidden_cards, rebuilt  # noqa: E402


@contextlib.contextmanager
def started(tmp_path, **app_options):
    """A LiveSite for the block; at its end the web must still be watching the referee (a
    watcher that fails is dropped for good)."""
    site = LiveSite(tmp_path, **app_options).start()
    try:
        yield site
        assert site.app.state.live in site.referee.watchers, "the web stopped watching the referee"
    finally:
        site.stop()


@pytest.fixture
def site(tmp_path):
    with started(tmp_path) as s:
        yield s


class Events:
    """A server-sent event stream read as it comes: ``next()`` is its next event, with the
    monotonic time it was read."""

    def __init__(self, url: str):
        self._cm = httpx.stream("GET", url, timeout=30)
        self.response = self._cm.__enter__()
        self._chunks = self.response.iter_raw()
        self._buffer = b""

    def next(self):
        while b"\n\n" not in self._buffer:
            chunk = next(self._chunks, None)
            assert chunk is not None, "the stream ended"
            self._buffer += chunk
        block, self._buffer = self._buffer.split(b"\n\n", 1)
        return parse_events(block + b"\n\n")[0], time.monotonic()

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def running_id(site, timeout: float = 30) -> str:
    """The id of the league's match once the ledger has it running or played (the listing may hold it back)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = site.ledger.matches(limit=1)
        if found and found[0].status in ("running", "finished"):
            return str(found[0].id)
        time.sleep(0.02)
    raise AssertionError("no match started")


def test_a_finished_match_is_played_again_from_the_deal_at_the_pace_rebuilt_from_the_ledger(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "KEPT_SOURCES", 0)  # no steps kept once a match ends: the ledger's are replayed
    with started(tmp_path) as site:
        site.league("three-thirteen", ["ann", "ben"], {"rounds": 1}, think=0).result(60)
        m = site.ledger.match(site.ledger.matches(limit=1)[0].id)
        assert m.status == "finished" and str(m.id) not in site.app.state.live.timelines
        pace, began = 0.01, time.monotonic()
        r, events = site.read_stream(f"/api/v1/matches/{m.id}/live?pace={pace}")
        took = time.monotonic() - began
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        frames = [e for e in events if e.event == "frame"]
        assert [f.data["step"] for f in frames] == list(range(len(m.steps) + 1)), "every step from the deal"
        assert [e.event for e in events if e.event != "heartbeat"] == ["frame"] * len(frames) + ["end"]
        end = events[-1].data
        assert end["places"] == list(m.places) and end["replay_page"] == f"/matches/{m.id}/replay"
        assert took >= (len(m.steps) + 1) * pace, "a frame a pace after the one before, and the end"
        truth = rebuilt(m)
        for f in frames:
            game, expected = truth[f.data["step"]]
            assert {k: f.data[k] for k in expected} == expected, f"step {f.data['step']}"
            assert f.id == str(f.data["step"]) and f.data["faults"] == []
            if not expected["over"]:
                sent = set(CARD.findall(f.raw.decode("utf-8")))
                assert not sent & hidden_cards(game), f"step {f.data['step']} sent a hidden card"

        page = site.get(f"/matches/{m.id}/live").text  # the server's pace: 1 s a step
        assert 'data-step="0"' in page and "· the deal" in page and "/static/live.js" in page
        assert "played again from the deal, 1 s a step" in page and "The match has ended" not in page
        assert f'data-stream="/api/v1/matches/{m.id}/live?pace=1&amp;step=0"' in page
        assert 'content="5; url=?pace=1&amp;step=5"' in page, "without JavaScript it goes on by reloads"
        middle = site.get(f"/matches/{m.id}/live/table?pace=1&step=3").text
        assert 'data-step="3"' in middle and 'data-over="false"' in middle and "The match has ended" not in middle
        for last in (len(m.steps), len(m.steps) + 50):
            closing = site.get(f"/matches/{m.id}/live/table?pace=1&step={last}").text
            assert f'data-step="{len(m.steps)}"' in closing and 'data-over="true"' in closing
            assert "The match has ended" in closing and f'href="/matches/{m.id}/replay"' in closing


def test_a_running_match_is_followed_from_the_deal_at_the_pace_to_its_end(site):
    played = site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0.1)
    entry = site.wait_listed()
    _, events = site.read_stream(f"/api/v1/matches/{entry['id']}/live?pace=0.1")
    played.result(60)
    m = site.ledger.match(int(entry["id"]))
    frames = [e for e in events if e.event == "frame"]
    assert [f.data["step"] for f in frames] == list(range(len(m.steps) + 1))
    assert events[-1].event == "end" and events[-1].data["places"] == list(m.places)
    truth = rebuilt(m)
    for f in frames:
        expected = truth[f.data["step"]][1]
        assert {k: f.data[k] for k in expected} == expected, f"step {f.data['step']}"


def test_bad_paces_and_steps_are_422_in_words(site):
    for query, words in (("pace=-1", "pace: Input should be greater than or equal to 0"),
                         ("pace=10.5", "pace: Input should be less than or equal to 10"),
                         ("pace=abc", "pace: Input should be a valid number"),
                         ("pace=nan", "pace: Input should be a finite number"),
                         ("pace=inf", "pace: Input should be a finite number"),
                         ("step=-1", "step: Input should be greater than or equal to 0")):
        name, message = words.split(": ", 1)
        for path in ("/api/v1/matches/1/live", "/matches/1/live/table"):
            r = site.get(f"{path}?{query}")
            assert r.status_code == 422
        r = site.get(f"/api/v1/matches/1/live?{query}")
        assert r.json()["detail"][0]["loc"] == ["query", name] and r.json()["detail"][0]["msg"].startswith(message)
        page = site.get(f"/matches/1/live?{query}")
        assert page.status_code == 422 and words in page.text
    assert site.get("/watch?pace=11").status_code == 422


def test_watch_now_goes_to_a_match_being_played_else_the_latest_to_end(site, serve, monkeypatch):
    nothing = site.get("/watch")
    assert nothing.status_code == 200 and "Nothing is being played here now" in nothing.text
    assert '<a href="/watch">Watch a match now</a>' in site.get("/").text
    played = site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0.1)
    entry = site.wait_listed()
    now = site.get("/watch?pace=0.5", follow_redirects=False)  # it runs, or has just ended: the same match
    assert now.status_code == 303 and now.headers["location"] == f"/matches/{entry['id']}/live?pace=0.5"
    played.result(60)
    after = site.get("/watch", follow_redirects=False)
    assert after.status_code == 303 and after.headers["location"] == f"/matches/{entry['id']}/live"
    shown = site.get(after.headers["location"]).text
    assert 'data-step="0"' in shown and "played again from the deal" in shown
    monkeypatch.setattr(live, "RECENT_WATCH", 0.0)  # nothing ended recently enough, here nor in the ledger
    stale = site.get("/watch")
    assert stale.status_code == 200 and "no match has ended in the last 0 minutes" in stale.text
    from cardarena.server.web.app import create_app
    with serve(create_app(site.ledger)) as url:  # `cardarena web`: a ledger only
        r = httpx.get(url + "/watch")
        assert r.status_code == 200 and "cardarena serve" in r.text
        assert 'href="/watch"' not in httpx.get(url + "/").text


def test_behind_a_60_s_delay_nothing_of_a_match_just_played_is_shown(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "HEARTBEAT", 0.05)
    with started(tmp_path, spectator_delay=60) as site:
        played = site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0.05)
        match_id = running_id(site)
        for state in ("running or played", "played"):
            if state == "played":
                played.result(60)
            assert site.get("/api/v1/live").json() == [], state
            assert "Playing now" not in site.get("/").text, state
            ann = site.get("/api/v1/bots/ann").json()
            assert ann["state"] != "playing" and ann["matches_now"] == 0, state
            for pace in ("0", "1"):
                stream = Events(f"{site.url}/api/v1/matches/{match_id}/live?pace={pace}")
                try:
                    kinds = {stream.next()[0].event for _ in range(4)}
                finally:
                    stream.close()
                assert kinds == {"heartbeat"}, (state, pace)
                page = site.get(f"/matches/{match_id}/live?pace={pace}").text
                assert "its first step is not shown yet" in page and "60 s behind the table" in page
                assert 'class="step-number"' not in page and "The match has ended" not in page
                assert "its first step is not shown yet" in site.get(
                    f"/matches/{match_id}/live/table?pace={pace}&step=5").text
        assert site.get("/watch").status_code == 200, "nothing to watch: the match is held back"


class StepClock(Clock):
    """A clock that moves a second a step of the match it follows (``steps``, the referee's
    list), and ``offset`` seconds more when the test says."""

    def __init__(self):
        self.steps: list | None = None
        self.offset = 0.0

    def now(self) -> float:
        return 1000.0 + self.offset + (len(self.steps) if self.steps is not None else 0)

    async def sleep(self, seconds: float) -> None:
        import asyncio
        await asyncio.sleep(0.01)  # the waiter looks at the clock again


def test_with_a_clock_a_second_a_step_the_match_is_shown_as_of_60_s_ago(tmp_path):
    with started(tmp_path, spectator_delay=60) as site:
        clock = site.app.state.live.clock = StepClock()
        def follow(kind, run, events):
            if kind == "start":
                clock.steps = run.match.steps
        site.loop.call_soon_threadsafe(site.referee.watchers.add, follow)
        site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0).result(60)
        m = site.ledger.match(site.ledger.matches(limit=1)[0].id)
        steps = len(m.steps)
        assert 6 < steps < 60 and site.get("/api/v1/live").json() == []  # its start is not 60 s old yet

        clock.offset = 60 + 5.5 - steps  # 60 s ago the match was between its steps 5 and 6
        (entry,) = site.get("/api/v1/live").json()
        assert entry["id"] == str(m.id) and entry["step"] == 5
        assert "Playing now" in site.get("/").text and "step 5" in site.get("/").text
        ann = site.get("/api/v1/bots/ann").json()
        assert ann["state"] == "playing" and ann["matches_now"] == 1
        assert site.get("/watch", follow_redirects=False).headers["location"] == f"/matches/{m.id}/live"
        for query, step in (("pace=0", 5), ("pace=0&step=9", 5), ("pace=0&step=2", 2), ("pace=1", 0)):
            page = site.get(f"/matches/{m.id}/live?{query}").text
            assert f'data-step="{step}"' in page and "The match has ended" not in page, query
        stream = Events(f"{site.url}/api/v1/matches/{m.id}/live?pace=0")
        try:
            first, _ = stream.next()
            assert first.event == "frame" and first.data["step"] == 5
            clock.offset = 60 + steps + 1 - steps  # 60 s ago it had ended
            rest = []
            while not rest or rest[-1].event != "end":
                rest.append(stream.next()[0])
        finally:
            stream.close()
        assert [e.data["step"] for e in rest if e.event == "frame"] == list(range(6, steps + 1))
        assert rest[-1].data["places"] == list(m.places)
        assert site.get("/api/v1/live").json() == [] and site.get("/api/v1/bots/ann").json()["matches_now"] == 0
        ended = site.get(f"/matches/{m.id}/live?pace=0").text
        assert "The match has ended" in ended and f'data-step="{steps}"' in ended


def test_behind_a_real_delay_no_frame_comes_before_its_time(tmp_path):
    delay, margin = 1.5, 0.25
    with started(tmp_path, spectator_delay=delay) as site:
        played_at: dict[int, float] = {}
        def stamp(kind, run, events):
            played_at[-1 if kind == "end" else len(run.match.steps)] = time.monotonic()
        site.loop.call_soon_threadsafe(site.referee.watchers.add, stamp)
        played = site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0.05)
        stream = Events(f"{site.url}/api/v1/matches/{running_id(site)}/live?pace=0&step=0")
        got = []
        try:
            while not got or got[-1][0].event != "end":
                got.append(stream.next())
        finally:
            stream.close()
        played.result(60)
        frames = [(e.data["step"], at) for e, at in got if e.event == "frame"]
        assert [k for k, _ in frames] == list(range(len(frames))) and frames, "from the deal, every step"
        for k, at in frames:
            assert at >= played_at[k] + delay - margin, f"step {k} came before its time"
        assert got[-1][1] >= played_at[-1] + delay - margin, "the end came before its time"


@pytest.mark.parametrize("args, words", [
    (["--live-pace", "11"], "--live-pace: must be at most 10 seconds a step"),
    (["--live-pace", "-1"], "--live-pace: cannot be negative"),
    (["--spectator-delay", "nan"], "--spectator-delay: must be a finite number of seconds"),
    (["--spectator-delay", "-5"], "--spectator-delay: cannot be negative"),
])
def test_bad_paces_and_delays_of_serve_are_one_line_and_exit_2(tmp_path, args, words):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "cardarena.server.cli", "serve", "--no-web", *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [r.stderr.strip()] and words in r.stderr
    assert not list(tmp_path.iterdir()), "no ledger made"
