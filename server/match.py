"""One match, step by step: the core that the in-process runner and the gRPC referee share.

:class:`Match` owns a game, hands out :class:`Decision` s for the seats to act, applies the
chosen indices, keeps the omniscient event log and the list of steps (the choices by index), and
collects the events each seat has seen since its last decision. It knows nothing of clocks or
networks: the referee adds deadlines, faults and transport around it.

:func:`play_match` plays a whole match in-process with Python bots, for researchers and tests.
A bot is any callable ``bot(decision) -> int`` (an index into ``decision.actions``) or an
object with such a ``decide`` method. The :class:`Decision` it gets holds exactly what a remote
bot is sent, and no way back into the game: its view and events are its own copies, so a bot
that changes them changes nothing else. A bot that raises, or answers something that is not
an index of a legal action, commits a *fault*: the game's default action is played for it and
the fault is counted, exactly as the referee does for a remote bot (never a silent correction).

Replays: the seed, the options and ``steps`` replay a match exactly (:func:`replay`).
"""
from __future__ import annotations

import copy
import inspect
import marshal
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .games import Event, Game, Result, new_game


def plain_copy(data: Any) -> Any:
    """A deep copy of plain data (dicts, lists, tuples, str, int, float, bool, None), as views
    and event data are: a marshal round trip, the fastest of the copies measured on the games'
    views and events (three to six times as fast as ``copy.deepcopy``, and faster than pickle
    or a recursive function); anything marshal cannot write is deep-copied."""
    try:
        return marshal.loads(marshal.dumps(data))
    except ValueError:
        return copy.deepcopy(data)


class Decision:
    """What one seat must decide now, and nothing else: exactly what a remote bot is sent.

    The ids, the seat's view, the legal actions (``actions``: the engine's own immutable forms,
    by which a choice is applied, in a list of the decision's own; ``actions_json``: their typed
    wire forms; ``labels``: in words), and the events the seat saw since its last decision. A
    Decision holds plain data only, never the game: an in-process bot can reach no other seat's
    hand through it (the conformance suite walks everything reachable from it, and compares it
    with the decision the referee sends for the same state).

    ``view`` and ``events`` are the decision's own copies: the game's views may share parts with
    the game's records and with other seats' views, and an event's data is one dict in the
    omniscient log and in every seat's events, so a bot that changes what it reads changes
    nothing else (tests/conformance/test_views_immutable.py). Made with ``lent=True`` (as
    :meth:`Match.decisions` makes them with ``private=True``), a decision holds the game's own
    objects until ``view`` or ``events`` is first read and copies each then, so a bot that never
    reads them (:class:`RandomBot`) pays for no copy; the game never changes what it handed out.
    Without it (the referee's, which encodes them at once) they are the game's and the log's
    own objects, which nobody may change.

    Where a game's ``action_label`` / ``action_json`` are static or class methods (functions of
    the action alone, which can read no game's state) the decision keeps those functions and
    makes its labels / wire forms on first use, so a bot that only counts the actions pays for
    none. The others are made with the decision when it is asked for with ``words=True``
    (play_match does so for every bot but one whose ``words`` attribute is false); without it
    (the referee, which encodes the actions itself) asking for them raises :class:`LookupError`.
    """

    __slots__ = ("match_id", "game_id", "seat", "decision_id", "_view", "actions", "_events",
                 "time_left", "_lent", "_labels", "_actions_json", "_label_of", "_json_of")

    def __init__(self, match_id: str, game_id: str, seat: int, decision_id: int, view: dict,
                 actions: list, events: list[dict], time_left: float | None = None, *,
                 labels: list[str] | None = None, actions_json: list[dict] | None = None,
                 label_of: Callable[[Any], str] | None = None,
                 json_of: Callable[[Any], dict] | None = None, lent: bool = False):
        self.match_id = match_id
        self.game_id = game_id
        self.seat = seat
        self.decision_id = decision_id
        self._view = view
        self.actions = actions
        self._events = events
        self.time_left = time_left
        #: bits of what is still the game's own object, copied when first read: 1 view, 2 events
        self._lent = 3 if lent else 0
        self._labels = labels
        self._actions_json = actions_json
        self._label_of = label_of
        self._json_of = json_of

    @property
    def view(self) -> dict:
        """The seat's view: everything it may know now (the decision's own copy)."""
        if self._lent & 1:
            self._view = plain_copy(self._view)
            self._lent &= ~1
        return self._view

    @view.setter
    def view(self, value: dict) -> None:
        self._view = value
        self._lent &= ~1

    @property
    def events(self) -> list[dict]:
        """The events the seat saw since its last decision, oldest first (the decision's own
        copies)."""
        if self._lent & 2:
            self._events = plain_copy(self._events)
            self._lent &= ~2
        return self._events

    @events.setter
    def events(self, value: list[dict]) -> None:
        self._events = value
        self._lent &= ~2

    @property
    def labels(self) -> list[str]:
        """Each legal action in the players' words, in the same order as ``actions``."""
        if self._labels is None:
            label = _words(self._label_of, "labels")
            self._labels = [label(a) for a in self.actions]
        return self._labels

    @property
    def actions_json(self) -> list[dict]:
        """Each legal action in its typed wire form (as in the protocol)."""
        if self._actions_json is None:
            wire = _words(self._json_of, "actions_json")
            self._actions_json = [wire(a) for a in self.actions]
        return self._actions_json

    def __repr__(self) -> str:
        return f"Decision(match={self.match_id!r}, seat={self.seat}, id={self.decision_id}, {len(self.actions)} actions)"


def _words(fn: Callable | None, what: str) -> Callable:
    """The stateless function a Decision keeps for ``what``, or a clear error without one."""
    if fn is None:
        raise LookupError(f"this decision was made without its {what} "
                          "(Match.decisions(..., words=True) makes them)")
    return fn


@lru_cache(maxsize=None)
def stateless_words(cls: type) -> tuple[Callable | None, Callable | None]:
    """The game class's ``action_label`` and ``action_json`` where they are static or class
    methods (they read no game's state, so a Decision may keep them); ``None`` for each that is
    an instance method, whose words are made with the decision."""
    def kept(name: str) -> Callable | None:
        plain = isinstance(inspect.getattr_static(cls, name), (staticmethod, classmethod))
        return getattr(cls, name) if plain else None
    return kept("action_label"), kept("action_json")


Bot = Callable[[Decision], int]


@dataclass
class Fault:
    """A seat's answer that could not be used; the default action was played instead."""

    seat: int
    step: int
    kind: str  # "late", "out-of-range", "error", "malformed", ...
    detail: str

    def to_json(self) -> dict:
        return {"seat": self.seat, "step": self.step, "kind": self.kind, "detail": self.detail}


class Match:
    """A game being played: decisions out, chosen indices in, every event logged."""

    def __init__(self, game_id: str, players: int, seed: int,
                 options: Mapping[str, Any] | None = None, match_id: str = ""):
        self.game: Game = new_game(game_id, players, seed, options)
        self.game_id = game_id
        self.players = players
        self.seed = seed
        self.options = dict(self.game.options)
        self.match_id = match_id
        #: the omniscient log: (step number, event); step 0 is the setup.
        self.log: list[tuple[int, Event]] = []
        #: the choices, as ``{seat: index into legal_actions(seat)}``, one dict per step.
        self.steps: list[dict[int, int]] = []
        self.faults: list[Fault] = []
        self._unseen: list[list[dict]] = [[] for _ in range(players)]
        self._decision_counter = 0
        self._record(self.game.opening_events())

    def _record(self, events: Sequence[Event]) -> None:
        step = len(self.steps)
        unseen = self._unseen
        for ev in events:
            self.log.append((step, ev))
            if ev.seats is None:
                for box in unseen:
                    box.append(ev.data)
            else:
                for s in ev.seats:
                    unseen[s].append(ev.data)

    def is_over(self) -> bool:
        return self.game.is_over()

    def result(self) -> Result:
        return self.game.result()

    def to_act(self) -> tuple[int, ...]:
        return self.game.to_act()

    def decision(self, seat: int, time_left: float | None = None, words: bool = False,
                 private: bool = True) -> Decision:
        """The decision for ``seat`` now; the seat's unseen events are handed over with it. Its
        view and events are its own copies unless ``private`` is false (see :meth:`decisions`)."""
        (d,) = self.decisions((seat,), words, private)
        d.time_left = time_left
        return d

    def decisions(self, seats: Sequence[int], words: bool = False,
                  private: bool = False) -> list[Decision]:
        """The decisions of several seats acting together (one step), in the order given. Each
        gets its own list of the legal actions (never the game's). ``words``: make the labels
        and wire forms that need the game's state now (see :class:`Decision`); the referee
        encodes them itself.

        ``private``: each decision's view and events become its own copies (made when first
        read), as a decision handed to Python code must be. Without it, as the referee asks (it
        encodes them at once and hands them to no Python code), they are the game's and the
        log's own objects, which nobody may change: the views may share their public parts
        (``Game.views``), which the referee encodes once, and the events' ids key its cache of
        their bytes (wire.decision_bytes), which copies would break: a copy freed after its
        step leaves its id to a later event's copy, which would be sent the older bytes."""
        game = self.game
        views = game.views(seats)
        label_of, json_of = stateless_words(type(game))
        out = []
        for seat in seats:
            self._decision_counter += 1
            events, self._unseen[seat] = self._unseen[seat], []
            actions = list(game.legal_actions(seat))
            labels = [game.action_label(a) for a in actions] if words and label_of is None else None
            wire = [game.action_json(a) for a in actions] if words and json_of is None else None
            out.append(Decision(self.match_id, game.id, seat, self._decision_counter, views[seat],
                                actions, events, labels=labels, actions_json=wire,
                                label_of=label_of, json_of=json_of, lent=private))
        return out

    def take_events(self, seat: int, private: bool = True) -> list[dict]:
        """The events ``seat`` has not been handed yet (for the match end): copies, unless
        ``private`` is false (then the log's own dicts, which nobody may change)."""
        events, self._unseen[seat] = self._unseen[seat], []
        return plain_copy(events) if private and events else events

    def default_index(self, seat: int) -> int:
        game = self.game
        return game.legal_actions(seat).index(game.default_action(seat))

    def step(self, choices: Mapping[int, int]) -> list[Event]:
        """Apply one index per seat to act; an index out of range raises ``IndexError``."""
        game = self.game
        actions = {}
        for seat, index in choices.items():
            legal = game.legal_actions(seat)
            if not 0 <= index < len(legal):
                raise IndexError(f"seat {seat}: choice {index} is not in 0…{len(legal) - 1}")
            actions[seat] = legal[index]
        events = game.apply(actions)
        self.steps.append(dict(choices))
        self._record(events)
        return events


def _decide(bot: Any, decision: Decision) -> int:
    decide = getattr(bot, "decide", bot)
    return decide(decision)


@dataclass
class MatchRecord:
    """Everything a finished in-process match leaves: enough to replay and to rate it."""

    game_id: str
    players: int
    seed: int
    options: dict
    result: Result
    steps: list[dict[int, int]]
    log: list[tuple[int, Event]]
    faults: list[Fault] = field(default_factory=list)
    decisions: int = 0


def play_match(game_id: str, bots: Sequence[Any], seed: int = 0,
               options: Mapping[str, Any] | None = None, match_id: str = "",
               max_steps: int = 1_000_000) -> MatchRecord:
    """Play one match in-process; ``bots[i]`` plays seat ``i``.

    A bot whose attribute ``words`` is false reads only the number of actions (as
    :class:`RandomBot`): its decisions come without the labels and wire forms that would need
    the game's state (``Decision.labels`` may then raise :class:`LookupError`).
    """
    match = Match(game_id, len(bots), seed, options, match_id)
    words = [getattr(bot, "words", True) for bot in bots]
    decisions = 0
    while not match.is_over():
        if len(match.steps) >= max_steps:
            raise RuntimeError(f"{game_id}: no end after {max_steps} steps")
        choices = {}
        for seat in match.to_act():
            d = match.decision(seat, words=words[seat])
            decisions += 1
            legal = len(d.actions)  # counted before the bot, which may change its list
            try:
                index = _decide(bots[seat], d)
            except Exception as exc:  # a bot's error is a fault in its own match
                index = None
                match.faults.append(Fault(seat, len(match.steps), "error", f"{type(exc).__name__}: {exc}"))
            else:
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < legal:
                    match.faults.append(Fault(seat, len(match.steps), "out-of-range",
                                              f"answered {index!r}, legal are 0…{legal - 1}"))
                    index = None
            choices[seat] = match.default_index(seat) if index is None else index
        match.step(choices)
    return MatchRecord(game_id, match.players, seed, match.options, match.result(), match.steps,
                       match.log, match.faults, decisions)


def replay(game_id: str, players: int, seed: int, options: Mapping[str, Any] | None,
           steps: Sequence[Mapping[int, int]]) -> Match:
    """Replay recorded steps from the seed; returns the match in its final state."""
    match = Match(game_id, players, seed, options)
    for choices in steps:
        match.step({int(s): int(i) for s, i in choices.items()})
    return match


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    #: it reads only ``len(decision.actions)``: play_match makes no words for it (see there)
    words = False

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def __call__(self, decision: Decision) -> int:
        return self.rng.randrange(len(decision.actions))


class StrategyBot:
    """An in-process bot from a strategy ``choose(view, actions) -> index`` over the wire forms.

    Strategies in :mod:`cardarena.client.strategies` take the view dict and the actions' JSON,
    exactly what a remote bot receives, so the same code plays in-process and over gRPC.
    """

    def __init__(self, choose: Callable[[dict, list[dict]], int]):
        self.choose = choose

    def __call__(self, decision: Decision) -> int:
        return self.choose(decision.view, decision.actions_json)
