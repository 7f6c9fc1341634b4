"""The replay viewer's API and page, over httpx (FastAPI's TestClient).

``GET /api/v1/matches/{id}/steps/{k}?seat=N`` rebuilds a finished match at step k: for every
game the seat's view, actions and choice are what a fresh :class:`Match` replay hands that seat,
and for the league played over gRPC (the shared ``league`` fixture) the view the referee's
Decision bytes carry; the omniscient state holds every hand; a seat's view, and its page, hold
no card of another seat's hand that the seat has not seen. A running match is refused (403), an
unknown match or step is 404, a seat the match does not have 422. The page draws step k on the
server: each game's table, cards with their suits in colour, the seat's actions with its choice
marked, and the generic key/value tree for a game it does not draw specially.
"""
from __future__ import annotations

import json
import re

import pytest

from cardarena.server import wire
from cardarena.server.games import games, get
from cardarena.server.match import Match
from webkit import record_played

pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")

from fastapi.testclient import TestClient  # noqa: E402

from cardarena.ratings import Ledger  # noqa: E402
from cardarena.server.web.app import create_app, templates  # noqa: E402

#: every game, at a table of three where it allows (Three Thirteen at two: one deck, every card once)
TABLES = {gid: (2 if gid == "three-thirteen" else max(cls.min_players, 3)) for gid, cls in games().items()}
SEED = 11


@pytest.fixture(scope="module")
def played(tmp_path_factory, new_ledger):
    """A ledger with one finished match of every game (random bots, recorded as a league records
    them) and one running match; ``(client, {game: (match id, MatchRecord)}, running id)``."""
    led = Ledger(new_ledger(tmp_path_factory.mktemp("replay"), "replay"))
    names = ["ann", "ben", "cat"]
    for name in names:
        led.add_bot(name)
    matches = {}
    for gid, n in TABLES.items():
        matches[gid] = record_played(led, gid, names[:n], SEED)
    running = led.create_match("sixth-card", 1, {}, names)
    led.claim_match(running)
    with TestClient(create_app(led)) as client:
        yield client, matches, running
    led.close()


def plain(x):
    return json.loads(json.dumps(x))


def sampled(total: int) -> list[int]:
    """The steps checked: the first ones, some in between, the last ones."""
    return sorted({*range(min(total, 3)), *range(0, total, max(total // 6, 1)), total - 1, total})


@pytest.mark.parametrize("game_id", list(TABLES))
def test_a_seats_view_actions_and_choice_are_what_a_replay_hands_it(played, game_id):
    client, matches, _ = played
    mid, r = matches[game_id]
    n = TABLES[game_id]
    match = Match(game_id, n, SEED, r.options)
    wanted = set(sampled(len(r.steps)))
    for k in range(len(r.steps) + 1):
        if k in wanted:
            to_act = [] if match.is_over() else list(match.to_act())
            decisions = {d.seat: d for d in match.decisions(to_act, words=True)}
            for seat in range(n):
                got = client.get(f"/api/v1/matches/{mid}/steps/{k}", params={"seat": seat})
                assert got.status_code == 200, got.text
                got = got.json()
                assert (got["step"], got["steps"], got["seat"], got["to_act"]) == (k, len(r.steps), seat, to_act)
                assert got["view"] == plain(match.game.view(seat))
                if seat in decisions:
                    assert got["decisions"] == [{"seat": seat, "actions": decisions[seat].labels,
                                                 "choice": r.steps[k][seat]}]
                else:
                    assert got["decisions"] == []
                assert got["events"] == plain([e.data for s, e in match.log if s == k and e.visible_to(seat)])
        if k < len(r.steps):
            match.step(r.steps[k])


def test_the_view_is_the_one_the_referee_sent_over_grpc(client, ledger, league):
    """The league of the shared fixture was played by bot programs over gRPC: the API's view and
    actions at a step equal those of the Decision message the referee encodes for that seat."""
    from cardarena.v1 import referee_pb2 as pb
    mid = ledger.match_ids(status="finished", league_id=league.league_id)[0]
    m = ledger.match(mid)
    match = Match(m.game, len(m.bots), m.seed, m.options, str(mid))
    checked = 0
    for k, choices in enumerate(m.steps):
        if k % 5 == 0:
            seats = list(match.to_act())
            for d in match.decisions(seats):
                msg = pb.RefereeMessage.FromString(wire.decision_bytes(
                    match.game, str(mid), d.seat, d.decision_id, d.view, d.actions, d.events, 1.0, 0.0))
                sent = msg.decision
                got = client.get(f"/api/v1/matches/{mid}/steps/{k}", params={"seat": d.seat}).json()
                assert got["view"] == wire.to_dict(getattr(sent, wire.oneof_field(m.game)))
                (mine,) = got["decisions"]
                assert mine["actions"] == [a.label for a in sent.actions]
                assert mine["choice"] == choices[d.seat]
                checked += 1
        match.step(choices)
    assert checked > 10


def hidden_cards(state: dict, view: dict, seat: int) -> set[str]:
    """The cards of the other seats' hands (omniscient ``state``) that ``view`` does not show as
    known (Unsorted's and SCOUT's ``known``, Three Thirteen's ``taken`` from the discard pile);
    a SCOUT card in both its ways up."""
    out = set()
    seats = view.get("seats") or []
    for other, hand in enumerate(state["hands"]):
        if other == seat:
            continue
        info = seats[other] if other < len(seats) and isinstance(seats[other], dict) else {}
        known, taken = info.get("known"), list(info.get("taken", ()))
        for i, c in enumerate(hand):
            if known is not None and known[i] not in ("", "?"):
                continue
            if c in taken:
                taken.remove(c)
                continue
            out.add(c)
            if "/" in c:
                out.add("/".join(reversed(c.split("/"))))
    return out - {"Jo"}  # jokers come in several copies


def strings(x) -> set[str]:
    if isinstance(x, dict):
        return set().union(*map(strings, x.values())) if x else set()
    if isinstance(x, list):
        return set().union(*map(strings, x)) if x else set()
    return {x} if isinstance(x, str) else set()


@pytest.mark.parametrize("game_id", list(TABLES))
def test_omniscient_holds_every_hand_a_seat_no_hidden_card(played, game_id):
    """Every card of a deal is there once in these games (jokers aside), so a hidden card's text
    anywhere in a seat's view, or in the drawing of its page, would be a leak. (The events of a
    step that ends a deal name cards dealt again in the next; they are checked against the log.)"""
    client, matches, _ = played
    mid, r = matches[game_id]
    n = TABLES[game_id]
    for k in sampled(len(r.steps))[:-1]:
        whole = client.get(f"/api/v1/matches/{mid}/steps/{k}").json()
        hands = whole["state"]["hands"]
        assert len(hands) == n and sum(map(len, hands)) > 0
        assert {d["seat"] for d in whole["decisions"]} == set(whole["to_act"])
        for seat in range(n):
            mine = client.get(f"/api/v1/matches/{mid}/steps/{k}", params={"seat": seat}).json()
            assert mine["view"]["hand"] == hands[seat]
            hidden = hidden_cards(whole["state"], mine["view"], seat)
            # Three Thirteen's ``discards``, the round's discards in order, may name a card drawn
            # again from the stock rebuilt from them: history, not a hand
            shown = strings({key: v for key, v in mine["view"].items() if key != "discards"})
            assert not hidden & shown, (k, seat, hidden & shown)
            page = client.get(f"/matches/{mid}/replay", params={"step": k, "seat": seat}).text
            # the drawing (table, hands, actions); the raw view and the events are checked above
            page = re.sub(r'<section class="events">.*?</section>|<details class="raw">.*?</details>', "", page,
                          flags=re.S)
            leaked = [c for c in hidden if re.search(rf'>{re.escape(c)}<|\b{re.escape(c)}(?=[\s<,"])', page)]
            assert not leaked, (k, seat, leaked)


def test_a_running_match_is_not_replayed(played):
    client, _, running = played
    got = client.get(f"/api/v1/matches/{running}/steps/0")
    assert got.status_code == 403
    assert "only a finished match can be replayed" in got.json()["detail"]
    for url in (f"/matches/{running}/replay", f"/matches/{running}/replay/steps/0"):
        got = client.get(url)
        assert got.status_code == 403
        assert "only a finished match can be replayed" in got.text


def test_unknown_matches_steps_and_seats(played):
    client, matches, _ = played
    mid, r = matches["scout"]
    assert client.get("/api/v1/matches/999999/steps/0").status_code == 404
    assert client.get(f"/api/v1/matches/{mid}/steps/{len(r.steps) + 1}").status_code == 404
    assert client.get(f"/api/v1/matches/{mid}/steps/-1").status_code == 404
    end = client.get(f"/api/v1/matches/{mid}/steps/{len(r.steps)}").json()
    assert end["over"] and end["to_act"] == [] and end["decisions"] == []
    assert end["result"]["places"] == list(r.result.places)
    for bad in (3, -1, "x"):
        got = client.get(f"/api/v1/matches/{mid}/steps/0", params={"seat": bad})
        assert got.status_code == 422, bad
    assert client.get(f"/matches/{mid}/replay", params={"step": len(r.steps) + 1}).status_code == 404


def test_a_match_of_another_engine_version_is_named_not_replayed(played, monkeypatch):
    client, matches, _ = played
    mid, _ = matches["scouting"]
    monkeypatch.setattr(get("scouting"), "engine_version", 99)
    client.app.state.replays = None  # the cache would answer from the replay made before
    got = client.get(f"/api/v1/matches/{mid}/steps/0")
    assert got.status_code == 409
    assert "version" in got.json()["detail"]
    client.app.state.replays = None


CARD = re.compile(r'<span class="card (red|black)">(\w+)([♥♦♣♠])</span>')

#: what each game's table shows in its own words
DRAWN = {"sixth-card": ["row 1", "row 4", "penalty pile"], "unsorted": ["the plays of the round", "discard", "spares", "chips"],
         "scouting": ["the active show", "Scout chips"], "scout": ["the active show", "Scout chips", 'class="card two"'],
         "three-thirteen": ["discard pile", "melds", "are wild"]}


@pytest.mark.parametrize("game_id", list(TABLES))
def test_the_page_draws_the_step_with_the_choice_marked(played, game_id):
    client, matches, _ = played
    mid, r = matches[game_id]
    k = len(r.steps) // 2
    seat = next(iter(r.steps[k]))
    page = client.get(f"/matches/{mid}/replay", params={"step": k, "seat": seat})
    assert page.status_code == 200
    html = page.text
    assert f'data-step="{k}"' in html and f'data-seat="{seat}"' in html
    for words in DRAWN[game_id]:
        assert words in html, words
    api = client.get(f"/api/v1/matches/{mid}/steps/{k}", params={"seat": seat}).json()
    (mine,) = api["decisions"]
    chosen = re.findall(r'<li class="choice" aria-current="true">(.*?)</li>', html)
    assert [re.sub("<[^>]+>", "", c) for c in chosen] == [mine["actions"][mine["choice"]].replace("&", "&amp;")]
    drawn = CARD.findall(html)
    if game_id != "scout":  # SCOUT's cards are numbers, not suits
        assert drawn
    for colour, _, suit in drawn:
        assert colour == ("red" if suit in "♥♦" else "black")
    # links that step without JavaScript
    assert f'href="?step={k + 1}&amp;seat={seat}"' in html or f'href="?step={k + 1}&seat={seat}"' in html


def test_a_game_not_drawn_specially_is_shown_as_a_tree(played):
    r = type("R", (), {"game": "new-game", "bots": ["ann"], "places": [1], "id": 1})()
    html = templates.get_template("replay_step.html").render(
        m=r, seat=0, table={"seat": 0, "pot": 7, "hand": ["A♠"], "seats": [{"seat": 0, "stack": 90}]},
        hands=[{"cards": ["A♠"], "own": True}], events=["seat 0 bets 7"],
        step={"step": 1, "steps": 2, "to_act": [0], "over": False, "decisions": [], "view": {"pot": 7}})
    assert "<dt>pot</dt><dd>7</dd>" in html and "<dt>stack</dt><dd>90</dd>" in html
    assert '<span class="card black">A♠</span>' in html
