"""The engine interface every game implements (DESIGN.md, "The engine interface").

A game is a deterministic state machine, seeded once. The rules live here and nowhere else: no
I/O, no clock, no threads, no global ``random``. Everything a referee, a bot or a researcher
needs goes through these methods:

============================  ==================================================================
``to_act()``                  the seats that must decide now (several: simultaneous, sealed moves)
``legal_actions(seat)``       the complete list of legal actions, in a canonical order
``view(seat)``                a JSON-able dict: everything that seat may know, nothing more
``spectator_view()``          what every seat may know and no seat alone: the public part of the
                              views, under the same keys (the live web page draws it)
``views(seats)``              the views of the seats acting together (optional: may share the
                              public parts between them, which the referee then encodes once)
``apply({seat: action})``     advance the state; returns the :class:`Event` s it produced
``is_over()``, ``result()``   the end, and the final scores and places (ties share a place)
``default_action(seat)``      the game's documented default (RULINGS.md), played on a fault
``resample_hidden(seat, r)``  a copy equally consistent with what ``seat`` knows
``opening_events()``          the events of the setup (the deal), before the first decision
``action_json(a)``            the typed wire form of an action (its proto message as JSON)
``action_label(a)``           the action in the players' words: "play 7♠", "take row 3"
============================  ==================================================================

Actions are small hashable values chosen by each game (ints or tuples); a bot never builds one,
it picks an index into ``legal_actions(seat)``. Views, action JSON and event data use only
``str``, ``int``, ``float``, ``bool``, ``None``, lists and dicts, with cards in their text form
("Q♠"), so the same shape serves the in-process runner, the JSON-lines bridge and the typed
protobuf messages (whose field names are the dict keys).
"""
from __future__ import annotations

import math

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Hashable

Action = Hashable


class GameError(Exception):
    """Base of every error raised by a rules engine."""


class IllegalAction(GameError):
    """An action that is not in the seat's legal actions, or a seat that is not to act."""


class GameOptionError(GameError, ValueError):
    """An unknown game option, or a value out of its range."""


class PlayerCountError(GameError, ValueError):
    """A player count outside the game's range."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as the game's own words in ``data`` (``data["type"]`` names it).

    ``seats`` is who may see it: ``None`` for everybody at the table, else the set of seats (a
    deal is seen by its receiver only). The referee's omniscient log keeps every event.
    """

    data: dict
    seats: frozenset[int] | None = None

    def visible_to(self, seat: int) -> bool:
        return self.seats is None or seat in self.seats


KIND_WORDS = {int: "a whole number", float: "a finite number", bool: "true or false", str: "text"}


@dataclass(frozen=True)
class Option:
    """One game option: its name, default, help text and the values it accepts."""

    name: str
    default: Any
    help: str
    kind: type = int
    choices: tuple | None = None
    minimum: float | None = None
    maximum: float | None = None

    def coerce(self, value: Any) -> Any:
        """The option's value from JSON or a command-line string, checked."""
        try:
            if self.kind is bool and isinstance(value, str):
                low = value.strip().lower()
                if low not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                    raise ValueError(value)
                v: Any = low in ("true", "yes", "1", "on")
            elif self.kind is bool:
                if not isinstance(value, (bool, int)):
                    raise ValueError(value)
                v = bool(value)
            elif self.kind is int and isinstance(value, bool):
                raise ValueError(value)
            else:
                if isinstance(value, float) and not math.isfinite(value):
                    raise ValueError(value)
                v = self.kind(value)
                if isinstance(v, float) and not math.isfinite(v):
                    raise ValueError(value)
        except (TypeError, ValueError, OverflowError):
            raise GameOptionError(
                f"option {self.name}: {value!r} is not {KIND_WORDS.get(self.kind, 'a ' + self.kind.__name__)}"
            ) from None
        if self.choices is not None and v not in self.choices:
            raise GameOptionError(
                f"option {self.name}: {v!r} is not one of {', '.join(map(str, self.choices))}"
            )
        if self.minimum is not None and v < self.minimum:
            raise GameOptionError(f"option {self.name}: {v!r} is below {self.minimum}")
        if self.maximum is not None and v > self.maximum:
            raise GameOptionError(f"option {self.name}: {v!r} is above {self.maximum}")
        return v

    def describe(self) -> dict:
        d = {"name": self.name, "type": self.kind.__name__, "default": self.default, "help": self.help}
        if self.choices is not None:
            d["choices"] = list(self.choices)
        if self.minimum is not None:
            d["minimum"] = self.minimum
        if self.maximum is not None:
            d["maximum"] = self.maximum
        return d


def places_from_scores(scores: Sequence[float], higher_is_better: bool) -> tuple[int, ...]:
    """Competition places (1 = best); equal scores share a place: 10, 7, 7, 3 → 1, 2, 2, 4."""
    key = [(-s if higher_is_better else s) for s in scores]
    return tuple(1 + sum(1 for other in key if other < mine) for mine in key)


@dataclass(frozen=True)
class Result:
    """Final scores (in the game's own unit) and places, one per seat. Place 1 is best."""

    scores: tuple[float, ...]
    places: tuple[int, ...]
    higher_is_better: bool = True
    details: dict = field(default_factory=dict, compare=False)

    @classmethod
    def from_scores(cls, scores: Sequence[float], higher_is_better: bool, **details) -> "Result":
        return cls(tuple(scores), places_from_scores(scores, higher_is_better), higher_is_better, details)

    def winners(self) -> list[int]:
        return [s for s, p in enumerate(self.places) if p == 1]

    def to_json(self) -> dict:
        return {
            "scores": list(self.scores),
            "places": list(self.places),
            "higher_is_better": self.higher_is_better,
        }


class Game(ABC):
    """One match of one game. Subclasses declare the class attributes and implement the rules."""

    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    option_specs: ClassVar[tuple[Option, ...]] = ()
    #: rules texts by language code, file names in server/games/rules (see :meth:`rules_text`).
    rules_texts: ClassVar[dict[str, str]] = {}
    #: the default action of each decision, in words (RULINGS.md), for ``cardarena games``.
    default_policy: ClassVar[str] = ""
    #: the typed wire form: messages ``<proto_name>View`` and ``<proto_name>Action`` in
    #: ``proto/cardarena/v1/<proto_module>.proto``; their JSON equals ``view()`` / ``action_json()``.
    proto_module: ClassVar[str] = ""
    proto_name: ClassVar[str] = ""
    #: the rules engine's version: raised whenever the same seed, options and steps can replay to
    #: other events or another result (a rule fixed, a cap counted differently), so that a match
    #: recorded by another version is told apart from a record that is wrong (``match verify``).
    engine_version: ClassVar[int] = 1

    def __init__(self, players: int, seed: int, options: Mapping[str, Any] | None = None):
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise PlayerCountError(
                f"{self.id} is for {self.min_players}–{self.max_players} players, not {players}"
            )
        self.players = players
        self.seed = seed
        self.options = self.parse_options(options or {})

    # ----- options -------------------------------------------------------------------------
    @classmethod
    def parse_options(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in, every value checked; an unknown name is a :class:`GameOptionError`."""
        specs = {o.name: o for o in cls.option_specs}
        unknown = sorted(set(raw) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise GameOptionError(f"{cls.id} has no option {unknown[0]!r} (options: {known})")
        out = {name: spec.default for name, spec in specs.items()}
        for name, value in raw.items():
            out[name] = specs[name].coerce(value)
        return out

    @classmethod
    def rules_text(cls, lang: str = "en") -> str:
        """The rules text in ``lang`` (a key of ``rules_texts``), for ``cardarena rules``."""
        return (Path(__file__).resolve().parent / "rules" / cls.rules_texts[lang]).read_text("utf-8")

    # ----- the rules -----------------------------------------------------------------------
    @abstractmethod
    def to_act(self) -> tuple[int, ...]: ...

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]: ...

    @abstractmethod
    def view(self, seat: int) -> dict: ...

    def spectator_view(self) -> dict:
        """What a spectator may know: everything every seat may know and nothing any seat alone
        knows (no hand, no card only one seat has seen), under the same keys as :meth:`view`
        with the seat's own keys left out. A JSON-able snapshot; the live web page
        draws it while the match runs. The conformance suite checks it is unchanged by
        ``resample_hidden`` for every seat."""
        raise NotImplementedError(f"{self.id} has no spectator view")

    def views(self, seats: Sequence[int]) -> dict[int, dict]:
        """The views of several seats at one moment (the seats acting together in a step).

        An engine may build the parts every seat sees once and share them between the dicts
        (the same objects); the referee then encodes a shared part once. A view is a snapshot
        nobody may change, so sharing is safe.
        """
        return {s: self.view(s) for s in seats}

    @abstractmethod
    def apply(self, actions: Mapping[int, Action]) -> list[Event]: ...

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> Result: ...

    @abstractmethod
    def default_action(self, seat: int) -> Action: ...

    @abstractmethod
    def action_json(self, action: Action) -> dict: ...

    @abstractmethod
    def action_label(self, action: Action) -> str: ...

    @abstractmethod
    def resample_hidden(self, seat: int, rng: random.Random) -> "Game": ...

    def opening_events(self) -> list[Event]:
        """The events of the setup, before the first decision (the first deal)."""
        return []

    def event_text(self, data: dict) -> str:
        """One event in the players' words, for ``match show`` and ``play`` logs."""
        rest = ", ".join(f"{k} {v}" for k, v in data.items() if k != "type")
        return f"{data.get('type', '?')}: {rest}" if rest else str(data.get("type", "?"))

    def state_json(self) -> dict:
        """An omniscient snapshot of the whole state (logs, audits, tests). Never sent to a bot."""
        return {}

    # ----- helpers for subclasses ----------------------------------------------------------
    def copy(self) -> "Game":
        return copy.deepcopy(self)

    def check_actions(self, actions: Mapping[int, Action]) -> None:
        """Raise :class:`IllegalAction` unless ``actions`` has exactly the seats to act, each legal."""
        seats = self.to_act()
        if len(actions) != len(seats) or any(s not in actions for s in seats):
            raise IllegalAction(
                f"seats to act are {list(seats)}, actions were given for {sorted(actions)}"
            )
        for seat, action in actions.items():
            if action not in self.legal_actions(seat):
                raise IllegalAction(f"seat {seat}: {action!r} is not a legal action now")
