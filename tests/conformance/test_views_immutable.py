"""An in-process bot cannot change a match through what it is handed, in every game and player count.

A hostile bot, at every decision, first takes its choice as a seeded random bot does and then
vandalises everything reachable from the decision: every list of the view, the events, the
actions, the labels and the wire forms is cleared and given a foreign element, every dict gets
every value replaced and a key added, at every depth. The same match is played again by the same
seeded random bot, which only reads. Both must be the same match: the same decisions handed to
every seat (view, events, actions, labels, wire forms, as each seat got them), after every step
the same views of every seat and the same spectator view, the same omniscient log, steps, faults
and result; and vandalising the events ``Match.take_events`` returns at the end changes nothing
either. Played through :func:`play_match` (one decision at a time) and through
``Match.decisions(seats, private=True)`` (the decisions of a step's seats made together, whose
views a game may build from shared parts).

What each match showed is kept as fingerprints (marshal's version 2 bytes are a function of the
value alone: no references, no interning); at the first difference both matches are played again
to keep that one thing whole, and the message names the first place inside it that differs.
"""
from __future__ import annotations

import copy
import hashlib
import marshal
import random

import pytest

import cardarena.server.match as match_module
from cardarena.server.match import Match, play_match

from test_engine_contract import CASES, IDS

FOREIGN = "vandalised"
#: shorter matches where a whole one would take long; every kind of decision still comes
OPTIONS = {"three-thirteen": {"rounds": 2}}


def vandalise(root) -> None:
    """Change every list and dict reachable from ``root``: a list is cleared and holds one foreign
    element, a dict has every value replaced and a foreign key added. Everything is found before
    anything is changed, so the containers below a replaced value are changed too."""
    found, seen, todo = [], set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if type(obj) is dict:
            found.append(obj)
            todo.extend(obj.values())
        elif type(obj) in (list, tuple):
            if type(obj) is list:
                found.append(obj)
            todo.extend(obj)
    for obj in found:
        if type(obj) is dict:
            for key in list(obj):
                obj[key] = FOREIGN
            obj[FOREIGN] = [FOREIGN]
        else:
            obj.clear()
            obj.append(FOREIGN)


class Trace:
    """What a match showed, in order, as fingerprints by kind: ``handed`` (each decision as its
    bot got it), ``shown`` (at the start and after every step: every seat's view and the
    spectator view) and ``end`` (the log, the events taken at the end, the record). The thing at
    ``keep`` (kind, index) is also kept whole."""

    def __init__(self, keep: tuple[str, int] | None = None):
        self.prints: dict[str, list[bytes]] = {"handed": [], "shown": [], "end": []}
        self.keep = keep
        self.kept = None

    def note(self, kind: str, thing) -> None:
        prints = self.prints[kind]
        if self.keep == (kind, len(prints)):
            self.kept = copy.deepcopy(thing)
        prints.append(hashlib.blake2b(marshal.dumps(thing, 2), digest_size=16).digest())


class Seat:
    """A seeded random bot that notes what it is handed and, if ``hostile``, then vandalises it."""

    words = True  # its decisions come with labels and wire forms, which it vandalises too

    def __init__(self, seed: int, hostile: bool, trace: Trace):
        self.rng = random.Random(seed)
        self.hostile = hostile
        self.trace = trace

    def __call__(self, d) -> int:
        self.trace.note("handed", {"seat": d.seat, "view": d.view, "events": d.events,
                                   "actions": d.actions, "labels": d.labels,
                                   "actions_json": d.actions_json})
        index = self.rng.randrange(len(d.actions))
        if self.hostile:
            vandalise([d.view, d.events, d.actions, d.labels, d.actions_json])
        return index


def _shown(match: Match) -> dict:
    game = match.game
    return {"views": [game.view(s) for s in range(match.players)],
            "spectator": game.spectator_view()}


def _log(match: Match) -> list:
    return [[step, ev.data, None if ev.seats is None else sorted(ev.seats)] for step, ev in match.log]


def _end(match: Match, hostile: bool, trace: Trace, record: dict) -> None:
    """Note the log, the events each seat takes at the end (then vandalised if ``hostile``), the
    log again and the record."""
    trace.note("end", {"log": _log(match)})
    for seat in range(match.players):
        events = match.take_events(seat)
        trace.note("end", {f"events seat {seat} takes at the end": events})
        if hostile:
            vandalise(events)
    trace.note("end", {"log after take_events": _log(match)})
    trace.note("end", record)


def through_play_match(game_id: str, players: int, seed: int, hostile: bool, trace: Trace) -> Trace:
    made: list[Match] = []

    class Watched(Match):  # play_match's own Match, watched after every step
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)
            trace.note("shown", _shown(self))

        def step(self, choices):
            events = super().step(choices)
            trace.note("shown", _shown(self))
            return events

    with pytest.MonkeyPatch.context() as m:
        m.setattr(match_module, "Match", Watched)
        bots = [Seat(seed * 31 + s, hostile, trace) for s in range(players)]
        rec = play_match(game_id, bots, seed=seed, options=OPTIONS.get(game_id))
    (match,) = made
    _end(match, hostile, trace, {"steps": rec.steps, "faults": [f.to_json() for f in rec.faults],
                                 "result": rec.result.to_json(), "decisions": rec.decisions})
    return trace


def through_decisions(game_id: str, players: int, seed: int, hostile: bool, trace: Trace) -> Trace:
    match = Match(game_id, players, seed, OPTIONS.get(game_id))
    bots = [Seat(seed * 31 + s, hostile, trace) for s in range(players)]
    trace.note("shown", _shown(match))
    while not match.is_over():
        assert len(match.steps) < 100_000, "the match does not end"
        choices = {d.seat: bots[d.seat](d)
                   for d in match.decisions(match.to_act(), words=True, private=True)}
        match.step(choices)
        trace.note("shown", _shown(match))
    _end(match, hostile, trace, {"steps": match.steps, "result": match.result().to_json()})
    return trace


def _hostile(play, *args) -> Trace:
    """The hostile match; a game that its bot's changes break fails the test."""
    try:
        return play(*args)
    except Exception as exc:
        pytest.fail(f"a bot changing what it was handed broke the match: {type(exc).__name__}: {exc}")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 240 else text[:240] + "…"


def where_they_differ(a, b, path: str = "") -> str:
    """The first place inside two things where they differ, and what is there in each."""
    if type(a) is not type(b):
        return f"{path or 'the whole'}: {_short(a)} vs {_short(b)}"
    if type(a) is dict:
        if list(a) != list(b):
            return f"{path or 'the whole'} keys: {_short(list(a))} vs {_short(list(b))}"
        for key in a:
            if a[key] != b[key]:
                return where_they_differ(a[key], b[key], f"{path}[{key!r}]")
    elif type(a) in (list, tuple):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return where_they_differ(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path or 'the whole'}: {len(a)} items vs {len(b)}: {_short(a)} vs {_short(b)}"
    return f"{path or 'the whole'}: {_short(a)} vs {_short(b)}"


WHAT = {"handed": "decision #{} handed out", "shown": "the views after step {}",
        "end": "the end of the match (part {})"}


def assert_same_match(play, game_id: str, players: int, seed: int) -> Trace:
    clean = play(game_id, players, seed, False, Trace())
    hostile = _hostile(play, game_id, players, seed, True, Trace())
    for kind in ("handed", "shown", "end"):
        a, b = clean.prints[kind], hostile.prints[kind]
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        if i == len(a) == len(b):
            continue
        # both again, to keep the first thing that differs whole
        x = play(game_id, players, seed, False, Trace((kind, i))).kept
        y = _hostile(play, game_id, players, seed, True, Trace((kind, i))).kept
        pytest.fail(f"a bot changed the match by changing what it was handed: {WHAT[kind].format(i)} "
                    f"of {len(a)} (clean) / {len(b)} (hostile) differs, clean vs hostile at "
                    f"{where_they_differ(x, y)}")
    return clean


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_a_bot_changing_its_decision_changes_nothing_in_play_match(game_id, players):
    clean = assert_same_match(through_play_match, game_id, players, 5 + players)
    assert len(clean.prints["handed"]) > players, "the match asked for decisions"


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_a_bot_changing_its_decision_changes_nothing_in_private_decisions(game_id, players):
    assert_same_match(through_decisions, game_id, players, 9 + players)


@pytest.mark.parametrize("game_id,players", CASES, ids=IDS)
def test_a_decision_read_after_the_match_moved_on_is_as_it_was_handed(game_id, players):
    """A private decision copies its view and events when first read (Decision), so the game
    must never change what it handed out: a decision kept and read after later steps reads as
    one read at once."""
    match = Match(game_id, players, 3 + players, OPTIONS.get(game_id))
    rng = random.Random(players)
    held = []
    while not match.is_over():
        decisions = match.decisions(match.to_act(), private=True)
        held += [(d, copy.deepcopy(d._view), copy.deepcopy(d._events)) for d in decisions]
        match.step({d.seat: rng.randrange(len(d.actions)) for d in decisions})
    changed = [d.decision_id for d, view, events in held if d.view != view or d.events != events]
    assert not changed, f"decisions {changed[:5]} read otherwise after the match moved on"
