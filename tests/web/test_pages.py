"""The pages with httpx against uvicorn: what a user looks for on each, server-rendered (no script
needed), HTML 404 and 422 pages, cards with their suits in colour, and the SVG charts."""
from __future__ import annotations

import html
import re

import pytest

from cardarena.server.replay import render_match
from cardarena.server.web import charts
from cardarena.server.web.pages import cards

GAME = "sixth-card"


def page(client, url: str, status: int = 200) -> str:
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("text/html")
    return r.text


def rows(text: str, table: str) -> list[str]:
    """The body rows of the first table of that class, as HTML."""
    body = re.search(rf'<table class="{table}">.*?<tbody>(.*?)</tbody>', text, re.S).group(1)
    return re.findall(r"<tr>(.*?)</tr>", body, re.S)


@pytest.mark.parametrize("url", ["/", f"/games/{GAME}", "/bots/ada", "/leagues", "/leagues/1", "/matches",
                                 "/matches/1"])
def test_every_page_is_whole_without_javascript(client, url):
    text = page(client, url)
    assert "<script" not in text and "<main>" in text and "<h1>" in text


def test_home_lists_the_games_and_the_recent_results(client, ledger):
    text = page(client, "/")
    for gid in ("sixth-card", "unsorted", "scouting", "scout", "three-thirteen"):
        assert f'href="/games/{gid}"' in text
    latest = ledger.matches(limit=1)[0]
    assert f'href="/matches/{latest.id}"' in text and 'href="/leagues/1"' in text


def test_the_leaderboard_lists_the_bots_by_conservative_rating_with_their_lines(client, ledger):
    text = page(client, f"/games/{GAME}")
    for header in ("rank", "bot", "μ", "σ", "μ − 3σ", "matches", "wins", "mean place"):
        assert f"<th>{header}</th>" in text
    shown = [re.search(r'href="/bots/([^"]+)"', r).group(1) for r in rows(text, "leaderboard")]
    assert shown == [r.bot for r in ledger.ratings(GAME)]
    assert text.count('<svg class="sparkline"') == 4 and text.count("<polyline") == 4
    assert "no rated matches of unsorted yet" in page(client, "/games/unsorted")


def test_a_bot_page_has_its_rating_chart_matches_and_conduct(client, ledger):
    text = page(client, "/bots/ada")
    assert '<svg class="chart"' in text and 'class="mu"' in text and 'class="band"' in text
    assert "9 matches" in text and "faults" in text and "forfeits" in text
    latency = rows(text, "latency")
    assert len(latency) == 2 and f"<th>{GAME}</th>" in latency[0] and "<th>overall</th>" in latency[1]
    assert re.search(r'<td class="num">[\d.]+ ms</td><td class="num">[\d.]+ ms</td>', latency[1])
    assert "wall time" in text and "p50" in text and "p99" in text
    assert len(rows(text, "matches")) == 9
    assert "no rated matches yet" in page(client, "/bots/eve")


def test_a_league_page_has_settings_progress_standings_head_to_head_and_sets(client):
    text = page(client, "/leagues/1")
    for words in ("round robin, 1 round, duplicate", "12/12 finished", "95% interval", "Mean place by seat",
                  "every bot", "Head-to-head", "Duplicate sets", "mean set rank"):
        assert words in text, words
    assert "heuristic_bot.py" not in text  # the bots' commands are the organizer's business
    assert len(rows(text, "standings")) == 4
    assert len(rows(text, "sets")) == 4


def test_a_match_page_has_seats_rating_changes_the_play_by_play_and_a_replay_link(client, ledger):
    text = page(client, "/matches/1")
    m = ledger.match(1)
    for bot in m.bots:
        assert f'href="/bots/{bot}"' in text
    assert 'href="/matches/1/replay"' in text
    shown = html.unescape(re.sub(r"<[^>]+>", "", re.search(r'<pre class="play-by-play">(.*?)</pre>', text, re.S).group(1)))
    assert shown.splitlines() == render_match(m)  # the text of `cardarena match show`
    assert '<span class="card red">' in text and '<span class="card black">' in text
    change = m.rating_changes[0]
    assert f"{change.mu_before:.2f} → {change.mu:.2f}" in text


@pytest.mark.parametrize("url, status, words", [
    ("/bots/nobody", 404, "no bot named &#39;nobody&#39;"),
    ("/games/chess", 404, "no game &#39;chess&#39;"),
    ("/matches/99999", 404, "no match 99999"),
    ("/leagues/99", 404, "no league 99"),
    ("/no/such/page", 404, "no page /no/such/page"),
    ("/matches/abc", 422, "match_id"),
    ("/matches?limit=0", 422, "limit"),
])
def test_errors_are_pages_that_say_what_is_wrong(client, url, status, words):
    assert words in page(client, url, status)


def test_cards_are_drawn_in_their_suits_colour_and_the_rest_is_escaped():
    out = str(cards("seat 1 lays 10♥ on Q♠ <b> & Jo, row 2/3"))
    assert out == ('seat 1 lays <span class="card red">10♥</span> on <span class="card black">Q♠</span> '
                   '&lt;b&gt; &amp; <span class="card joker">Jo</span>, row 2/3')
    assert str(cards("Jones played 4♦")).count("<span") == 1  # a word that starts with Jo is no joker


def test_a_rating_chart_scales_to_its_points():
    history = [{"mu": 25.0, "sigma": 8.0, "conservative": 1.0}, {"mu": 30.0, "sigma": 4.0, "conservative": 18.0}]
    svg = str(charts.history_chart(history, "a <bot>", width=200, height=100))
    assert "<title>a &lt;bot&gt;</title>" in svg and "2 matches" in svg
    mu = re.search(r'class="mu" points="([^"]+)"', svg).group(1).split()
    ys = [float(p.split(",")[1]) for p in mu]
    assert ys[1] < ys[0]  # a higher μ is drawn higher up
    assert "no rated match yet" in str(charts.history_chart([], "nobody"))
    assert "<polyline" not in str(charts.sparkline(history[:1], "one match"))


def test_a_leaderboard_comes_in_pages_of_50_bots_ranked_as_in_the_whole_table(serve):
    """/games/{game}?page=N: 50 bots a page, each page's lines drawn, a page past the last a 404."""
    import httpx
    from cardarena.ratings import Ledger
    from cardarena.server.web import api
    from cardarena.server.web.app import create_app
    ledger = Ledger(":memory:")
    names = [f"b{i:02d}" for i in range(60)]
    for n in names:
        ledger.add_bot(n)
    for k in range(150):  # every bot in one match, then b00 in 90 more: more than SPARK_POINTS
        seated = [names[(k * 2) % 60], names[(k * 2 + 1) % 60]] if k < 60 else [names[0], names[1 + k % 2]]
        m = ledger.create_match(GAME, k, {}, seated)
        ledger.record_match(m, scores=[0, 1], places=[1, 2], faults=[0, 0], forfeited=[False, False], steps=[],
                            events=[])
    table = ledger.ratings(GAME)
    with serve(create_app(ledger)) as url:
        first, second = (httpx.get(f"{url}/games/{GAME}?page={p}").text for p in (1, 2))
        shown = [re.findall(r'href="/bots/([^"]+)"', r)[0] for r in rows(first, "leaderboard") + rows(second, "leaderboard")]
        assert shown == [r.bot for r in table] and len(rows(first, "leaderboard")) == 50
        assert '<td class="num rank">51</td>' in second and "page 2 of 2" in second and 'href="/games/sixth-card?page=1"' in second
        assert 'href="/games/sixth-card?page=2"' in first
        lines = re.findall(r'<polyline points="([^"]+)"', first + second)
        assert next(r.matches for r in table if r.bot == "b00") == 1 + 90 + 1 > api.SPARK_POINTS  # k = 0, k ≥ 60, k = 30
        assert len(lines) == 60 and api.SPARK_POINTS // 2 < max(len(p.split()) for p in lines) <= api.SPARK_POINTS
        r = httpx.get(f"{url}/games/{GAME}?page=3")
        assert r.status_code == 404 and "no page 3 of the sixth-card leaderboard: it has 2" in r.text
