"""What the web keeps drawn: a rating line (api.Line), compact for the garbage
collector, its charts drawn once, the same points, history and drawing as the ledger's line; a
leaderboard page, kept as drawn under the ledger's fingerprint and its bots' states, byte for byte
what a fresh drawing gives, drawn again when a bot is paused or a match recorded."""
from __future__ import annotations

import gc

import httpx
from cardarena.ratings import Ledger
from cardarena.server.web import api, charts, pages
from cardarena.server.web.app import create_app

GAME = "sixth-card"

POINTS = [(25.0, 8.333), (26.5, 7.9), (24.75, 7.5)]


def test_a_line_gives_its_points_and_history_as_the_ledgers_line():
    line = api.Line(POINTS)
    assert list(line) == POINTS and len(line) == 3 and len(api.Line()) == 0
    assert api.history_json(line) == api.history_json(POINTS)
    assert line.history_text() == api.encoded(api.history_json(POINTS))


def test_the_collector_walks_a_kept_line_in_a_few_steps_whatever_its_points():
    """A full pass of the collector visits what each object refers to: a kept line of 200 points
    must not be 200 of them (5,000 lines as lists of tuples added ~23 ms to every full pass)."""
    line = api.Line([(25.0 + i, 8.0) for i in range(200)])
    line.history_text()
    line.drawn(charts.sparkline, "b0: μ − 3σ over its matches")
    assert len(gc.get_referents(line)) <= 4


def test_a_lines_chart_is_drawn_once_per_chart_and_title():
    line = api.Line(POINTS)
    drawn = []

    def draw(history, title):
        drawn.append(title)
        return charts.sparkline(history, title)
    first = line.drawn(draw, "b0")
    assert first == charts.sparkline(api.history_json(POINTS), "b0")
    assert line.drawn(draw, "b0") is first and drawn == ["b0"]
    assert line.drawn(charts.history_chart, "b0") == charts.history_chart(api.history_json(POINTS), "b0")
    line.drawn(draw, "b1")
    assert drawn == ["b0", "b1"]


def test_a_leaderboard_page_is_kept_as_drawn_until_a_bot_is_paused_or_a_match_recorded(ledger_url, serve,
                                                                                        monkeypatch):
    led = Ledger(ledger_url())
    for name in ("b0", "b1", "b2"):
        led.add_bot(name)

    def play(places):
        match_id = led.create_match(GAME, len(places), {}, ["b0", "b1", "b2"])
        led.record_match(match_id, places=places, scores=[0.0] * 3, faults=[0] * 3, forfeited=[False] * 3,
                         steps=[], events=[])
    play([1, 2, 3])
    monkeypatch.setattr(api, "_answers", type(api._answers)())  # this test's own cache
    drawn = []

    def page(request, name, **context):
        drawn.append(name)
        return pages_page(request, name, **context)
    pages_page = pages.page
    monkeypatch.setattr(pages, "page", page)
    with serve(create_app(led)) as url, httpx.Client(base_url=url) as client:
        first = client.get(f"/games/{GAME}")
        assert first.headers["content-type"] == "text/html; charset=utf-8"
        assert [k[:2] for k in api._answers[led]] == [("board", "game.html")]
        assert client.get(f"/games/{GAME}").content == first.content and drawn == ["game.html"]

        led.set_paused("b1", True)  # its state is read each time: the page is drawn again
        paused = client.get(f"/games/{GAME}").text
        assert paused.count('<span class="state paused"') == 1 and 'class="state paused"' not in first.text
        led.set_paused("b1", False)
        assert client.get(f"/games/{GAME}").content == first.content and len(drawn) == 2
        api._answers[led].clear()
        assert client.get(f"/games/{GAME}").content == first.content  # drawn afresh: the same bytes
        assert len(drawn) == 3

        play([3, 2, 1])  # a new rating: another fingerprint
        after = client.get(f"/games/{GAME}").text
        assert after != first.text and after.count('<td class="num matches">2</td>') == 3
        fragment = client.get(f"/games/{GAME}/board")
        assert fragment.text in after and ("board", "_board.html") in {k[:2] for k in api._answers[led]}
    led.close()


def test_cardarena_web_serves_with_the_collectors_full_passes_rarer_and_frozen_imports(ledger_url, monkeypatch):
    """``cardarena web`` freezes what the imports left and makes the collector's full passes a
    tenth as frequent while it serves (command.GC_THRESHOLDS), and gives the process its
    thresholds back when it stops."""
    import io
    import socket

    import uvicorn
    from rich.console import Console

    from cardarena.server.web import command
    seen = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: seen.append((gc.get_threshold(),
                                                                                 gc.get_freeze_count())))
    before = gc.get_threshold()
    led = Ledger(ledger_url())
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        command.serve(led, sock, Console(file=io.StringIO()))
    gc.unfreeze()
    led.close()
    assert seen[0][0] == command.GC_THRESHOLDS != before and seen[0][1] > 0
    assert gc.get_threshold() == before


def test_cardarena_web_reads_a_sqlite_ledger_memory_mapped(tmp_path, cli, monkeypatch):
    """`cardarena web` opens its SQLite ledger with ``PRAGMA mmap_size`` at ``WEB_MAPPED`` (a page's
    scattered rows read from memory, not by a read() each: bench/web.py); other commands keep
    SQLite's default (none mapped)."""
    import uvicorn
    from sqlalchemy import text

    from cardarena.ratings.ledger import WEB_MAPPED

    def mapped(led):
        with led.engine.connect() as c:
            return c.execute(text("PRAGMA mmap_size")).scalar()

    seen = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: seen.append(mapped(self.config.app.state.ledger)))
    db = tmp_path / "web.db"
    Ledger(str(db)).close()
    code, out, err = cli("web", "--db", str(db), "--address", "127.0.0.1:0")
    gc.unfreeze()
    assert code == 0, err
    assert seen == [WEB_MAPPED]
    led = Ledger(str(db))
    assert mapped(led) == 0
    led.close()
