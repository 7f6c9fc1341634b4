"""The arena on the web pages: an app with a real Arena (server/ladder.py)
over a real referee and ledger in one event loop, as `cardarena serve --ladder` hosts them, with
real bot processes (tests/bots/slow_bot.py through the SDK) playing a Sixth Card ladder over gRPC.

What is checked: the home page lists the ladders; a leaderboard of a ladder game moves in
headless Chromium as matches finish, without a reload (static/board.js), and works without
JavaScript; each bot's state (playing, idle, away, paused, benched until … and why) and owner on
its page, in the leaderboard rows and in /api/v1/bots/{name}; matches listed by kind (the API's
422 for another kind); the match page names its kind and, while it runs, links to its live page;
under `cardarena web` (no arena) only the ledger's pause and bench are shown.
"""
from __future__ import annotations

import sys
import time
from datetime import datetime, timedelta, timezone

import httpx
import pytest

pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")

from livekit import SLOW_BOT, LiveSite  # noqa: E402

from cardarena.server import procs  # noqa: E402
from cardarena.server.ladder import Arena, LadderSpec  # noqa: E402

GAME = "sixth-card"
PLAYERS = {"ann": "Ann Lee", "ben": None, "cy": None}  # connected, playing the ladder (owner)
AWAY = "dot"        # registered, never connects
PAUSED = "eve"      # connected, paused by hand (`bot pause`)
BENCHED = "fay"     # connected, benched by the quarantine rule
WHY = "4 faults in 20 decisions (20 %) over its last 2 ladder matches"


class ArenaSite(LiveSite):
    """LiveSite (livekit.py) with the ladders of ``serve --ladder`` in the same loop."""

    def __init__(self, tmp_path, ladders):
        super().__init__(tmp_path)
        self.ladders = ladders

    async def _host(self) -> None:
        from cardarena.server.service import start_server
        from cardarena.server.web import host
        from cardarena.server.web.app import create_app
        self.grpc = await start_server(self.referee)
        self.arena = Arena(self.referee, self.ledger, self.ladders, max_per_bot=1, tick=0.05,
                           rate=120.0)  # 2 matches a second a ladder: enough to show, not the machine's all
        self.app = create_app(self.ledger, self.referee, arena=self.arena)
        self.web = await host.start(self.app, host.bind("127.0.0.1:0"))
        self.url = self.web.url.rstrip("/")
        self.arena.start()

    def connect(self, name: str, think: float) -> None:
        """A slow_bot.py program for ``name`` (registered already), connected to the referee."""
        self.bots.append(procs.start_bot(name, f"{sys.executable} {SLOW_BOT}", self.grpc.address,
                                         self.referee.mint_session_token(name), self.tmp / "logs",
                                         extra_env={"CARDARENA_THINK": str(think), "CARDARENA_GAMES": GAME}))

    def stop(self) -> None:
        try:
            self.call(self.arena.stop()).result(60)
        finally:
            super().stop()

    def api(self, path: str):
        r = self.get(path)
        assert r.status_code == 200, (path, r.text)
        return r.json()

    def wait(self, what, timeout: float = 60, every: float = 0.1):
        """``what()`` once it is true (polled), else the test fails."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = what()
            if got:
                return got
            time.sleep(every)
        raise AssertionError(f"not within {timeout} s: {what.__doc__ or what}")


@pytest.fixture(scope="module")
def arena_site(tmp_path_factory):
    site = ArenaSite(tmp_path_factory.mktemp("arena"), [LadderSpec(GAME, 2)])
    for name, owner in PLAYERS.items():
        site.ledger.add_bot(name, owner=owner)
    for name in (AWAY, PAUSED, BENCHED):
        site.ledger.add_bot(name)
    site.ledger.set_paused(PAUSED, True)
    site.ledger.bench_bot(BENCHED, datetime.now(timezone.utc) + timedelta(hours=1), WHY)
    site.start()
    try:
        for name in [*PLAYERS, PAUSED, BENCHED]:
            site.connect(name, think=0.01)
        site.wait(lambda: site.ledger.matches(kind="ladder", status="finished", limit=3)[2:], timeout=120)
        yield site
    finally:
        site.stop()


def state_of(site, name: str) -> dict:
    return site.api(f"/api/v1/bots/{name}")


def test_the_home_page_lists_the_ladders_and_the_api_says_them(arena_site):
    ladders = arena_site.api("/api/v1/ladders")
    assert [(lad["game"], lad["seats"]) for lad in ladders] == [(GAME, 2)]
    assert set(ladders[0]["bots"]) == set(PLAYERS), "paused, benched and away bots are not on the ladder"
    assert set(ladders[0]["playing"]) <= set(PLAYERS)
    home = arena_site.get("/").text
    assert "<h2>Ladders</h2>" in home and f'<a href="/games/{GAME}">{GAME}</a></td><td class="num">2</td>' in home
    assert f"/matches?game={GAME}&amp;kind=ladder" in home


def test_each_bots_state_and_owner_in_the_api_on_its_page_and_in_the_leaderboard(arena_site):
    site = arena_site
    assert state_of(site, AWAY)["state"] == "away"
    assert state_of(site, PAUSED)["state"] == "paused"
    benched = state_of(site, BENCHED)
    assert benched["state"] == "benched" and benched["bench_reason"] == WHY
    assert datetime.fromisoformat(benched["benched_until"]) > datetime.now(timezone.utc) + timedelta(minutes=50)
    # ann, ben and cy play one match at a time (max_per_bot 1), two at a table: one of them waits
    seen = set()
    site.wait(lambda: seen.update(state_of(site, b)["state"] for b in PLAYERS) or {"playing", "idle"} <= seen)
    assert seen <= {"playing", "idle"}, seen
    ann = state_of(site, "ann")
    assert ann["bot"]["owner"] == "Ann Lee"
    page = site.get("/bots/ann").text
    assert 'owner <span class="owner">Ann Lee</span>' in page
    assert 'class="state playing"' in page or 'class="state idle"' in page
    bench_page = site.get(f"/bots/{BENCHED}").text
    assert "benched until" in bench_page and WHY in bench_page
    assert 'class="state away">away<' in site.get(f"/bots/{AWAY}").text
    # a bot paused by another process (`bot pause` writes the ledger) shows paused at once in its row
    site.ledger.set_paused("cy", True)
    try:
        board = site.get(f"/games/{GAME}").text
        row = next(r for r in board.split("<tr>") if 'href="/bots/cy"' in r)
        assert 'class="state paused"' in row
        assert 'class="state playing"' in board or 'class="state idle"' in board  # ann's and ben's rows
    finally:
        site.ledger.set_paused("cy", False)


def test_matches_by_kind_and_the_match_page_names_it(arena_site):
    site = arena_site
    ladder = site.api("/api/v1/matches?kind=ladder&limit=500")
    assert ladder and {m["kind"] for m in ladder} == {"ladder"}
    assert site.api("/api/v1/matches?kind=league") == [] and site.api("/api/v1/matches?kind=match") == []
    everything = site.api("/api/v1/matches?limit=500")  # the ladder goes on: maybe a match more by now
    assert {m["kind"] for m in everything} == {"ladder"} and {m["id"] for m in ladder} <= {m["id"] for m in everything}
    bad = site.get("/api/v1/matches?kind=friendly")
    assert bad.status_code == 422 and "'league', 'ladder' or 'match'" in bad.text
    assert site.get("/matches?kind=friendly").status_code == 422
    listed = site.get("/matches?kind=ladder").text
    assert "<h1>Ladder matches</h1>" in listed and '<td class="kind">ladder</td>' in listed
    assert '<a href="/matches?kind=league">league</a>' in listed and '<b aria-current="true">ladder</b>' in listed
    finished = next(m for m in ladder if m["status"] == "finished")
    page = site.get(f"/matches/{finished['id']}").text
    assert " · ladder" in page and "watch it live" not in page


def test_a_running_ladder_match_links_to_its_live_page(arena_site):
    """A match may end between the list of live ones and its page, or be done by the referee a
    moment before the ledger records it (its page then says it is not played here): then another
    is tried, and one of them must link to its live page."""
    site = arena_site
    for _ in range(50):
        running = site.wait(lambda: site.api("/api/v1/matches?kind=ladder&limit=5") and
                            [m for m in site.api("/api/v1/live")])
        match_id = running[0]["id"]
        page = site.get(f"/matches/{match_id}").text
        if "watch it live" in page:
            assert f'<a class="live" href="/matches/{match_id}/live">watch it live</a>' in page
            return
    pytest.fail("no running ladder match's page linked to its live page in 50 tries")


def test_league_matches_by_kind_over_a_league_ledger(client):
    league = client.get("/api/v1/matches?kind=league&limit=500").json()
    assert league and {m["kind"] for m in league} == {"league"}
    assert client.get("/api/v1/matches?kind=ladder").json() == []
    assert "/matches?kind=ladder" in client.get("/matches").text


def test_without_the_arena_only_the_ledgers_pause_and_bench_are_shown(arena_site, serve):
    from cardarena.server.web.app import create_app
    with serve(create_app(arena_site.ledger)) as url:  # as `cardarena web` over the same ledger
        def state(name):
            return httpx.get(f"{url}/api/v1/bots/{name}").json()
        assert state(PAUSED)["state"] == "paused" and state(BENCHED)["bench_reason"] == WHY
        assert state("ann")["state"] is None and state(AWAY)["matches_now"] is None
        assert httpx.get(f"{url}/api/v1/ladders").json() == []
        board = httpx.get(f"{url}/games/{GAME}").text
        assert "data-follow" not in board and "board.js" not in board and "ann" in board


def test_the_leaderboard_follows_the_ladder_without_a_reload(arena_site, browser, screenshot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    site = arena_site
    page = site.get(f"/games/{GAME}").text
    assert f'data-follow="/games/{GAME}/board?page=1"' in page and "/static/board.js" in page
    assert '<table class="leaderboard"' in page  # without JavaScript: the table as of the load

    def played(b) -> int:  # read in one script: board.js may replace the table between two reads
        return b.execute_script("return [...document.querySelectorAll('#board td.matches')]"
                                ".reduce((n, td) => n + Number(td.textContent), 0)")
    browser.get(f"{site.url}/games/{GAME}")
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.documentElement.dataset.board"))
    browser.execute_script("window.boardMarker = 'kept'")
    first = played(browser)
    WebDriverWait(browser, 60, poll_frequency=0.2).until(lambda b: played(b) > first)
    assert browser.execute_script("return window.boardMarker") == "kept", "the page was not reloaded"
    assert int(browser.find_element(By.ID, "board").get_attribute("data-updates")) >= 1
    assert browser.find_element(By.CSS_SELECTOR, ".ladder .follow").is_displayed()
    assert screenshot("arena-leaderboard") > 20, "the leaderboard is not blank"
