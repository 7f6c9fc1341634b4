"""The pages with httpx against uvicorn: what a user looks for on each, server-rendered (no script
needed), HTML 404 and 422 pages, cards with their suits in colour, the SVG charts with their axes,
the leaderboard's owners and its filter by bot name (escaped, whatever it holds), and the icon."""
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
    assert "<title>a &lt;bot&gt;</title>" in svg and "rated matches" in svg
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
        # a filter keeps its pages: b0… are 10 bots, one page; b… all 60, and its links keep it
        assert "page 1 of" not in httpx.get(f"{url}/games/{GAME}?q=b0").text
        by_b = httpx.get(f"{url}/games/{GAME}?q=b").text
        assert 'href="/games/sixth-card?page=2&amp;q=b"' in by_b and "60 bots with “b” in their names" in by_b
        assert len(rows(httpx.get(f"{url}/games/{GAME}?page=2&q=b").text, "leaderboard")) == 10


def axes(svg: str) -> tuple[dict[float, float], dict[int, float], list[tuple[float, float]]]:
    """A rating chart's rating ticks (value → the y of its label), match ticks (number → x) and
    μ's points."""
    rating = re.search(r'<g class="axis rating">(.*?)</g>', svg, re.S).group(1)
    matches = re.search(r'<g class="axis matches">(.*?)</g>', svg, re.S).group(1)
    assert re.search(r'<text class="label"[^>]*>rating</text>', rating)
    assert re.search(r'<text class="label"[^>]*>rated matches[^<]*</text>', matches)
    ys = {float(v.replace("−", "-")): float(y) - 4
          for y, v in re.findall(r'<text class="tick" x="[^"]+" y="([^"]+)"[^>]*>([^<]+)</text>', rating)}
    xs = {int(v): float(x) for x, v in re.findall(r'<text class="tick" x="([^"]+)"[^>]*>([^<]+)</text>', matches)}
    mu = [tuple(map(float, p.split(","))) for p in re.search(r'class="mu" points="([^"]+)"', svg).group(1).split()]
    return ys, xs, mu


def test_a_rating_chart_has_labelled_axes_with_round_ticks():
    history = [{"mu": 25.0, "sigma": 8.333, "conservative": 0.001}, {"mu": 27.5, "sigma": 6.0, "conservative": 9.5},
               {"mu": 31.2, "sigma": 4.1, "conservative": 18.9}]
    svg = str(charts.history_chart(history, "ada in sixth-card"))
    ys, xs, mu = axes(svg)
    values = sorted(ys)
    assert 3 <= len(values) <= 7 and values[0] <= 0.001 and values[-1] >= 31.2 + 4.1
    step = values[1] - values[0]
    assert step in (1, 2, 2.5, 5, 10, 20, 25, 50) and all(abs(b - a - step) < 1e-9 for a, b in zip(values, values[1:]))
    assert [ys[v] for v in values] == sorted((ys[v] for v in values), reverse=True)  # higher up, higher rating
    assert sorted(xs) == [1, 2, 3] and [x for x, _ in mu] == [xs[1], xs[2], xs[3]]
    lo, hi = values[0], values[-1]  # μ is drawn where the rating axis says
    for (_, y), h in zip(mu, history):
        assert abs(y - (ys[lo] + (h["mu"] - lo) / (hi - lo) * (ys[hi] - ys[lo]))) < 0.2
    assert ">μ</text>" in svg and ">μ ± σ</text>" in svg and ">μ − 3σ</text>" in svg  # the legend
    low = str(charts.history_chart([{"mu": -2.0, "sigma": 1.0, "conservative": -5.0}], "low"))
    ys, xs, _ = axes(low)
    assert min(ys) <= -5 and "−" in low.split('class="axis rating"')[1] and list(xs) == [1]


def test_a_bots_chart_is_drawn_against_its_rated_matches(client, ledger):
    text = page(client, "/bots/ada")
    (rating,) = [r for r in ledger.ratings(GAME) if r.bot == "ada"]
    ys, xs, mu = axes(re.search(r'<svg class="chart".*?</svg>', text, re.S).group(0))
    assert max(xs) == rating.matches == len(mu) and mu[0][0] == xs[1] and mu[-1][0] == xs[rating.matches]
    assert min(ys) <= rating.mu - 3 * rating.sigma and max(ys) >= rating.mu + rating.sigma


def test_a_thinned_rating_line_is_drawn_at_its_matches_numbers(serve, monkeypatch):
    """A line of more matches than ``api.LINE_POINTS`` keeps every k-th match counted back from
    the last (``Ledger.rating_lines``): its chart puts each point at its match's number."""
    import httpx
    from cardarena.ratings import Ledger
    from cardarena.server.web import api
    from cardarena.server.web.app import create_app
    monkeypatch.setattr(api, "LINE_POINTS", 10)
    ledger = Ledger(":memory:")
    for n in ("b0", "b1", "b2"):
        ledger.add_bot(n)
    for k in range(30):
        m = ledger.create_match(GAME, k, {}, ["b0", "b1", "b2"])
        ledger.record_match(m, scores=[0, 1, 2], places=[1 + k % 3, 1 + (k + 1) % 3, 1 + (k + 2) % 3], faults=[0] * 3,
                            forfeited=[False] * 3, steps=[], events=[])
    with serve(create_app(ledger)) as url:
        text = httpx.get(f"{url}/bots/b0").text
    ys, xs, mu = axes(re.search(r'<svg class="chart".*?</svg>', text, re.S).group(0))
    assert len(mu) == 10 and max(xs) == 30 and mu[-1][0] == xs[30]  # matches 3, 6, …, 30
    per_match = (xs[30] - xs[10]) / 20
    assert all(abs(x - (xs[30] - (30 - 3 * (i + 1)) * per_match)) < 0.2 for i, (x, _) in enumerate(mu))
    assert api.line_span(30, 10, 10) == {"first": 3, "every": 3} and api.line_span(9, 9, 10) == {"first": 1, "every": 1}


@pytest.fixture(scope="module")
def owned(tmp_path_factory, new_ledger, serve):
    """A ledger of bots added with `cardarena bot add NAME --owner ...` (one without an owner),
    each rated in Sixth Card, served by uvicorn; ``(httpx client, {bot: owner})``."""
    import httpx
    from webkit import cardarena
    from cardarena.ratings import Ledger
    from cardarena.server.web.app import create_app
    where = tmp_path_factory.mktemp("owned")
    db = new_ledger(where, "owned")
    owners = {"ann.k": 'Ann <ann@example.org> & "Co"', "ben": "Ben's lab", "Bea-2": "", "cy": "Cy ☂ 名前"}
    for name, owner in owners.items():
        cardarena("bot", "add", name, *(["--owner", owner] if owner else []), "--db", db, cwd=where)
    ledger = Ledger(db)
    names = list(owners)
    for k in range(6):
        seated = [names[k % 4], names[(k + 1) % 4], names[(k + 2) % 4]]
        m = ledger.create_match(GAME, k, {}, seated)
        ledger.record_match(m, scores=[0, 1, 2], places=[1, 2, 3], faults=[0] * 3, forfeited=[False] * 3,
                            steps=[], events=[])
    with serve(create_app(ledger)) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, owners, [r.bot for r in ledger.ratings(GAME)]
    ledger.close()


def board(text: str) -> list[tuple[str, str, str]]:
    """The leaderboard's rows: (rank, bot, owner) as the page reads."""
    out = []
    for r in rows(text, "leaderboard"):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)
        if len(cells) > 1:
            out.append(tuple(html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells[:3]))
    return out


def test_the_leaderboard_shows_each_bots_owner(owned):
    client, owners, table = owned
    text = page(client, f"/games/{GAME}")
    assert "<th>owner</th>" in text
    assert board(text) == [(str(i), b, owners[b]) for i, b in enumerate(table, 1)]
    assert "<ann@example.org>" not in text and "Ann &lt;ann@example.org&gt; &amp; &#34;Co&#34;" in text


def test_the_leaderboard_filters_by_bot_name_ranked_as_in_the_whole_table(owned):
    client, owners, table = owned
    rank = {b: str(i) for i, b in enumerate(table, 1)}
    for q, wanted in [("b", ["ben", "Bea-2"]), ("  BE ", ["ben", "Bea-2"]), ("ann.K", ["ann.k"]), ("", table)]:
        text = page(client, f"/games/{GAME}", ) if not q else page(client, f"/games/{GAME}?q={q}")
        shown = board(text)
        assert [b for _, b, _ in shown] == [b for b in table if b in wanted], q
        assert all(r == rank[b] for r, b, _ in shown)
        api = client.get(f"/api/v1/games/{GAME}/ratings", params={"q": q}).json()
        assert [r["bot"] for r in api] == [b for _, b, _ in shown]
    text = page(client, f"/games/{GAME}?q=zz")
    assert board(text) == [] and "no bot on the sixth-card leaderboard has “zz” in its name" in text
    assert 'value="zz"' in text and 'href="/games/sixth-card">every bot</a>' in text


@pytest.mark.parametrize("q", ['"><script>alert(1)</script>', "%_*'", "a&b=c#d", "\\", "名前", "Bea-2?page=2",
                               "x" * 100])
def test_a_name_filter_with_odd_characters_is_escaped_and_finds_nothing_else(owned, q):
    client, owners, table = owned
    r = client.get(f"/games/{GAME}", params={"q": q})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "<script>alert" not in r.text
    shown = re.search(r'<input type="search" id="q" name="q" value="([^"]*)"', r.text).group(1)
    assert html.unescape(shown) == q.strip()
    assert [b for _, b, _ in board(r.text)] == [b for b in table if q.strip().casefold() in b.casefold()]
    fragment = client.get(f"/games/{GAME}/board", params={"q": q})
    assert fragment.status_code == 200 and "<script>alert" not in fragment.text


def test_a_name_filter_too_long_is_a_page_that_says_so(owned):
    client, _, _ = owned
    assert "q" in page(client, f"/games/{GAME}?q={'x' * 101}", 422)
    assert client.get(f"/api/v1/games/{GAME}/ratings", params={"q": "x" * 101}).status_code == 422


def test_the_site_has_an_icon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon"
    assert r.content[:4] == b"\x00\x00\x01\x00" and len(r.content) < 4096  # an ICO of a few images
    svg = client.get("/static/favicon.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml") and "<svg" in svg.text
    for url in ("/", f"/games/{GAME}", "/bots/ada", "/matches/1", "/matches/1/replay", "/no/such/page"):
        text = client.get(url).text
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in text, url
        assert '<link rel="icon" href="/favicon.ico"' in text, url
