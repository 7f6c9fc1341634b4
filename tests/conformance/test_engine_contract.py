"""The engine contract of DESIGN.md, checked on every registered game and every player count.

The same checks run over all games (as OpenSpiel's api_test and PettingZoo's api_test do):
random playouts finish; a seed and the choices replay the same match; every listed legal action
applies and nothing else does; ``view(seat)`` is unchanged by ``resample_hidden(seat)`` (no leak)
while the resample does re-deal what the seat cannot see; the view holds the seat's own hand;
results rank every seat; everything a bot is sent is plain JSON; an in-process bot is handed
exactly what a remote bot is sent and nothing that leads back into the game.
"""
from __future__ import annotations

import copy
import itertools
import json
import random
import types

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
            d = match.decision(seat, words=True)
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
    parts the seats of a step share encoded once (by a dict of the step's parts, or by a
    ``StepViews``, as the referee does); the bytes parse to exactly the Decision json_format
    builds from the engine's dicts, so no seat gets another's part. ``Game.views`` gives what
    ``view`` gives."""
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
        decisions = match.decisions(seats, words=True)
        step = wire.StepViews(game, [d.view for d in decisions]) if len(decisions) > 1 else None
        for d in decisions:
            seat = d.seat
            got = pb.RefereeMessage.FromString(wire.decision_bytes(
                game, "m7", seat, d.decision_id, d.view, d.actions, d.events, 1.5, 0.25, cache, shared))
            by_step = pb.RefereeMessage.FromString(wire.decision_bytes(
                game, "m7", seat, d.decision_id, d.view, d.actions, d.events, 1.5, 0.25, {}, step))
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
            assert by_step == want


# ----- an in-process bot gets what a remote bot gets, and no more ------------
_ATOMS = (str, int, float, bool, type(None))


def reachable(root) -> list[tuple[str, object]]:
    """Every object reachable from ``root`` with a path to it: through containers, attributes
    (``__dict__`` and ``__slots__``), bound methods, closures and defaults. A class or a module
    ends a path (code, not a match's state), and so do the atoms (str, int, float, bool, None)."""
    out, seen, todo = [], set(), [("decision", root)]
    while todo:
        path, obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType)):
            continue
        seen.add(id(obj))
        out.append((path, obj))
        if isinstance(obj, _ATOMS):
            continue
        if isinstance(obj, dict):
            todo.extend((f"{path}[{k!r}]", v) for k, v in obj.items())
            todo.extend((f"{path} key", k) for k in obj)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend((f"{path}[{i}]", v) for i, v in enumerate(obj))
        elif isinstance(obj, types.MethodType):
            todo += [(f"{path}.__self__", obj.__self__), (f"{path}.__func__", obj.__func__)]
        elif isinstance(obj, types.FunctionType):
            todo.extend((f"{path} closure", c.cell_contents) for c in obj.__closure__ or ())
            todo.extend((f"{path} default", v) for v in obj.__defaults__ or ())
            todo.extend((f"{path} default", v) for v in (obj.__kwdefaults__ or {}).values())
        elif not isinstance(obj, types.BuiltinFunctionType):
            names = list(getattr(obj, "__dict__", {}))
            names += [n for c in type(obj).__mro__ for n in getattr(c, "__slots__", ())]
            todo.extend((f"{path}.{n}", getattr(obj, n)) for n in names if hasattr(obj, n))
    return out


def assert_plain_data(decision) -> None:
    """Nothing but plain data and functions of no state is reachable from a Decision: no game,
    no match, no generator, no object that could lead to another seat's hand."""
    from cardarena.server.match import Decision

    for path, obj in reachable(decision):
        assert isinstance(obj, (*_ATOMS, dict, list, tuple, Decision, types.FunctionType,
                                types.BuiltinFunctionType)) or (
            isinstance(obj, types.MethodType) and isinstance(obj.__self__, type)), \
            f"{path} is a {type(obj).__name__}: an in-process bot could reach the game through it"


def _snapshot(d) -> str:
    return json.dumps([d.view, d.actions_json, d.labels, d.events], sort_keys=True)


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_an_in_process_decision_is_exactly_the_remote_one(game_id, players):
    """The Decision that play_match hands a Python bot holds plain data only (no
    path from it reaches the game), its view, actions, labels and events are those of the
    decision the referee sends for the same state (wire bytes decoded by the Python SDK), and it
    is a snapshot: nothing in it changes as the game goes on. One whole game (Three Thirteen: 4
    of its 11 rounds, each round the same kinds of decision, for time); every third decision is
    compared, every 21st walked."""
    from cardarena.client.bot import Decision as RemoteDecision
    from cardarena.server import wire
    from cardarena.v1 import referee_pb2 as pb

    got, rng = [], random.Random(players)

    def bot(d):
        got.append((d, _snapshot(d) if len(got) % 3 == 0 else None))
        return rng.randrange(len(d.actions))

    options = {"rounds": 4} if game_id == "three-thirteen" else None
    rec = play_match(game_id, [bot] * players, seed=17, options=options, match_id="m1")
    assert not rec.faults
    match, k, cache = Match(game_id, players, 17, options, "m1"), 0, {}
    for choices in rec.steps:
        for mine in match.decisions(match.to_act()):
            d, snapshot = got[k]
            k += 1
            if snapshot is None:
                continue
            raw = pb.RefereeMessage.FromString(wire.decision_bytes(
                match.game, "m1", mine.seat, mine.decision_id, mine.view, mine.actions, mine.events,
                1.0, 0.0, cache)).decision
            remote = RemoteDecision(raw)
            assert (d.match_id, d.seat, d.decision_id, d.game_id) == \
                (remote.match_id, remote.seat, remote.decision_id, remote.game)
            assert d.view == remote.view
            assert d.actions_json == remote.actions
            assert d.labels == remote.labels
            assert d.events == remote.events
            assert _snapshot(d) == snapshot, "a decision changed after it was handed out"
            if k % 21 == 1:
                assert_plain_data(d)
        match.step(choices)
    assert k == len(got) == rec.decisions


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_decisions_share_no_live_state_with_the_game(game_id, players):
    """A Decision (as the referee and play_match make it) holds none of the game's
    hands and its own list of the legal actions (a bot that changes it changes nothing in the
    game); what it shares with the game is records the game never changes (event data, shows)."""
    for match in list(itertools.islice(random_playout(game_id, players, seed=8, sample_every=9), 12)):
        game = match.game
        live = {id(h) for h in getattr(game, "hands", ())}
        owned = {id(o): o for _, o in reachable(vars(game)) if isinstance(o, (list, dict, set))}
        for words in (False, True):
            seats = game.to_act()
            for d in match.decisions(seats, words):
                assert_plain_data(d)
                assert d.actions == game.legal_actions(d.seat)
                assert d.actions is not game.legal_actions(d.seat)
                shared = [o for _, o in reachable(d) if id(o) in owned]
                assert not [o for o in shared if id(o) in live], "a hand of the game is in a decision"
                before = json.dumps(shared, default=repr)
                after = game.copy()
                rng = random.Random(1)
                for _ in range(20):
                    if after.is_over():
                        break
                    after.apply({s: rng.choice(after.legal_actions(s)) for s in after.to_act()})
                assert json.dumps(shared, default=repr) == before, "a decision holds live game state"


@pytest.mark.parametrize("game_id", list(games()))
def test_decision_words_come_with_it_or_from_functions_of_the_action(game_id):
    """A Decision keeps a game's action_label / action_json only where they are
    static or class methods (they can read no game's state); otherwise it gets its words when
    it is made (``words=True``, as play_match asks) or has none, and says so."""
    from cardarena.server.match import stateless_words

    cls = games()[game_id]
    match = Match(game_id, cls.min_players, 3)
    seat = match.to_act()[0]
    labels = [match.game.action_label(a) for a in match.game.legal_actions(seat)]
    wire = [match.game.action_json(a) for a in match.game.legal_actions(seat)]
    for fn in stateless_words(cls):
        assert fn is None or getattr(fn, "__self__", cls) is cls
    bare = match.decision(seat)
    for name, fn, want in (("labels", stateless_words(cls)[0], labels),
                           ("actions_json", stateless_words(cls)[1], wire)):
        if fn is None:
            with pytest.raises(LookupError):
                getattr(bare, name)
        else:
            assert getattr(bare, name) == want
    made = match.decision(match.to_act()[0], words=True)
    assert (made.labels, made.actions_json) == (labels, wire)
