"""Live matches played at a pace a person can follow, behind a spectator delay.

A ladder match lasts under a second, so a live stream plays its match step by step at a pace
(seconds a step, 0 to :data:`MAX_PACE`; 0: each step as it is played), from the deal to the
end, also once the match itself has ended. With a spectator delay of S seconds (``serve
--spectator-delay``) a frame is released S seconds after its step was played, as chess
broadcasts do, and so is the end.

:class:`Timeline` is what the web keeps of a match of this process's referee: the time of each
step and, while it runs and for the last few that ended, what rebuilds it (its seed and steps:
held on the server, never shown). :class:`Rebuilt` rebuilds the spectator frames from those, or
from the ledger once the match is finished and its deal spent: ``Game.spectator_view()`` and
the events every seat saw, never a hand. :func:`played` is one stream at a pace.

Design notes: docs/web.md (live, "At a pace, behind a delay").
"""
from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from ..games import UnknownGame, get as get_game, new_game
from ..replay import ReplayError

log = logging.getLogger(__name__)

MAX_PACE = 10.0     # seconds a step at most (the query's bound and --live-pace's)
DEFAULT_PACE = 1.0  # seconds a step unless the server or the query says otherwise
EVERY = 32          # a rebuilt match keeps its game every EVERY steps: a frame costs at most that many
MEMO = 64           # frames a rebuilt match keeps as built (a page draws the frame its stream just sent)


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One server-sent event (its data is one line of JSON, or the JSON text given)."""
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return f"{head}data: {data if isinstance(data, str) else _json(data)}\n\n".encode()


class Clock:
    """The time of paces and delays: monotonic seconds (a test gives one it moves by hand)."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(eq=False)
class Timeline:
    """A match of this process's referee as the web keeps it (module docstring). Changed on the
    event loop only; a thread may read it (``times`` grows, ``ended`` is set once)."""

    id: str
    game: str
    bots: tuple[str, ...]
    started: str         # when it started, ISO 8601 UTC
    times: array         # the clock time of each frame: the deal's at times[0], step k's at times[k]
    sealed: bool = False  # a rotation of a duplicate set: its frames show no table
    ladder: bool = False  # a ladder match (``serve --ladder``); known only under a delay
    source: tuple | None = None  # (players, seed, options, steps, faults): the server's only
    ended: dict | None = None    # its ``end`` event, once it has ended
    ended_at: float | None = None
    _wake: asyncio.Event | None = field(default=None, repr=False)

    def step_at(self, cutoff: float) -> int:
        """The last step played by the clock time ``cutoff``; -1 before the match started."""
        return bisect_right(self.times, cutoff) - 1

    def running_at(self, cutoff: float) -> bool:
        return self.times[0] <= cutoff and (self.ended_at is None or self.ended_at > cutoff)

    def to_json(self, step: int, league: int | None = None) -> dict:
        """The match as the listing shows it, at ``step``."""
        return {"id": self.id, "game": self.game, "league": league,
                "seats": [{"seat": s, "bot": b} for s, b in enumerate(self.bots)],
                "step": step, "started": self.started}

    def changed(self) -> asyncio.Event:
        """An event set at the match's next step or its end (on the loop)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        return self._wake

    def touch(self) -> None:
        if self._wake is not None:
            self._wake.set()
            self._wake = None


class Rebuilt:
    """A match's spectator frames rebuilt from its seed, options and steps. ``steps`` and
    ``faults`` may grow while the match runs (the referee's own lists, only read here). Safe to
    share between threads; a frame costs at most :data:`EVERY` steps to rebuild."""

    def __init__(self, match_id: str, game_id: str, players: int, seed: int, options, steps: list,
                 faults: list, sealed: bool = False):
        self.match_id, self.game_id, self.sealed = match_id, game_id, sealed
        self.steps, self.faults = steps, faults
        game = new_game(game_id, players, seed, options)
        events = list(game.opening_events())
        self._checkpoints: dict[int, tuple[Any, list]] = {0: (game.copy(), events)}
        self._cursor: tuple[int, Any, list] = (0, game, events)
        self._memo: OrderedDict[int, tuple[dict, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def frames(self) -> int:
        """The frames there are now: the deal's and one a step played."""
        return len(self.steps) + 1

    def frame(self, k: int) -> tuple[dict, bytes]:
        """Frame ``k`` (after ``k`` steps; 0: the deal) as data and as its ``frame`` event."""
        with self._lock:
            hit = self._memo.get(k)
            if hit is None:
                game, events = self._game_at(k)
                text = _json(self._frame(game, events, k))  # encoded at once: the game changes on
                hit = self._memo[k] = (json.loads(text), sse("frame", text, k))
                while len(self._memo) > MEMO:
                    self._memo.popitem(last=False)
            self._memo.move_to_end(k)
            return hit

    def _game_at(self, k: int) -> tuple[Any, list]:
        """The game at step ``k`` and the events that made it, made the cursor (lock held)."""
        if not 0 <= k < self.frames():
            raise IndexError(f"match {self.match_id} has frames 0–{self.frames() - 1}, not {k}")
        at, game, events = self._cursor
        mark = min(k - k % EVERY, max(self._checkpoints))  # the last checkpoint at or before k
        if not mark <= at <= k:
            saved, events = self._checkpoints[mark]
            at, game = mark, saved.copy()
        while at < k:
            events = self._apply(game, at)
            at += 1
            if at % EVERY == 0 and at not in self._checkpoints:
                self._checkpoints[at] = (game.copy(), events)
        self._cursor = (at, game, events)
        return game, events

    def _apply(self, game, k: int) -> list:
        actions = {}
        for seat, index in self.steps[k].items():
            legal = game.legal_actions(int(seat))
            if not 0 <= int(index) < len(legal):
                raise ReplayError(f"step {k + 1} of match {self.match_id} does not replay")
            actions[int(seat)] = legal[int(index)]
        return list(game.apply(actions))

    def _frame(self, game, events: list, k: int) -> dict:
        """As the live feed builds a frame (live.frame); the faults of the steps before ``k``."""
        over = game.is_over()
        faults = [f if isinstance(f, dict) else f.to_json() for f in list(self.faults)]
        head = {"match": self.match_id, "game": self.game_id, "step": k,
                "to_act": [] if over else list(game.to_act()), "over": over}
        faults = faults if over else [f for f in faults if f["step"] < k]
        if self.sealed:
            return {**head, "sealed": True, "view": None, "events": [], "faults": faults}
        return {**head, "view": game.spectator_view(),
                "events": [game.event_text(ev.data) for ev in events if ev.seats is None], "faults": faults}


def from_record(m) -> Rebuilt | None:
    """A match of the ledger rebuilt, if it may be shown in full and can be: finished, its deal
    spent, its log kept, recorded by this release's engine of its game; else None."""
    if m.status != "finished" or not m.deal_spent or m.pruned_at is not None:
        return None
    try:
        current = get_game(m.game).engine_version
    except UnknownGame:
        return None
    details = m.result_details or {}
    if details.get("engine_version", 1) != current:
        return None
    return Rebuilt(str(m.id), m.game, len(m.bots), m.seed, m.options, list(m.steps), list(details.get("faults", [])))


@dataclass
class Showing:
    """What is shown of one match: its timeline (a match of this process's referee, while it
    runs and a while after), its frames (None: its end alone) and, for a match known from the
    ledger alone, its end."""

    timeline: Timeline | None
    rebuilt: Rebuilt | None
    end: dict | None = None

    @property
    def game(self) -> str:
        return self.timeline.game if self.timeline is not None else self.end["game"]

    @property
    def bots(self) -> list[str]:
        return list(self.timeline.bots if self.timeline is not None else self.end["bots"])

    def frames(self) -> int:
        n = self.rebuilt.frames() if self.rebuilt is not None else 0
        return n if self.timeline is None else min(n, len(self.timeline.times))

    def ended(self) -> dict | None:
        return self.timeline.ended if self.timeline is not None else self.end

    def release(self, k: int, delay: float) -> float:
        """The clock time frame ``k`` is shown from (a match known from the ledger alone: at once)."""
        return self.timeline.times[k] + delay if self.timeline is not None else float("-inf")

    def end_release(self, delay: float) -> float:
        tl = self.timeline
        return tl.ended_at + delay if tl is not None and tl.ended_at is not None else float("-inf")

    def latest(self, now: float, delay: float) -> tuple[int, bool]:
        """The last frame released by ``now`` (-1: none yet), and whether the end is."""
        if self.timeline is None:
            return self.frames() - 1, self.end is not None
        k = min(self.timeline.step_at(now - delay), self.frames() - 1)
        return k, self.timeline.ended is not None and self.end_release(delay) <= now


async def _until(clock: Clock, due: float, heartbeat: float) -> bool:
    """Wait until the clock reaches ``due``; False if ``heartbeat`` seconds passed first."""
    while (wait := due - clock.now()) > 0:
        try:
            await asyncio.wait_for(clock.sleep(wait), heartbeat)
        except TimeoutError:
            return False
    return True


async def played(show: Showing, clock: Clock, delay: float, pace: float, start: int | None,
                 heartbeat: float) -> AsyncIterator[bytes]:
    """One stream at a pace: frames from step ``start`` (None: the latest released; nothing but
    the end once that is released), each released ``delay`` after its step was played and sent
    at least ``pace`` after the one before, then the end; a heartbeat every ``heartbeat`` seconds
    of waiting. A frame that cannot be rebuilt ends the frames (the end still comes)."""
    from starlette.concurrency import run_in_threadpool  # here: `serve --no-web` reads MAX_PACE only
    rebuilt = show.rebuilt
    if start is None:
        latest, end_out = show.latest(clock.now(), delay)
        start = show.frames() if end_out else max(latest, 0)
    k, last = start, None
    beat = sse("heartbeat", {})
    while True:
        if rebuilt is not None and k < show.frames():
            due = show.release(k, delay) if last is None else max(show.release(k, delay), last + pace)
            if not await _until(clock, due, heartbeat):
                yield beat
                continue
            try:
                _, encoded = await run_in_threadpool(rebuilt.frame, k)
            except Exception:  # noqa: BLE001 - a record that does not rebuild: its end is still shown
                log.exception("match %s: frame %d could not be rebuilt", show.rebuilt.match_id, k)
                rebuilt = None
                continue
            yield encoded
            last, k = clock.now(), k + 1
            continue
        end = show.ended()
        if end is None:  # it runs: wait for its next step
            try:
                await asyncio.wait_for(show.timeline.changed().wait(), heartbeat)
            except TimeoutError:
                yield beat
            continue
        due = show.end_release(delay) if last is None else max(show.end_release(delay), last + pace)
        if not await _until(clock, due, heartbeat):
            yield beat
            continue
        yield sse("end", end)
        return
