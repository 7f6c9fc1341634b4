"""Many in-process matches of given policies at once: on Ray (a local Ray of this process, or a
cluster) or in this process, with the same results either way.

:func:`play_many` plays matches of one game between in-process bots, the bots
:func:`cardarena.server.match.play_match` takes (``bot(decision) -> index``, or an object with
``decide``; a PettingZoo- or OpenSpiel-style policy made a bot by
:func:`cardarena.client.policy.policy_bot`): self-play, evaluation against a field, many seeds::

    from cardarena.research.ray_play import play_many
    from cardarena.server.match import RandomBot, StrategyBot
    from cardarena.client.strategies import for_game

    bots = {"heur": StrategyBot(for_game("sixth-card")), "rand": RandomBot(1)}
    results = play_many("sixth-card", bots, range(1000), seats=2, options={"rounds": 1})
    results[0].seating, results[0].places                  # ('heur', 'rand'), (1, 1): a tie
    sum(p.places[p.seating.index("heur")] == 1 for p in results)   # 839 of 1000 won or tied

The rules:

* Each match is played by ``play_match``, the engines' own loop: a bot that raises, or answers
  something that is not the index of a legal action, commits a fault in its own match and the
  game's default action is played for it. There is no clock in-process.
* Every seat of every match plays its own copy of its policy, unpickled from the pickle made
  once when ``play_many`` is called. So a match depends only on the game, its options, its seed,
  its seating and the policies as they were given, never on what a worker played before or
  where: the results are the same on Ray, on any number of workers, and in this process
  (``in_process=True``). A policy that draws from a global generator (``random``,
  ``np.random``) instead of its own seeded one is not repeatable anywhere.
* Policies must pickle. With Ray installed they are pickled with Ray's cloudpickle, and the
  modules of the user's own that a policy's classes and functions come from (any module
  neither cardarena's nor installed under this Python: a script's, a file beside it, one found
  through a ``sys.path`` changed at run time) are pickled by value, so that the workers, which
  have none of these files on their path (nor, on other machines, the files at all), need not
  import them. Installed packages (numpy, a trained model's library) must be installed on
  every node, as Ray requires.
* A worker that dies (killed, out of memory, its node lost) loses the matches it was playing:
  Ray plays them again on another worker (each task retried up to :data:`RETRIES` times) from
  the same seeds with fresh copies of the policies, so the results are those it would have
  given, and each match is in the results exactly once.

:func:`connect` starts or joins Ray for this process: ``address=None`` a Ray of its own on this
machine (``ray.init(address="local")``), ``"auto"`` the cluster ``ray start`` runs here,
``HOST:PORT`` a cluster's head (its GCS port), ``ray://HOST:PORT`` a cluster through Ray
Client. Leagues of such bots (``cardarena league run --bot NAME=py:MODULE:ATTR --ray ADDRESS``)
play their matches through :mod:`cardarena.research.ray_league`.
"""
from __future__ import annotations

import io
import logging
import math
import pickle
import socket
import sys
import time
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardarena.server.match import Fault, play_match

__all__ = ["Played", "RayMissing", "RayUnavailable", "Recorded", "Table", "check_address", "connect", "pickled",
           "play_many", "play_recorded", "play_tables", "remote", "shutdown", "tables_of"]

#: How many times Ray plays a task again whose worker died before it finished.
RETRIES = 10

INSTALL = "pip install 'ray>=2.40'"


class RayMissing(ImportError):
    """Ray is not installed here."""


class RayUnavailable(RuntimeError):
    """No Ray to play on: the address answers nothing, or Ray refused to start or join (one line)."""


@dataclass(frozen=True)
class Table:
    """One match to play: its seed and who sits where (the policies' keys, seat by seat)."""

    seed: int
    seating: tuple


@dataclass(frozen=True)
class Played:
    """A match played by :func:`play_many`: its seed and seating, and what came of it (by seat)."""

    seed: int
    seating: tuple
    scores: tuple
    places: tuple
    faults: tuple      # faults committed, by seat
    decisions: int     # decisions asked of the bots
    steps: int         # steps of the game (a sealed step asks several seats at once)


@dataclass
class Recorded:
    """A whole match as a league's ledger records it (:func:`play_recorded`)."""

    options: dict
    result: Any                       # the game's Result (scores, places, details)
    faults: list[int]                 # by seat
    steps: list[dict[int, int]]
    events: list[dict]                # the omniscient log, as the referee records it
    fault_log: list[Fault]
    decisions: int
    latencies: list[list[float]] = field(default_factory=list)  # by seat: each answer's seconds


# ----------------------------------------------------------------------------- the policies


def _cloudpickle():
    """Ray's cloudpickle when Ray is installed (what Ray itself ships functions with), else None."""
    try:
        from ray import cloudpickle
    except ImportError:
        return None
    return cloudpickle


def _outside_packages(name: str) -> bool:
    """Whether Ray's workers may fail to import the module ``name``: it is neither cardarena's
    nor under this Python's installation (the standard library, site-packages), so it is a
    file of the user's own, found through the driver's path (a script's folder, the working
    folder, ``sys.path`` changed at run time) that a worker does not have."""
    root_name = name.split(".")[0]
    module, root = sys.modules.get(name), sys.modules.get(root_name)
    if module is None or root_name in ("cardarena", "__main__", "builtins"):
        return False
    file = getattr(root, "__file__", None) or getattr(module, "__file__", None)
    if not file:
        return False
    installed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return not any(parent in installed for parent in Path(file).resolve().parents)


def _by_value(policy: Any, cp) -> None:
    """Have cloudpickle pickle by value the modules of the user's own that ``policy`` refers to
    (:func:`_outside_packages`): the classes and functions it is made of travel with it."""
    found: set[str] = set()

    class Finder(cp.CloudPickler):
        def persistent_id(self, obj):  # called for every object pickled: note where it comes from
            kind = obj if isinstance(obj, (type, types.FunctionType)) else type(obj)
            found.add(getattr(kind, "__module__", None) or "")
            return None

    try:
        Finder(io.BytesIO(), protocol=5).dump(policy)
    except Exception:  # noqa: BLE001 - it does not pickle: said by the real pickling below
        pass
    for name in sorted(found):
        if _outside_packages(name):
            root = sys.modules[name.split(".")[0]]
            if root.__name__ not in cp.list_registry_pickle_by_value():
                cp.register_pickle_by_value(root)


def pickled(policies: Mapping[Any, Any] | Sequence[Any]) -> dict[Any, bytes]:
    """Each policy pickled once, by key (a sequence's keys are its indices): the form a worker
    gets them in, and makes each seat's copy from. With Ray installed, by Ray's cloudpickle,
    with the modules of the user's own it refers to pickled by value (module docstring)."""
    items = policies.items() if isinstance(policies, Mapping) else enumerate(policies)
    cp = _cloudpickle()
    out = {}
    for key, policy in items:
        if not (callable(policy) or callable(getattr(policy, "decide", None))):
            raise TypeError(f"policy {key!r} is not a bot: give a callable bot(decision) -> index, or an object "
                            "with decide(decision)")
        if cp is not None:
            _by_value(policy, cp)
        try:
            out[key] = cp.dumps(policy, protocol=5) if cp else pickle.dumps(policy, protocol=5)
        except Exception as e:  # noqa: BLE001 - any pickling failure, said in one line
            raise TypeError(f"policy {key!r} does not pickle ({type(e).__name__}: {e}); a policy goes to "
                            "its workers pickled") from None
    return out


def _seat(blobs: Mapping[Any, bytes], seating: Sequence, game: str, options: Mapping | None,
          match_id: str) -> list:
    """Fresh copies of the seated policies, one a seat; a policy bot is told its match."""
    bots = [pickle.loads(blobs[key]) for key in seating]
    for bot in bots:
        start = getattr(bot, "start", None)
        if start is not None and hasattr(bot, "on_start"):  # cardarena.client.policy's PolicyBot
            start(match_id, game, len(bots), dict(options or {}))
    return bots


class _Timed:
    """A bot whose answers are timed (a league's latency per seat); it plays as the bot does."""

    __slots__ = ("_decide", "words", "seconds")

    def __init__(self, bot: Any):
        self._decide = getattr(bot, "decide", bot)
        self.words = getattr(bot, "words", True)
        self.seconds: list[float] = []

    def __call__(self, decision) -> int:
        t0 = time.perf_counter()
        answer = self._decide(decision)  # a raise is a fault, not a latency
        self.seconds.append(time.perf_counter() - t0)
        return answer


# ----------------------------------------------------------------------------- the matches (on a worker or here)


def _faults_by_seat(faults: Sequence[Fault], players: int) -> list[int]:
    counts = [0] * players
    for f in faults:
        counts[f.seat] += 1
    return counts


def play_tables(game: str, blobs: Mapping[Any, bytes], tables: Sequence[Table],
                options: Mapping | None = None) -> list[Played]:
    """Play the tables one after another in this process (what a Ray task of :func:`play_many`
    runs, and ``in_process=True``)."""
    out = []
    for t in tables:
        bots = _seat(blobs, t.seating, game, options, "")
        rec = play_match(game, bots, t.seed, options)
        out.append(Played(t.seed, tuple(t.seating), tuple(rec.result.scores), tuple(rec.result.places),
                          tuple(_faults_by_seat(rec.faults, len(bots))), rec.decisions, len(rec.steps)))
    return out


def play_recorded(game: str, blobs: Mapping[Any, bytes], seating: Sequence, seed: int,
                  options: Mapping | None = None, match_id: str = "") -> Recorded:
    """Play one match of a league and return all that its record holds (a Ray task of a
    league, or run in this process)."""
    timed = [_Timed(b) for b in _seat(blobs, seating, game, options, match_id)]
    rec = play_match(game, timed, seed, options, match_id)
    events = [{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
              for step, ev in rec.log]
    return Recorded(dict(rec.options), rec.result, _faults_by_seat(rec.faults, len(timed)), rec.steps, events,
                    rec.faults, rec.decisions, [t.seconds for t in timed])


def tables_of(matches: int | Iterable, keys: Sequence, seats: int | None = None) -> list[Table]:
    """The tables of :func:`play_many`'s ``matches`` (see there)."""
    if isinstance(matches, int):
        matches = range(matches)
    tables = []
    known = set(keys)
    for i, m in enumerate(matches):
        if isinstance(m, Table):
            unknown = [k for k in m.seating if k not in known]
            if unknown:
                raise ValueError(f"match {i} seats {unknown[0]!r}, which is not one of the policies")
            tables.append(Table(int(m.seed), tuple(m.seating)))
            continue
        if isinstance(m, bool) or not isinstance(m, int):
            raise TypeError(f"match {i}: give a seed (a whole number) or a Table, not {m!r}")
        if seats is None:
            seating = tuple(keys)
        else:  # the policies take the seats in turn: match i starts with policy i (mod their number)
            seating = tuple(keys[(i + j) % len(keys)] for j in range(seats))
        tables.append(Table(m, seating))
    return tables


# ----------------------------------------------------------------------------- Ray


def _ray():
    try:
        import ray
    except ImportError:
        raise RayMissing(f"playing on Ray needs Ray: {INSTALL}") from None
    return ray


def check_address(address: str | None) -> None:
    """ValueError (one line) for an address that is none of :func:`connect`'s forms."""
    if address in (None, "local", "auto"):
        return
    scheme, sep, hostport = address.rpartition("://")
    host, colon, port = hostport.rpartition(":")
    if (sep and scheme != "ray") or not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"the Ray address {address!r} is none of local, auto, HOST:PORT, ray://HOST:PORT")


def _reachable(address: str) -> None:
    """A HOST:PORT (or ray://HOST:PORT) that answers a TCP connection, else one line."""
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as e:
        raise RayUnavailable(f"no Ray cluster answers at {address}: {e.strerror or e}") from None


def connect(address: str | None = None, num_workers: int | None = None, **init: Any):
    """Ray for this process (the ``ray`` module), started or joined once: ``address`` None or
    ``"local"``: a Ray of its own on this machine with ``num_workers`` CPUs (default: all);
    ``"auto"``: the cluster ``ray start`` runs on this machine; ``HOST:PORT``: a cluster's head;
    ``ray://HOST:PORT``: Ray Client. ``init``: more of ``ray.init``'s keywords (``runtime_env``).
    Raises ValueError for an address of none of these forms, :class:`RayMissing` or
    :class:`RayUnavailable` (one line each)."""
    check_address(address)
    ray = _ray()
    if ray.is_initialized():
        return ray
    local = address in (None, "local")
    if not local and address != "auto":
        _reachable(address)
    kwargs = dict(log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
    if local:
        kwargs.update(address="local", num_cpus=num_workers, include_dashboard=False)
    else:
        kwargs.update(address=address)
    kwargs.update(init)
    try:
        ray.init(**kwargs)
    except Exception as e:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError, its own
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        where = "start a local Ray" if local else f"join the Ray cluster at {address}"
        raise RayUnavailable(f"cannot {where}: {first}") from None
    return ray


_REMOTE: dict = {}


def remote(fn):
    """``fn`` as a Ray task of one CPU, played again (up to :data:`RETRIES` times) if its worker dies."""
    ray = _ray()
    task = _REMOTE.get(fn)
    if task is None:
        task = _REMOTE[fn] = ray.remote(num_cpus=1, max_retries=RETRIES)(fn)
    return task


def _on_ray(game: str, blobs: dict, tables: list[Table], options: Mapping | None, num_workers: int | None,
            chunk: int | None) -> list[Played]:
    ray = _ray()
    workers = num_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = chunk or max(1, min(64, math.ceil(len(tables) / (4 * workers))))
    chunks = [tables[i:i + size] for i in range(0, len(tables), size)]
    task = remote(play_tables)
    policies = ray.put(blobs)
    results: list[list[Played] | None] = [None] * len(chunks)
    waiting: dict = {}
    limit = num_workers or len(chunks)  # num_workers: at most that many tasks at once
    nxt = 0
    while nxt < len(chunks) or waiting:
        while nxt < len(chunks) and len(waiting) < limit:
            waiting[task.remote(game, policies, chunks[nxt], options)] = nxt
            nxt += 1
        done, _ = ray.wait(list(waiting), num_returns=1)
        for ref in done:
            results[waiting.pop(ref)] = ray.get(ref)
    return [p for part in results for p in part]


def play_many(game: str, policies: Mapping[Any, Any] | Sequence[Any], matches: int | Iterable, *,
              seats: int | None = None, options: Mapping | None = None, address: str | None = None,
              num_workers: int | None = None, in_process: bool = False, chunk: int | None = None) -> list[Played]:
    """Play matches of ``game`` between in-process bots; their results, in the order of ``matches``.

    ``policies``: bots by name (a mapping) or a list (keyed by index). ``matches``: a number
    ``N`` (seeds 0 … N − 1), seeds, or :class:`Table` s (a seed and a seating each). With seeds,
    every match seats all the policies in their order, or with ``seats=K`` tables of K where
    match ``i`` seats policies ``i, i + 1, …`` (mod their number): ``seats=4`` with one policy
    is self-play. ``options``: the game's. ``address``: where Ray runs (:func:`connect`; None:
    a Ray of this process's own); ``num_workers``: that many workers at most (a local Ray gets
    that many CPUs); ``in_process=True``: no Ray, every match here, one after another (the same
    results). ``chunk``: matches per Ray task (default: about four tasks a worker, at most 64
    matches each).
    """
    from cardarena.server.games import get

    try:
        cls = get(game)
    except KeyError as e:
        raise ValueError(str(e).strip("'\"")) from None
    blobs = pickled(policies)
    tables = tables_of(matches, list(blobs), seats)
    for t in tables:
        if not cls.min_players <= len(t.seating) <= cls.max_players:
            raise ValueError(f"{game} is for {cls.min_players}–{cls.max_players} players, not {len(t.seating)} "
                             f"(the match of seed {t.seed})")
    if not tables:
        return []
    if num_workers is not None and num_workers < 1:
        raise ValueError("num_workers must be at least 1")
    if in_process:
        return play_tables(game, blobs, tables, options)
    connect(address, num_workers)
    return _on_ray(game, blobs, tables, options, num_workers, chunk)


def shutdown() -> None:
    """Leave Ray (a local Ray of this process stops); the next :func:`connect` starts or joins again."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    _REMOTE.clear()
