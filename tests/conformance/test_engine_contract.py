"""The engine contract of DESIGN.md, checked on every registered game and every player count.

The same checks run over all games (as OpenSpiel's api_test and PettingZoo's api_test do):
random playouts finish; a seed and the choices replay the same match; every listed legal action
applies and nothing else does; ``view(seat)`` is unchanged by ``resample_hidden(seat)`` (no leak)
while the resample does re-deal what the seat cannot see; the view holds the seat's own hand;
results rank every seat; everything a bot is sent is plain JSON.
"""
from __future__ import annotations

import copy
import itertools
import json
import random

import pytest

from cardarena.server.games import IllegalAction, games, new_game
from cardarena.server.match import Match, RandomBot, play_match, replay

CASES = [(gid, n) for gid, cls in games().items() for n in range(cls.min_players, cls.max_players + 1)]
IDS = [f"{g}-{n}p" for g, n in CASES]


def random_playout(game_id: str, players: int, seed: int, sample_every: int = 0):
    """Play a random match step by step; yield a copy of the match at sampled states."""
    rng = random.Random(seed * 7919 + players)
    match = Match(game_id, players, seed)
    steps = 0
    while not match.is_over():
        if sample_every and steps % sample_every == 0:
            yield copy.deepcopy(match)
        choices = {s: rng.randrange(len(match.game.legal_actions(s))) for s in match.to_act()}
        match.step(choices)
        steps += 1
        assert steps < 200_000, "the game does not end"
    yield match


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_random_playouts_finish_and_rank_every_seat(game_id, players):
    for seed in range(3):
        bots = [RandomBot(seed * 100 + s) for s in range(players)]
        rec = play_match(game_id, bots, seed=seed)
        res = rec.result
        assert len(res.scores) == players and len(res.places) == players
        assert 1 in res.places
        assert all(1 <= p <= players for p in res.places)
        # places follow the scores: a better score never has a worse place, equal scores share
        for a in range(players):
            for b in range(players):
                sa, sb = res.scores[a], res.scores[b]
                better = sa > sb if res.higher_is_better else sa < sb
                if better:
                    assert res.places[a] < res.places[b]
                if sa == sb:
                    assert res.places[a] == res.places[b]
        assert not rec.faults


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_same_seed_and_choices_replay_the_same_match(game_id, players):
    bots = lambda: [RandomBot(7 + s) for s in range(players)]  # noqa: E731
    a = play_match(game_id, bots(), seed=42)
    b = play_match(game_id, bots(), seed=42)
    assert [(s, e.data, e.seats) for s, e in a.log] == [(s, e.data, e.seats) for s, e in b.log]
    assert a.result == b.result
    again = replay(game_id, players, 42, None, a.steps)
    assert [(s, e.data) for s, e in again.log] == [(s, e.data) for s, e in a.log]
    assert again.result() == a.result
    # a different seed deals differently
    c = play_match(game_id, bots(), seed=43)
    assert [e.data for _, e in c.log[:5]] != [e.data for _, e in a.log[:5]] or c.result != a.result


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_every_legal_action_applies_and_nothing_else(game_id, players):
    universe: set = set()
    states = list(itertools.islice(random_playout(game_id, players, seed=5, sample_every=9), 25))
    for match in states:
        game = match.game
        for seat in range(players):
            universe.update(game.legal_actions(seat))
    for match in states:
        game = match.game
        if game.is_over():
            assert game.to_act() == ()
            continue
        seats = game.to_act()
        assert seats, "a game that is not over has seats to act"
        defaults = {s: game.default_action(s) for s in seats}
        for s in seats:
            legal = game.legal_actions(s)
            assert legal, f"seat {s} must act but has no legal action"
            assert len(set(legal)) == len(legal), "legal actions are listed once each"
            assert defaults[s] in legal, "the default action is legal"
            for action in legal:
                g = game.copy()
                g.apply({**defaults, s: action})
            others = [a for a in universe if a not in legal]
            for action in random.Random(1).sample(others, min(5, len(others))):
                with pytest.raises(IllegalAction):
                    game.copy().apply({**defaults, s: action})
        not_to_act = [s for s in range(players) if s not in seats]
        if not_to_act:
            assert game.legal_actions(not_to_act[0]) == []
            with pytest.raises(IllegalAction):
                game.copy().apply({**defaults, not_to_act[0]: defaults[seats[0]]})
        with pytest.raises(IllegalAction):
            game.copy().apply({})


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_view_does_not_leak_and_resample_redeals_the_hidden(game_id, players):
    rng = random.Random(3)
    changed_hidden = 0
    for match in list(itertools.islice(random_playout(game_id, players, seed=11, sample_every=7), 20)):
        game = match.game
        truth = game.state_json()
        for seat in range(players):
            view = game.view(seat)
            json.dumps(view)  # plain JSON, nothing else
            assert view["hand"] == truth["hands"][seat], "the view holds the seat's own hand"
            other = game.resample_hidden(seat, rng)
            assert other is not game
            assert other.view(seat) == view, "resample_hidden(seat) must not change what seat sees"
            assert other.to_act() == game.to_act()
            assert other.legal_actions(seat) == game.legal_actions(seat)
            if other.state_json() != truth:
                changed_hidden += 1
            # the original is untouched
            assert game.state_json() == truth
    assert changed_hidden > 0, "resample_hidden never re-dealt anything a seat cannot see"


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_wire_forms_are_plain_json(game_id, players):
    for match in list(itertools.islice(random_playout(game_id, players, seed=2, sample_every=5), 15)):
        game = match.game
        for seat in game.to_act():
            d = match.decision(seat)
            labels = d.labels
            assert all(isinstance(x, str) and x for x in labels)
            assert len(set(labels)) == len(labels), "labels tell the actions apart"
            json.dumps(d.actions_json)
            json.dumps(d.events)
    for _, ev in match.log:
        json.dumps(ev.data)
        assert isinstance(ev.data.get("type"), str)
    json.dumps(match.result().to_json())


@pytest.mark.parametrize("game_id", list(games()))
def test_player_counts_and_options_are_checked(game_id):
    from cardarena.server.games import GameOptionError, PlayerCountError
    cls = games()[game_id]
    with pytest.raises(PlayerCountError):
        new_game(game_id, cls.min_players - 1, 0)
    with pytest.raises(PlayerCountError):
        new_game(game_id, cls.max_players + 1, 0)
    with pytest.raises(GameOptionError):
        new_game(game_id, cls.min_players, 0, {"no-such-option": 1})
    assert cls.rules_texts.get("en"), "every game names its rules text"
    assert cls.default_policy, "every game states its default action"


def proto_messages(cls):
    import importlib
    mod = importlib.import_module(f"cardarena.v1.{cls.proto_module}_pb2")
    return getattr(mod, f"{cls.proto_name}View"), getattr(mod, f"{cls.proto_name}Action")


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_views_and_actions_are_exactly_their_proto_messages(game_id, players):
    """The typed protobuf view/action of the game carries the dict exactly: no field lost or added."""
    from google.protobuf import json_format

    View, ActionMsg = proto_messages(games()[game_id])

    from cardarena.server.wire import fill

    def roundtrip(msg_cls, data):
        msg = json_format.ParseDict(data, msg_cls())  # unknown keys raise
        assert fill(msg_cls(), data) == msg, "the referee's fast translation agrees with json_format"
        back = json_format.MessageToDict(msg, preserving_proto_field_name=True,
                                         always_print_fields_with_no_presence=True)
        assert back == data
        return msg

    for match in list(itertools.islice(random_playout(game_id, players, seed=4, sample_every=6), 12)):
        game = match.game
        for seat in range(players):
            roundtrip(View, game.view(seat))
            for a in game.legal_actions(seat):
                roundtrip(ActionMsg, game.action_json(a))


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_decision_bytes_are_the_decision_message(game_id, players):
    """The referee assembles each decision from pre-serialised parts (wire.decision_bytes), the
    parts the seats of a step share encoded once; the bytes parse to exactly the Decision
    json_format builds from the engine's dicts. ``Game.views`` gives what ``view`` gives."""
    from google.protobuf import json_format

    from cardarena.server import wire
    from cardarena.v1 import referee_pb2 as pb

    field = wire.oneof_field(game_id)
    for match in list(itertools.islice(random_playout(game_id, players, seed=5, sample_every=7), 8)):
        game = match.game
        cache: dict = {}
        seats = game.to_act()
        assert game.views(seats) == {s: game.view(s) for s in seats}
        shared = {} if len(seats) > 1 else None
        for d in match.decisions(seats):
            seat = d.seat
            got = pb.RefereeMessage.FromString(wire.decision_bytes(
                game, "m7", seat, d.decision_id, d.view, d.actions, d.events, 1.5, 0.25, cache, shared))
            want = pb.RefereeMessage()
            w = want.decision
            w.match_id, w.seat, w.decision_id, w.game, w.time_left, w.bank_left = "m7", seat, d.decision_id, game_id, 1.5, 0.25
            json_format.ParseDict(d.view, getattr(w, field))
            for data in d.events:
                w.events.add(type=data["type"], text=game.event_text(data),
                             data_json=json.dumps(data, ensure_ascii=False, separators=(",", ":")))
            for a, label in zip(d.actions_json, d.labels):
                json_format.ParseDict(a, getattr(w.actions.add(label=label), field))
            assert got == want
