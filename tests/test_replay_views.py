"""cardarena.server.replay: a recorded match rebuilt at any step.

At every step of a replay, a seat's view, its legal actions and its choice are exactly what a
fresh :class:`Match` played from the same seed and steps hands that seat; the omniscient state
is ``Game.state_json()``; the events of step k are the match log's events numbered k; any order
of requests (the cursor and the checkpoints) gives the same answers; a record that does not
replay is refused with the reason.
"""
from __future__ import annotations

import json
import random

import pytest

from cardarena.server.games import games
from cardarena.server.match import Match, RandomBot, play_match
from cardarena.server.replay import Replay, ReplayError

#: every game at a small table, played by random bots (seed 3)
GAMES = [(gid, cls.min_players) for gid, cls in games().items()]


def plain(x):
    return json.loads(json.dumps(x))


def record(game_id: str, players: int, seed: int = 3):
    return play_match(game_id, [RandomBot(seed + s) for s in range(players)], seed=seed)


@pytest.mark.parametrize("game_id,players", GAMES, ids=[g for g, _ in GAMES])
def test_each_step_shows_what_the_match_handed_each_seat(game_id, players):
    r = record(game_id, players)
    replay = Replay(game_id, players, r.seed, r.options, r.steps, every=8)
    match = Match(game_id, players, r.seed, r.options)
    # every step of a short match; a long one (Three Thirteen) every 7th step and the last ones
    ks = range(len(r.steps) + 1) if len(r.steps) <= 400 else sorted({*range(0, len(r.steps), 7),
                                                                     *range(len(r.steps) - 3, len(r.steps) + 1)})
    wanted = set(ks)
    for k in range(len(r.steps) + 1):
        if k in wanted:
            to_act = [] if match.is_over() else list(match.to_act())
            decisions = {d.seat: d for d in match.decisions(to_act, words=True)}
            for seat in range(players):
                got = replay.step(k, seat)
                assert got["view"] == plain(match.game.view(seat)), (k, seat)
                assert got["to_act"] == to_act
                if seat in decisions:
                    assert got["decisions"] == [{"seat": seat, "actions": decisions[seat].labels,
                                                 "choice": r.steps[k][seat]}]
                    assert got["view"] == plain(decisions[seat].view)
                else:
                    assert got["decisions"] == []
                assert got["events"] == plain([e.data for s, e in match.log if s == k and e.visible_to(seat)])
            whole = replay.step(k)
            assert whole["state"] == plain(match.game.state_json())
            assert [d["seat"] for d in whole["decisions"]] == to_act
        if k < len(r.steps):
            match.step(r.steps[k])
    end = replay.step(len(r.steps))
    assert end["over"] and end["result"] == plain(r.result.to_json())


def test_any_order_of_steps_gives_the_same_answers():
    """Forward, backward and random jumps (cursor, checkpoints, the end) agree with a walk forward."""
    r = record("unsorted", 3)
    walk = Replay("unsorted", 3, r.seed, r.options, r.steps, every=5)
    forward = [walk.step(k, 1) for k in range(walk.total + 1)]
    jumpy = Replay("unsorted", 3, r.seed, r.options, r.steps, every=5)
    order = list(range(walk.total, -1, -1)) + random.Random(1).sample(range(walk.total + 1), walk.total + 1)
    for k in order:
        assert jumpy.step(k, 1) == forward[k], k


def test_the_omniscient_state_holds_every_hand_and_events_say_who_saw_them():
    r = record("sixth-card", 3)
    replay = Replay("sixth-card", 3, r.seed, r.options, r.steps)
    deal = replay.step(0)
    assert [len(h) for h in deal["state"]["hands"]] == [10, 10, 10]
    assert [deal["state"]["hands"][s] for s in range(3)] == [replay.step(0, s)["view"]["hand"] for s in range(3)]
    assert deal["events"] and all(set(e) == {"seats", "data"} for e in deal["events"])


def test_records_that_do_not_replay_are_refused_with_the_reason():
    r = record("scouting", 3)
    with pytest.raises(ReplayError, match="not over after"):
        Replay("scouting", 3, r.seed, r.options, r.steps[:-1])
    with pytest.raises(ReplayError, match="over after step"):
        Replay("scouting", 3, r.seed, r.options, [*r.steps, r.steps[-1]])
    bad = [dict(c) for c in r.steps]
    seat = next(iter(bad[0]))
    bad[0][seat] = 10_000
    with pytest.raises(ReplayError, match="step 1 does not replay: seat"):
        Replay("scouting", 3, r.seed, r.options, bad)


def test_steps_and_seats_out_of_range():
    r = record("scout", 3)
    replay = Replay("scout", 3, r.seed, r.options, r.steps)
    with pytest.raises(IndexError):
        replay.step(replay.total + 1)
    with pytest.raises(IndexError):
        replay.step(-1)
    with pytest.raises(ValueError):
        replay.step(0, 3)
