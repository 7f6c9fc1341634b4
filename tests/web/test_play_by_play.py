"""Private events in the play-by-play, over httpx against uvicorn: a game tells a seat's private
event twice (its own line to that seat, the others' line to the rest: Unsorted's ``put drawn``,
Three Thirteen's ``draw`` from the stock), and each reader reads it once: the match page and the
omniscient replay the seat's own line, a seat's replay its own line for its own events and the
others' line for another seat's."""
from __future__ import annotations

import html
import re

import pytest

from webkit import record_played

from cardarena.server.games import get

pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")

from cardarena.ratings import Ledger  # noqa: E402
from cardarena.server.web.app import create_app  # noqa: E402

SEED = 11
#: game → (its table, the type of its private event told twice)
TWICE = {"unsorted": (3, "put drawn"), "three-thirteen": (2, "draw")}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, new_ledger, serve):
    """A ledger with one finished match of each game of :data:`TWICE` (random bots), served by
    uvicorn; ``(base URL, {game: (match id, MatchRecord)})``."""
    import httpx
    led = Ledger(new_ledger(tmp_path_factory.mktemp("twice"), "twice"))
    names = ["ann", "ben", "cat"]
    for name in names:
        led.add_bot(name)
    matches = {}
    for gid, (n, _) in TWICE.items():
        matches[gid] = record_played(led, gid, names[:n], SEED)
    with serve(create_app(led)) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, matches
    led.close()


def told_twice(r, kind: str) -> list[tuple[int, dict, dict]]:
    """The private events of that type: (step, the seat's own data, the others' data)."""
    own = {(s, e.data["seat"]): e.data for s, e in r.log
           if e.data["type"] == kind and e.seats is not None and e.data["seat"] in e.seats}
    return [(s, own[s, e.data["seat"]], e.data) for s, e in r.log
            if e.data["type"] == kind and e.seats is not None and e.data["seat"] not in e.seats]


def words(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.parametrize("game_id", list(TWICE))
def test_the_match_page_tells_each_private_event_once_as_its_seat_saw_it(recorded, game_id):
    client, matches = recorded
    mid, r = matches[game_id]
    n, kind = TWICE[game_id]
    twice = told_twice(r, kind)
    assert twice, "the match has no private event told twice: choose another seed"
    page = client.get(f"/matches/{mid}")
    assert page.status_code == 200
    lines = words(re.search(r'<pre class="play-by-play">(.*?)</pre>', page.text, re.S).group(1)).splitlines()
    game = get(game_id)(n, SEED, r.options)
    for step, own, others in twice:
        assert game.event_text(own) != game.event_text(others)
        assert lines.count(f"[{step:>4}] {game.event_text(own)}") == 1
        assert f"[{step:>4}] {game.event_text(others)}" not in lines
    assert len([line for line in lines if line.startswith("[")]) == len(r.log) - len(twice)


@pytest.mark.parametrize("game_id", list(TWICE))
def test_the_replay_tells_a_private_event_once_omniscient_and_per_seat(recorded, game_id):
    client, matches = recorded
    mid, r = matches[game_id]
    n, kind = TWICE[game_id]
    step, own, others = told_twice(r, kind)[0]
    game = get(game_id)(n, SEED, r.options)
    mine, theirs = game.event_text(own), game.event_text(others)

    def events(seat=None) -> list[str]:
        params = {"step": step} if seat is None else {"step": step, "seat": seat}
        page = client.get(f"/matches/{mid}/replay", params=params)
        assert page.status_code == 200
        block = re.search(r'<section class="events">.*?<ul>(.*?)</ul>', page.text, re.S).group(1)
        return [words(li) for li in re.findall(r"<li>(.*?)</li>", block, re.S)]

    omniscient = events()
    assert omniscient.count(mine) == 1 and theirs not in omniscient
    assert len(omniscient) == sum(1 for s, _ in r.log if s == step) - 1
    seat = own["seat"]
    assert events(seat).count(mine) == 1 and theirs not in events(seat)
    other = (seat + 1) % n
    assert events(other).count(theirs) == 1 and mine not in events(other)
    # the step's JSON keeps the omniscient log whole: both lines, with who saw each
    answer = client.get(f"/api/v1/matches/{mid}/steps/{step}").json()
    told = [e for e in answer["events"] if e["data"]["type"] == kind and e["data"]["seat"] == seat]
    assert sorted(len(e["seats"]) for e in told) == [1, n - 1]
