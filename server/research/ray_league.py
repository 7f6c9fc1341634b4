"""A league between in-process Python bots, its matches played in this process or on Ray.

``cardarena league run --bot NAME=py:MODULE:ATTR … [--ray [ADDRESS]]`` names each bot by where
its Python object is (:func:`load_bot`):

* ``py:MODULE:ATTR``: ATTR of MODULE is a bot as :func:`cardarena.server.match.play_match`
  takes it: a callable ``bot(decision) -> index`` or an object with ``decide(decision)``.
  ``py:MODULE:ATTR(ARGS)`` calls ATTR with ARGS first (Python literals only: numbers, strings,
  lists, ``seed=7``), e.g. ``py:cardarena.server.match:RandomBot(7)``; a class named without
  arguments is made without them (``py:cardarena.server.match:RandomBot``).
  ``py:cardarena.research.ray_league:heuristic("sixth-card")`` is a game's ready-made heuristic.
* ``pettingzoo:MODULE:ATTR[(ARGS)]`` and ``openspiel:MODULE:ATTR[(ARGS)]``: ATTR (or what the
  call returns; a PettingZoo policy's class named without arguments is made without them) is a
  PettingZoo-style policy (``policy(obs) -> action id``) or an OpenSpiel bot or bot factory
  (a class taking the game is a factory), made a bot by
  :func:`cardarena.client.policy.policy_bot` (its determinization seeded with 0).

MODULE is a module name, imported with the folder the league is run from first on the path,
or a ``.py`` file (a path, relative to that folder). A module outside the installed packages is
pickled by value (:func:`cardarena.research.ray_play.pickled`), so Ray's workers need not find
its file.

:class:`InProcessReferee` stands in for the gRPC referee in :func:`cardarena.server.league.run_league`
(and ``resume_league``, ``work_league``): the league is scheduled, claimed, recorded and rated
by the league's own code, in the same ledger tables, with the same secret seeds and deal
commitments, so ``match verify`` and ``ledger check`` treat its matches as any other. Each match
is played by :func:`cardarena.research.ray_play.play_recorded`: every seat a fresh copy of its
bot, unpickled from the pickle made when the league started, so a match's result depends only on
its seed and seating (the same in this process and on Ray). No clock: a bot is never late and
never absent; a bot that raises or answers out of range commits a fault (the default action is
played), counted as the referee counts it, and no seat forfeits. On Ray a match whose worker
dies is played again by Ray (:data:`cardarena.research.ray_play.RETRIES` times at most); past
that it is recorded ``failed`` (``league resume --retry-failed`` plays it again), never lost.
"""
from __future__ import annotations

import ast
import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cardarena.server import deal
from cardarena.server.referee import MatchOutcome, TimeControl

from . import ray_play

__all__ = ["KINDS", "BotSpecError", "InProcessReferee", "heuristic", "is_python_bot", "load_bot", "load_bots"]

#: The prefixes of an in-process bot's ``--bot NAME=…``: ``py`` a bot, the others a policy's kind.
KINDS = ("py", "pettingzoo", "openspiel")


class BotSpecError(ValueError):
    """A ``--bot NAME=py:…`` that names no usable bot (one line)."""


def is_python_bot(command: str | None) -> bool:
    """Whether a ``--bot`` command names an in-process Python bot (``py:``, ``pettingzoo:``, ``openspiel:``)."""
    if not command:
        return False
    kind, sep, _ = command.partition(":")
    return bool(sep) and kind in KINDS


def _import(where: str, workdir: Path):
    """The module named by a module name or a ``.py`` file (relative to ``workdir``)."""
    if where.endswith(".py") or "/" in where:
        path = (workdir / where).resolve()
        if not path.is_file():
            raise BotSpecError(f"no Python file {where} (in {workdir})")
        name = f"cardarena_bots_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # pickle (by value) finds it by its name
        try:
            spec.loader.exec_module(module)
        except Exception as e:  # noqa: BLE001 - the module's own error, in one line
            del sys.modules[name]
            raise BotSpecError(f"{where} cannot be imported: {type(e).__name__}: {e}") from None
        return module
    sys.path.insert(0, str(workdir))
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as e:
        if e.name and (where == e.name or where.startswith(e.name + ".")):
            raise BotSpecError(f"no Python module {where!r} (looked in {workdir} and the installed packages)") from None
        raise BotSpecError(f"module {where} cannot be imported: {type(e).__name__}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the module's own error, in one line
        raise BotSpecError(f"module {where} cannot be imported: {type(e).__name__}: {e}") from None
    finally:
        try:
            sys.path.remove(str(workdir))
        except ValueError:
            pass


def _resolve(module, target: str, where: str):
    """``ATTR``, ``ATTR.SUB`` or ``ATTR(literal args)`` of the module."""
    try:
        node = ast.parse(target, mode="eval").body
    except SyntaxError:
        raise BotSpecError(f"{target!r} is not ATTR or ATTR(ARGS)") from None
    call = node if isinstance(node, ast.Call) else None
    path = []
    at = call.func if call else node
    while isinstance(at, ast.Attribute):
        path.append(at.attr)
        at = at.value
    if not isinstance(at, ast.Name):
        raise BotSpecError(f"{target!r} is not ATTR or ATTR(ARGS)")
    path.append(at.id)
    obj = module
    for name in reversed(path):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            raise BotSpecError(f"{where} has no {'.'.join(reversed(path))}") from None
    if call is None:
        return obj
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except ValueError:
        raise BotSpecError(f"{target!r}: the arguments must be Python literals (numbers, strings, lists, …)") from None
    if None in kwargs:
        raise BotSpecError(f"{target!r}: **arguments are not taken")
    try:
        return obj(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the call's own error, in one line
        raise BotSpecError(f"{target} raised {type(e).__name__}: {e}") from None


def _takes_one(fn) -> bool:
    """Whether ``fn`` can be called with one argument, the decision (True when it cannot be told)."""
    try:
        inspect.signature(fn).bind(None)
    except TypeError:
        return False
    except ValueError:  # a builtin without a signature
        return True
    return True


def load_bot(command: str, workdir: str | Path | None = None) -> Any:
    """The bot a ``py:`` / ``pettingzoo:`` / ``openspiel:`` command names (module docstring);
    :class:`BotSpecError` in one line if it names none."""
    kind, _, rest = command.partition(":")
    where, sep, target = rest.partition(":")
    if kind not in KINDS or not sep or not where.strip() or not target.strip():
        raise BotSpecError(f"{command!r}: give {kind or 'py'}:MODULE:ATTR or {kind or 'py'}:MODULE:ATTR(ARGS)")
    folder = Path(workdir or Path.cwd())
    module = _import(where.strip(), folder)
    obj = _resolve(module, target.strip(), where.strip())
    if kind != "openspiel" and inspect.isclass(obj):  # a bot's (a policy's) class: one made without arguments
        try:
            obj = obj()
        except Exception as e:  # noqa: BLE001 - the class's own error, in one line
            raise BotSpecError(f"{target.strip()}() raised {type(e).__name__}: {e} (give its arguments: "
                               f"{target.strip()}(ARGS))") from None
    if kind != "py":
        from cardarena.client.policy import ResearchExtraMissing, policy_bot
        try:
            obj = policy_bot(obj, kind=kind, seed=0)
        except ResearchExtraMissing as e:
            raise BotSpecError(str(e)) from None
    decide = getattr(obj, "decide", obj)
    if not callable(decide) or not _takes_one(decide):
        raise BotSpecError(f"{where}:{target} is a {type(obj).__name__}, not a bot: give a callable "
                           "bot(decision) -> index or an object with decide(decision)")
    return obj


def load_bots(commands: Mapping[str, str], workdir: str | Path | None = None) -> dict[str, Any]:
    """Every named bot (:func:`load_bot`); the error names the bot."""
    bots = {}
    for name, command in commands.items():
        try:
            bots[name] = load_bot(command, workdir)
        except BotSpecError as e:
            raise BotSpecError(f"bot {name}: {e}") from None
    return bots


def heuristic(game_id: str):
    """The game's ready-made heuristic (:mod:`cardarena.client.strategies`) as an in-process bot:
    ``--bot NAME='py:cardarena.research.ray_league:heuristic("sixth-card")'``."""
    from cardarena.client.strategies import for_game
    from cardarena.server.match import StrategyBot
    return StrategyBot(for_game(game_id))


class InProcessReferee:
    """The league's referee for in-process bots (module docstring): ``play`` as
    :meth:`cardarena.server.referee.Referee.play` is called by the league, the match played by
    :func:`~cardarena.research.ray_play.play_recorded` in this process (one match at a time,
    in a thread beside the league's event loop) or as a Ray task (``ray``: True once
    :func:`~cardarena.research.ray_play.connect` has joined Ray)."""

    def __init__(self, bots: Mapping[str, Any], ray: bool = False):
        self.time_control = TimeControl()
        self.blobs = ray_play.pickled(bots)
        self.ray = ray
        self._pool = None if ray else ThreadPoolExecutor(1, thread_name_prefix="cardarena-match")
        self._task = ray_play.remote(ray_play.play_recorded) if ray else None
        self._policies = ray_play._ray().put(self.blobs) if ray else None

    # what the league asks of a referee about its bots: in-process bots are always there
    def is_connected(self, bot: str) -> bool:
        return bot in self.blobs

    def mark_absent(self, bot: str) -> None:  # never asked: every bot of the league is here
        pass

    async def _played(self, game_id: str, bots: Sequence[str], seed: int, options: dict, match_id: str):
        if not self.ray:
            return await asyncio.get_running_loop().run_in_executor(
                self._pool, ray_play.play_recorded, game_id, self.blobs, list(bots), seed, options, match_id)
        from ray import exceptions as rx
        try:
            return await self._task.remote(game_id, self._policies, list(bots), seed, options, match_id)
        except rx.RayTaskError as e:  # the match's own error (the engine's): its first line
            cause = getattr(e, "cause", None) or e
            text = str(cause).strip().splitlines()
            raise RuntimeError(f"{type(cause).__name__}: {text[-1] if text else ''}") from None
        except rx.RayError as e:  # its worker died more often than Ray plays a task again
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise RuntimeError(f"lost on Ray {ray_play.RETRIES + 1} times ({type(e).__name__}: {first})") from None

    async def play(self, game_id: str, bots: Sequence[str], seed: int, options: Mapping | None = None,
                   match_id: str = "", time_control: TimeControl | None = None, on_events=None, *,
                   salt: str | None = None, reveal=True, sealed: bool = False) -> MatchOutcome:
        """Play one match of the league; its outcome as the ledger records it (the deal committed
        to with ``salt``, as the referee commits to it; nobody is sent it in-process)."""
        started = time.monotonic()
        rec = await self._played(game_id, bots, seed, dict(options or {}), match_id)
        salt = salt or deal.new_salt()
        return MatchOutcome(match_id, game_id, list(bots), seed, rec.options, rec.result, rec.faults,
                            [False] * len(bots), rec.steps, rec.events, rec.fault_log,
                            time.monotonic() - started, rec.decisions, rec.latencies, salt,
                            deal.commitment(game_id, match_id, seed, salt))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
