"""Fixed action ids and observation tensors: what PettingZoo, OpenSpiel and most learners need.

A :class:`Codec` is made for one game, one player count and one set of options. It works on JSON
only, the very dicts a bot receives (``view(seat)`` and ``action_json(a)`` in-process, or
``decision.view`` and ``decision.actions`` over gRPC), so it can encode nothing a seat may not
know, and a policy trained in-process sees the same numbers when it plays in the arena.

The contract each game's codec keeps (tests/research checks it on every game and player count):
every action the game can ever offer has an id in ``range(num_actions)``; two legal actions of
one decision never share an id, and :meth:`Codec.pick` finds the legal action of an id;
``observe(view)`` is a finite float32 array of ``observation_shape``, its parts named by
``layout()``; ``mask(actions_json)`` is 1 exactly at the ids of the legal actions.
:meth:`Codec.engine_ids` gives the ids of an engine's own actions in-process, remembered per
action (an engine's ``action_json`` is a function of the action alone).

Game codecs are registered by game id in ``CODEC_MODULES`` (module ``cardarena.research.codec_<x>``
defines ``CODEC``, a class or a dict of them by game id); :func:`codec` makes one. The rewards of a
finished match, shared by the PettingZoo and OpenSpiel layers, are here too: :func:`place_rewards`
and :func:`score_rewards`.

This module and the codecs run compiled with mypyc where ``make research`` built them
(compiled.py says which runs); the code is typed for that, and the same as Python.

Design notes and measurements: docs/research.md (spaces).
"""
from __future__ import annotations

import importlib
import threading
from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np

from cardarena.research import compiled
from cardarena.server.games import Result, get as get_game

#: game id → module (in this package) that defines its codec class as ``CODEC``
CODEC_MODULES: dict[str, str] = {
    "sixth-card": "codec_sixth_card",
    "unsorted": "codec_unsorted",
    "scouting": "codec_show_scout",
    "scout": "codec_show_scout",
    "three-thirteen": "codec_three_thirteen",
}

#: engine actions whose ids a codec remembers at most (then it starts again)
MEMO_LIMIT = 1 << 16


_T = TypeVar("_T")


def python_class(cls: _T) -> _T:
    """Keeps a class a Python class when mypyc compiles its module (compile_codecs.py; mypyc
    makes native classes of the rest, but not of a class with a decorator it does not know): its
    methods are compiled, but its attributes stay in a ``__dict__``, so ``vars()`` lists them,
    it pickles as before, a Python class may derive from it and its methods can be replaced
    (bench/research.py --floor)."""
    return cls


#: how many items a Tally looks back from the end of a list for the start it shares with the last
LOOK_BACK = 6


@python_class
class Tally:
    """A codec's counts of the cells of a view's list that changes at its end only (a round's
    discards, its discard pile, its shows), kept per seat: ``entries`` gives the cells and their
    values as counting every item would, counting only the items added or taken away since the
    list that seat's last view (in this thread) held, when the two lists start alike up to their
    last few items, and every item otherwise.

    ``owner.<method>(seat, *slices)`` (``cells``): the cells of the items of slices of the
    list(s), as ``seat`` sees them (an item may have several); ``values[i][k]``: what ``k`` items
    at cell ``i`` add up to (the method is named, not given: a compiled codec's methods do not
    pickle). Lists are compared by value, and what it keeps are copies of them, never the view's
    (items the engines share between views, such as a round's shows, they never change)."""

    __slots__ = ("owner", "method", "cells", "values", "_kept")

    def __init__(self, owner: object, method: str, values: Sequence[Any]):
        self.owner, self.method = owner, method
        self.cells: Callable[..., Iterable[int]] = getattr(owner, method)
        self.values = values
        # (thread, seat) → (lists, at, val, slot, counts)
        self._kept: dict[tuple[int, int], tuple[list[list[Any]], list[int], list[float], dict[int, int],
                                                dict[int, int]]] = {}

    def entries(self, seat: int, *lists: list[Any]) -> tuple[list[int], list[float]]:
        """(cells, values) of the items of ``lists`` (parallel lists: item j is their j-th
        elements), each cell once. The lists returned are kept: copy them at once."""
        key = (threading.get_ident(), seat)
        kept = self._kept.get(key)
        if kept is not None:
            seen, at, val, slot, counts = kept
            old, new = len(seen[0]), len(lists[0])
            if new >= old and _grown(lists, seen):  # the list as it was, or grown at its end
                if new > old:
                    self._add(self.cells(seat, *[b[old:] for b in seen]), at, val, slot, counts)
                return at, val
            common = min(old, new)  # the items both lists start with: at most a few less
            for _ in range(LOOK_BACK):
                if common > 0 and _start_alike(lists, seen, common):
                    if old > common:
                        self._remove(self.cells(seat, *[b[common:] for b in seen]), at, val, slot, counts)
                    if new > common:
                        self._add(self.cells(seat, *[a[common:] for a in lists]), at, val, slot, counts)
                    if old != common or new != common:
                        self._kept[key] = ([list(a) for a in lists], at, val, slot, counts)
                    return at, val
                common -= 1
        at, val, slot, counts = [], [], {}, {}
        self._add(self.cells(seat, *lists), at, val, slot, counts)
        if len(self._kept) > 256:
            self._kept.clear()
        self._kept[key] = ([list(a) for a in lists], at, val, slot, counts)
        return at, val

    def __getstate__(self) -> tuple:
        return self.owner, self.method, self.values  # what it kept is this process's, its threads'

    def __setstate__(self, state: tuple) -> None:
        self.owner, self.method, self.values = state
        self.cells = getattr(self.owner, self.method)
        self._kept = {}

    def _add(self, cells: Iterable[int], at: list[int], val: list[float], slot: dict[int, int],
             counts: dict[int, int]) -> None:
        values = self.values
        for i in cells:
            k = counts.get(i, 0) + 1
            counts[i] = k
            j = slot.get(i)
            if j is None:
                slot[i] = len(at)
                at.append(i)
                val.append(values[i][k])
            else:
                val[j] = values[i][k]

    def _remove(self, cells: Iterable[int], at: list[int], val: list[float], slot: dict[int, int],
                counts: dict[int, int]) -> None:
        values = self.values
        for i in cells:
            k = counts[i] - 1
            if k:
                counts[i] = k
                val[slot[i]] = values[i][k]
            else:  # the cell's last item: its entry goes, the last entry takes its place
                del counts[i]
                j = slot.pop(i)
                last, value = at.pop(), val.pop()
                if j < len(at):
                    at[j], val[j] = last, value
                    slot[last] = j


def _grown(lists: tuple[list[Any], ...], seen: list[list[Any]]) -> bool:
    """Whether each list is its kept copy with items added at its end, if any; the copies are
    then made equal to the lists (else left as they were). Compares each list whole, without
    making a list of its first items."""
    sizes = [len(b) for b in seen]
    for a, b, k in zip(lists, seen, sizes):
        if len(a) > k:
            b += a[k:]
    for a, b in zip(lists, seen):
        if a != b:
            for c, k in zip(seen, sizes):
                del c[k:]
            return False
    return True


def _start_alike(lists: tuple[list[Any], ...], seen: list[list[Any]], common: int) -> bool:
    """Whether each list's first ``common`` items are those of its kept copy."""
    for a, b in zip(lists, seen):  # (a list that is its first items whole, not sliced)
        if (a if len(a) == common else a[:common]) != (b if len(b) == common else b[:common]):
            return False
    return True


@python_class
class Codec(ABC):
    """Action ids and observation tensors of one game at one player count and set of options."""

    game_id: ClassVar[str] = ""

    def __init__(self, players: int, options: Mapping[str, Any] | None = None):
        cls = get_game(self.game_id)
        if not cls.min_players <= players <= cls.max_players:
            from cardarena.server.games import PlayerCountError
            raise PlayerCountError(f"{self.game_id} is for {cls.min_players}–{cls.max_players} players, not {players}")
        self.players = players
        self.options = cls.parse_options(options or {})
        self._ids_of: dict[Any, int] = {}  # engine action → id (engine_ids)

    # ----- actions ----------------------------------------------------------------------------
    num_actions: int

    @abstractmethod
    def action_id(self, action_json: Mapping) -> int:
        """The fixed id of an action, from its wire JSON (``game.action_json(a)``)."""

    @abstractmethod
    def action_json_of(self, action_id: int) -> dict:
        """The action JSON an id stands for (what :meth:`action_id` inverts). Fields that follow
        from the id alone; where a legal action's JSON carries more (the cards a block holds),
        use :meth:`pick` to find the legal action with that id."""

    def ids(self, actions_json: Sequence[Mapping]) -> list[int]:
        """The ids of a decision's legal actions, in their order."""
        return [self.action_id(a) for a in actions_json]

    def engine_ids(self, game: Any, actions: Sequence[Any]) -> list[int]:
        """The ids of an engine's legal actions, in their order: ``action_id(game.action_json(a))``,
        remembered per action (the engines' ``action_json`` is a function of the action alone,
        and their actions are hashable tuples)."""
        known = self._ids_of
        try:
            return [known[a] for a in actions]
        except KeyError:
            pass
        if len(known) > MEMO_LIMIT:
            known.clear()
        ids = []
        for a in actions:
            i = known.get(a)
            if i is None:
                i = known[a] = self.action_id(game.action_json(a))
            ids.append(i)
        return ids

    def mask(self, actions_json: Sequence[Mapping]) -> np.ndarray:
        m = np.zeros(self.num_actions, dtype=np.int8)
        m[self.ids(actions_json)] = 1
        return m

    def pick(self, actions_json: Sequence[Mapping], action_id: int) -> int:
        """The index in ``actions_json`` of the legal action with id ``action_id``
        (:class:`ValueError` if none has it)."""
        for i, a in enumerate(actions_json):
            if self.action_id(a) == action_id:
                return i
        raise ValueError(f"{self.game_id}: action id {action_id} is not legal now")

    # ----- observations -----------------------------------------------------------------------
    observation_shape: tuple[int, ...]
    #: whether :meth:`encode` gives float32 values only (floats a float32 holds exactly), so that
    #: :meth:`tensor_list` need not round them
    float32_values: ClassVar[bool] = False

    def encode(self, view: Mapping) -> tuple[list[int], list[int], list[float]]:
        """The view's tensor, flat, as ``(ones, at, values)``: the indices that hold 1 (an index
        may come twice), and the indices ``at`` (each once, none among ``ones``) that hold
        ``values``; every other value is 0. A game's codec implements this (or :meth:`observe`);
        the tensor's forms below are made from it."""
        if type(self).observe is Codec.observe:
            raise NotImplementedError(f"{type(self).__name__} implements neither encode nor observe")
        tensor = self.observe(view).ravel()
        at = np.flatnonzero(tensor)
        return [], at.tolist(), tensor[at].tolist()

    def observe(self, view: Mapping) -> np.ndarray:
        """The view as a float32 array of :attr:`observation_shape`."""
        out = np.zeros(self.observation_shape, dtype=np.float32)
        self.observe_into(view, out.reshape(-1))
        return out

    def observe_into(self, view: Mapping, out: np.ndarray) -> None:
        """Writes the view's tensor into ``out``, a flat float32 array of zeros of its size."""
        ones, at, values = self.encode(view)
        if ones:
            out.put(ones, 1.0)
        if at:
            out.put(at, values)

    def tensor_list(self, view: Mapping) -> list[float]:
        """The flat tensor as a list of floats, each a float32 value (OpenSpiel's tensors)."""
        ones, at, values = self.encode(view)
        # the items as objects (Any): compiled, a float item would be unboxed and boxed anew
        out: list[Any] = [0.0] * self.size
        one: Any = 1.0
        for i in ones:
            out[i] = one
        rounded: list[Any] = values if self.float32_values else array("f", values).tolist()
        for j in range(len(at)):
            out[at[j]] = rounded[j]
        return out

    def _lay_out(self, parts: Sequence[tuple[str, int]]) -> None:
        """Set the tensor's parts, (name, length) in order: ``_parts``, ``_start`` (name → first
        index), ``size`` and ``observation_shape`` (one flat vector)."""
        self._parts = list(parts)
        self._start: dict[str, int] = {}
        at = 0
        for name, size in self._parts:
            self._start[name] = at
            at += size
        self.size = at
        self.observation_shape = (at,)

    def layout(self) -> list[tuple[str, int, int]]:
        """The tensor's parts as (name, start, length) over the flattened array, in order."""
        return [(name, self._start[name], size) for name, size in self._parts]


def codec(game_id: str, players: int, options: Mapping[str, Any] | None = None) -> Codec:
    """The codec of ``game_id`` at ``players`` seats with ``options``."""
    get_game(game_id)  # UnknownGame names the known ids
    mod = importlib.import_module(f"{__package__}.{CODEC_MODULES[game_id]}")
    return mod.CODEC[game_id](players, options) if isinstance(mod.CODEC, dict) else mod.CODEC(players, options)


# ----- rewards ---------------------------------------------------------------------------------

def place_rewards(result: Result) -> list[float]:
    """+1 for first … −1 for last, linear in the place; tied seats share the mean of the places
    they cover, so the rewards sum to 0 (a lone seat's table would get 0)."""
    n = len(result.places)
    if n == 1:
        return [0.0]
    out = []
    for p in result.places:
        tied = result.places.count(p)
        mean_place = p + (tied - 1) / 2  # competition places: the tie covers p … p + tied − 1
        out.append(1.0 - 2.0 * (mean_place - 1) / (n - 1))
    return out


def score_scale(game_id: str, options: Mapping[str, Any]) -> float:
    """What :func:`score_rewards` divides a final score by: about one whole match's score."""
    if game_id == "sixth-card":
        return float(options.get("end_score", 66))
    return {"three-thirteen": 100.0, "scout": 10.0, "scouting": 10.0}.get(game_id, 1.0)


def score_rewards(result: Result, scale: float) -> list[float]:
    """The final scores, higher is better (negated where fewer points win), divided by ``scale``."""
    sign = 1.0 if result.higher_is_better else -1.0
    return [sign * s / scale for s in result.scores]


# the compiled build of this module in its place, if it is current (compiled.py)
compiled.take(__name__)
