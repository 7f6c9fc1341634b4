"""The JSON API under /api/v1 with httpx against uvicorn, over a league played over gRPC: every noun,
its filters, 404 and 422 for what does not exist or does not parse (never a 500), what a match
not yet finished hides, and that no answer holds a token."""
from __future__ import annotations

import pytest

from cardarena.ratings import Ledger
from cardarena.ratings.ledger import hash_token
from cardarena.server.replay import render_match
from cardarena.server.games import games

GAME, REGISTERED = "sixth-card", "eve"  # the league fixture's game and its registered bot


def get(client, url: str, status: int = 200):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.text[:300])
    return r.json()


def test_games_list_every_game_and_its_rated_bots(client, league):
    answer = get(client, "/api/v1/games")
    assert [g["id"] for g in answer] == list(games())
    counts = {g["id"]: g["rated_bots"] for g in answer}
    assert counts[GAME] == len(league.bots) and counts["unsorted"] == 0


def test_ratings_are_the_ledgers_table_best_conservative_first(client, ledger, league):
    rows = get(client, f"/api/v1/games/{GAME}/ratings")
    assert rows == [r.to_json() for r in ledger.ratings(GAME)]
    assert {r["bot"] for r in rows} == set(league.bots)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    cons = [r["conservative"] for r in rows]
    assert cons == sorted(cons, reverse=True)
    assert all(r["conservative"] == pytest.approx(r["mu"] - 3 * r["sigma"]) for r in rows)
    assert get(client, "/api/v1/games/unsorted/ratings") == []


def test_a_bot_has_its_ratings_with_history_recent_matches_and_conduct(client, ledger):
    bot = get(client, "/api/v1/bots/ada")
    assert bot["bot"]["name"] == "ada"
    (rating,) = bot["ratings"]
    assert rating["game"] == GAME and len(rating["history"]) == rating["matches"] == 9
    last = ledger.rating_history("ada", GAME)[-1]
    assert rating["history"][-1]["mu"] == rating["mu"] == last.mu
    assert all("ada" in m["bots"] for m in bot["recent_matches"]) and len(bot["recent_matches"]) == 9
    assert bot["faults"] == 0 and bot["forfeits"] == 0 and bot["faults_by_kind"] == {}
    assert bot["match_seconds"]["matches"] == 9 and 0 < bot["match_seconds"]["p50"] <= bot["match_seconds"]["p99"]
    assert get(client, f"/api/v1/bots/{REGISTERED}")["ratings"] == []


def test_leagues_and_a_league_with_standings_head_to_head_and_sets(client, league):
    (listed,) = get(client, "/api/v1/leagues")
    assert listed["counts"]["finished"] == listed["total"] == 12
    d = get(client, f"/api/v1/leagues/{league.league_id}")
    assert d["league"]["settings"]["bots"] == list(league.bots)
    for private in ("commands", "workdir"):  # the organizer's machine, not the league
        assert private not in d["league"]["settings"] and private not in listed["settings"]
    st = d["standings"]
    assert {r["bot"] for r in st["table"]} == set(league.bots)
    assert sum(r["points"] for r in st["table"]) == 12 * 3  # a 3-seat match hands out 2 + 1 + 0
    assert all(r["place_low"] <= r["mean_place"] <= r["place_high"] for r in st["table"])
    assert len(st["head_to_head"]) == 4 * 3
    assert len(st["sets"]) == 4 and all(s["complete"] for s in st["sets"])  # 4 groups of 3, each set 3 rotations
    assert len(d["recent_matches"]) == 12


def test_matches_filter_by_game_bot_league_and_limit(client, league):
    every = get(client, "/api/v1/matches")
    assert len(every) == 12 and [m["id"] for m in every] == sorted((m["id"] for m in every), reverse=True)
    assert len(get(client, "/api/v1/matches?limit=3")) == 3
    assert all("bo" in m["bots"] for m in get(client, "/api/v1/matches?bot=bo"))
    assert len(get(client, "/api/v1/matches?bot=bo")) == 9
    assert len(get(client, f"/api/v1/matches?league={league.league_id}&game={GAME}")) == 12
    assert get(client, "/api/v1/matches?game=unsorted") == []
    assert get(client, f"/api/v1/matches?bot={REGISTERED}") == []


def test_a_match_has_seats_result_faults_rating_changes_and_the_play_by_play(client, ledger):
    m = get(client, "/api/v1/matches/1")
    detail = ledger.match(1)
    assert [s["bot"] for s in m["seats"]] == detail.bots
    assert sorted(s["place"] for s in m["seats"]) == sorted(detail.places)
    assert m["play_by_play"] == render_match(detail)  # the text of `cardarena match show`
    assert m["faults"] == [] and m["seed"] == detail.seed
    assert len(m["rating_changes"]) == 3
    assert all(c["delta_mu"] == pytest.approx(c["mu"] - c["mu_before"]) for c in m["rating_changes"])
    assert len(m["steps"]) == len(detail.steps) and len(m["events"]) == len(detail.events)


@pytest.mark.parametrize("url, words", [
    ("/api/v1/games/chess/ratings", "no game 'chess'"),
    ("/api/v1/bots/nobody", "no bot named 'nobody'"),
    ("/api/v1/leagues/99", "no league 99"),
    ("/api/v1/matches/99999", "no match 99999"),
    ("/api/v1/matches?bot=nobody", "no bot named 'nobody'"),
    ("/api/v1/matches?league=99", "no league 99"),
    ("/api/v1/matches?game=chess", "no game 'chess'"),
])
def test_what_does_not_exist_is_a_404_that_names_it(client, url, words):
    assert words in get(client, url, 404)["detail"]


@pytest.mark.parametrize("url", ["/api/v1/matches/abc", "/api/v1/leagues/1.5", "/api/v1/matches?limit=0",
                                 "/api/v1/matches?limit=501", "/api/v1/matches?limit=x", "/api/v1/matches?league=x",
                                 "/api/v1/matches/99999999999999999999999", "/api/v1/matches/0",
                                 "/api/v1/matches?league=99999999999999999999999"])
def test_a_bad_parameter_is_a_422(client, url):
    assert get(client, url, 422)["detail"]


def test_a_match_not_yet_finished_hides_its_seed(serve):
    """The seed deals every hand: a scheduled or running match shows its seats and status only."""
    from cardarena.server.web.app import create_app
    import httpx
    ledger = Ledger(":memory:")
    for b in ("p", "q"):
        ledger.add_bot(b)
    match_id = ledger.create_match(GAME, 12345, {}, ["p", "q"])
    with serve(create_app(ledger)) as url:
        for answer in (httpx.get(f"{url}/api/v1/matches/{match_id}").json(), httpx.get(f"{url}/api/v1/matches").json()[0]):
            assert answer["status"] == "scheduled" and answer["bots"] == ["p", "q"]
            assert answer["seed"] is None
        page = httpx.get(f"{url}/matches/{match_id}").text
        assert "12345" not in page and "public once the match is finished" in page


def test_the_openapi_schema_lists_every_noun(client):
    paths = get(client, "/api/v1/openapi.json")["paths"]
    for p in ("/api/v1/games", "/api/v1/games/{game}/ratings", "/api/v1/bots/{name}", "/api/v1/leagues",
              "/api/v1/leagues/{league_id}", "/api/v1/matches", "/api/v1/matches/{match_id}"):
        assert p in paths
    assert not any(p.startswith(("/games", "/bots", "/matches")) for p in paths)  # pages are not API


def test_no_page_and_no_answer_shows_a_token(client, league):
    """Tokens are stored hashed and never shown: neither the token nor its hash is anywhere."""
    secrets = (league.token, hash_token(league.token))
    urls = ["/", "/leagues", "/matches", f"/games/{GAME}", f"/leagues/{league.league_id}", "/matches/1",
            "/api/v1/games", f"/api/v1/games/{GAME}/ratings", "/api/v1/leagues",
            f"/api/v1/leagues/{league.league_id}", "/api/v1/matches", "/api/v1/matches/1", "/api/v1/openapi.json"]
    for bot in (*league.bots, REGISTERED):
        urls += [f"/bots/{bot}", f"/api/v1/bots/{bot}", f"/api/v1/matches?bot={bot}"]
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, url
        assert not any(s in r.text for s in secrets), url


def answered(ledger, bot: str) -> int:
    """The decisions a bot answered in its finished matches: the steps that hold a choice of one
    of its seats, less its faults (a fault's step holds the default the referee played)."""
    total = 0
    for m in ledger.matches(bot=bot, limit=None, status="finished"):
        detail = ledger.match(m.id)
        for seat, b in enumerate(detail.bots):
            if b == bot:
                total += sum(seat in step for step in detail.steps) - (detail.faults[seat] or 0)
    return total


def test_a_bots_latency_counts_its_answered_decisions_per_game_and_overall(client, ledger, league):
    """The referee's histograms (result_details["latency"], one per seat) merged per bot: the league
    was played through the real CLI, so every one of its matches has them."""
    for name in league.bots:
        lat = get(client, f"/api/v1/bots/{name}")["latency"]
        overall = lat["overall"]
        assert list(lat["by_game"]) == [GAME] and lat["by_game"][GAME] == overall
        assert overall["decisions"] == answered(ledger, name) > 0
        assert overall["matches"] == 9 and overall["not_recorded"] == 0
        assert 0 < overall["p50"] <= overall["p99"] < 30  # seconds: within the league's move time
    assert get(client, f"/api/v1/bots/{REGISTERED}")["latency"]["overall"] == {
        "decisions": 0, "p50": None, "p99": None, "matches": 0, "not_recorded": 0}


def test_a_match_recorded_before_latency_was_kept_says_not_recorded(serve):
    """A match without result_details["latency"] (recorded before the referee kept it) counts as
    not recorded; the bot's other matches still give its figures, and its page still renders."""
    from cardarena.server.web.app import create_app
    import httpx
    ledger = Ledger(":memory:")
    for b in ("p", "q", "r"):
        ledger.add_bot(b)
    old = ledger.create_match(GAME, 1, {}, ["p", "q"])
    ledger.record_match(old, scores=[1, 2], places=[1, 2], faults=[0, 0], forfeited=[False, False],
                        steps=[{0: 0, 1: 0}], events=[], result_details={"faults": []})
    new = ledger.create_match("unsorted", 2, {}, ["q", "p", "r"])
    ledger.record_match(new, scores=[1, 0, 0], places=[1, 2, 2], faults=[0, 0, 0], forfeited=[False] * 3,
                        steps=[{0: 0}, {1: 0}, {0: 1}], events=[],
                        result_details={"faults": [], "latency": [{"40": 2}, {"44": 1}, {}]})
    with serve(create_app(ledger)) as url:
        lat = httpx.get(f"{url}/api/v1/bots/q").json()["latency"]
        assert lat["by_game"][GAME] == {"decisions": 0, "p50": None, "p99": None, "matches": 0, "not_recorded": 1}
        assert lat["by_game"]["unsorted"]["decisions"] == 2 == lat["overall"]["decisions"]
        assert lat["overall"]["p50"] == lat["overall"]["p99"] == pytest.approx(1e-5 * 2 ** 10)  # bin 40: 10.24 ms
        assert lat["overall"]["matches"] == 1 and lat["overall"]["not_recorded"] == 1
        page = httpx.get(f"{url}/bots/q")
        assert page.status_code == 200 and "not recorded" in page.text and "10.2 ms" in page.text
        assert httpx.get(f"{url}/api/v1/bots/p").json()["latency"]["overall"]["p99"] == pytest.approx(1e-5 * 2 ** 11)


def test_a_rating_table_comes_in_pages_of_limit_rows_from_offset(client, ledger):
    """/api/v1/games/{game}/ratings?limit=&offset= (paged like Kaggle's and lichess's tables)."""
    whole = [r.to_json() for r in ledger.ratings(GAME)]
    assert get(client, f"/api/v1/games/{GAME}/ratings?limit=2") == whole[:2]
    assert get(client, f"/api/v1/games/{GAME}/ratings?limit=2&offset=3") == whole[3:]
    assert get(client, f"/api/v1/games/{GAME}/ratings?offset=9") == []
    for bad in ("limit=0", "limit=1001", "offset=-1"):
        assert get(client, f"/api/v1/games/{GAME}/ratings?{bad}", 422)["detail"]
