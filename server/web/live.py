"""Live matches as a spectator sees them: the running matches of the referee in
this process (``cardarena serve``), each watchable while it plays, public information only.

Routes: ``GET /api/v1/live`` (the running matches), ``GET /api/v1/matches/{id}/live``
(server-sent events: ``frame``, ``heartbeat``, then ``end``), ``GET /matches/{id}/live`` (the
page, drawn on the server; ``static/live.js`` follows the stream) and
``/matches/{id}/live/table`` (the table as an HTML fragment). Under ``cardarena web`` (no
referee in the process) every live answer is a 404 that says live matches are shown by
``cardarena serve``.

What a spectator gets is ``Game.spectator_view()``, the events every seat saw in words, the
seats to act and the faults: never a hand, a seed or a token. A rotation of a duplicate set
shares its deal with rotations still to play: its frames hold the step, the seats to act and
the faults only (``"sealed": true``).

:class:`Live` is one watcher of the referee (``Referee.watchers``): it builds each frame on the
event loop and at once, and a slow reader loses frames (a queue holds at most :data:`QUEUED`),
never slows or stops the match.

Design notes and measurements: docs/web.md (live).
"""
from __future__ import annotations

import asyncio
import json
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from cardarena.ratings import LedgerError

from .deps import ledger_of, referee_of, templates
from .replay import _hidden_hand

router = APIRouter()

HEARTBEAT = 15.0     # seconds between heartbeats of a quiet stream
QUEUED = 256         # frames a watcher's queue holds (the oldest dropped first)
ENDED_KEPT = 256     # ends of finished matches remembered
REFRESH = 5          # seconds between reloads of the page without JavaScript
NO_REFEREE = ("no live matches here: this server reads a ledger only (cardarena web); "
              "live matches are shown by `cardarena serve`")


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One server-sent event (its data is one line of JSON)."""
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return f"{head}data: {_json(data)}\n\n".encode()


@dataclass
class Entry:
    """A running match as the listing shows it (``step`` is set on the loop after each step)."""

    id: str
    game: str
    bots: tuple[str, ...]
    started: str
    step: int = 0

    def to_json(self, league: int | None = None) -> dict:
        return {"id": self.id, "game": self.game, "league": league,
                "seats": [{"seat": s, "bot": b} for s, b in enumerate(self.bots)],
                "step": self.step, "started": self.started}


def frame(run, events) -> dict:
    """A running match at its latest step, as a spectator may see it (built on the loop). A
    match whose deal other matches still play (a rotation of a duplicate set: ``run.sealed``)
    shows its step and faults only: its table would deal the others' hands."""
    match = run.match
    game = match.game
    over = game.is_over()
    if getattr(run, "sealed", False):
        return {"match": match.match_id, "game": match.game_id, "step": len(match.steps),
                "to_act": [] if over else list(game.to_act()), "over": over, "sealed": True, "view": None,
                "events": [], "faults": [f.to_json() for f in run.fault_log]}
    return {"match": match.match_id, "game": match.game_id, "step": len(match.steps),
            "to_act": [] if over else list(game.to_act()), "over": over,
            "view": game.spectator_view(),
            "events": [game.event_text(ev.data) for ev in events if ev.seats is None],
            "faults": [f.to_json() for f in run.fault_log]}


def end_of(match_id: str, game: str, bots, status: str, steps: int, places, scores) -> dict:
    """The ``end`` event of a match: how it ended and where it is public in full now."""
    ended = {"match": match_id, "game": game, "bots": list(bots), "status": status, "steps": steps,
             "places": places, "scores": scores, "match_page": f"/matches/{match_id}"}
    if status == "finished":
        ended["replay_page"] = f"/matches/{match_id}/replay"
    return ended


class Watcher:
    """One open stream's queue: at most :data:`QUEUED` encoded events, the oldest dropped."""

    def __init__(self):
        self.queue: deque[tuple[str, bytes]] = deque(maxlen=QUEUED)
        self.wake = asyncio.Event()

    def put(self, kind: str, data: bytes) -> None:
        self.queue.append((kind, data))
        self.wake.set()


@dataclass
class Feed:
    """A watched match: its watchers and its latest frame (as data and as an encoded event)."""

    watchers: set[Watcher] = field(default_factory=set)
    latest: dict | None = None

    def push(self, data: dict) -> None:
        self.latest = data
        encoded = sse("frame", data, data["step"])
        for w in self.watchers:
            w.put("frame", encoded)


class Live:
    """The referee's watcher for the web (module docstring): the listing, the feeds, the ends."""

    def __init__(self, referee):
        self.entries: dict[str, Entry] = {}
        self.snapshot: tuple[Entry, ...] = ()
        self.feeds: dict[str, Feed] = {}
        self.ended: OrderedDict[str, dict] = OrderedDict()
        self.last_frames: OrderedDict[str, dict] = OrderedDict()  # a watched match's final frame
        self.runs = referee.runs
        for run in list(referee.runs.values()):  # matches that started before the app
            self._start(run)
        referee.watchers.add(self)

    def _start(self, run) -> None:
        m = run.match
        self.entries[m.match_id] = Entry(m.match_id, m.game_id, tuple(run.bots),
                                         datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                         len(m.steps))
        self.snapshot = tuple(self.entries.values())

    def __call__(self, kind: str, run, events: list) -> None:
        match_id = run.match.match_id
        if kind == "start":
            self._start(run)
        entry = self.entries.get(match_id)
        if entry is not None:
            entry.step = len(run.match.steps)
        feed = self.feeds.get(match_id)
        if feed is not None and kind != "end":
            feed.push(frame(run, events))
        if kind == "end":
            self.entries.pop(match_id, None)
            self.snapshot = tuple(self.entries.values())
            result = run.result
            ended = end_of(match_id, run.match.game_id, run.bots, "finished" if result is not None else "stopped",
                           len(run.match.steps),
                           None if result is None else list(result.places),
                           None if result is None else list(result.scores))
            _remember(self.ended, match_id, ended)
            if feed is not None:
                if feed.latest is not None:
                    _remember(self.last_frames, match_id, feed.latest)
                encoded = sse("end", ended)
                for w in feed.watchers:
                    w.put("end", encoded)
                del self.feeds[match_id]

    def join(self, match_id: str) -> Watcher:
        """A new watcher of a running match; its queue starts with the current frame."""
        feed = self.feeds.setdefault(match_id, Feed())
        if feed.latest is None or feed.latest["step"] != len(self.runs[match_id].match.steps):
            feed.latest = self.current(match_id)
        w = Watcher()
        w.put("frame", sse("frame", feed.latest, feed.latest["step"]))
        feed.watchers.add(w)
        return w

    def leave(self, match_id: str, w: Watcher) -> None:
        feed = self.feeds.get(match_id)
        if feed is not None:
            feed.watchers.discard(w)
            if not feed.watchers:
                del self.feeds[match_id]  # nobody watches: no more frames are built

    def current(self, match_id: str) -> dict:
        """The running match's frame now: its latest one if it is watched, else built now."""
        feed = self.feeds.get(match_id)
        run = self.runs[match_id]
        if feed is not None and feed.latest is not None and feed.latest["step"] == len(run.match.steps):
            return feed.latest
        k = len(run.match.steps)
        step_events = []
        for step, ev in reversed(run.match.log):  # the events of step k, at the log's end
            if step != k:
                break
            step_events.append(ev)
        return frame(run, step_events[::-1])


def _remember(kept: OrderedDict, key: str, value: dict) -> None:
    kept[key] = value
    while len(kept) > ENDED_KEPT:
        kept.popitem(last=False)


def install(app: FastAPI) -> None:
    """Include the live routes in ``app`` and, with a referee, watch it (on the loop's thread,
    or before the loop runs: the referee's state is touched here)."""
    referee = app.state.referee
    app.state.live = Live(referee) if referee is not None else None
    app.include_router(router)


def _live(request: Request) -> Live:
    live = getattr(request.app.state, "live", None)
    if live is None or referee_of(request) is None:
        raise HTTPException(404, NO_REFEREE)
    return live


def _leagues(request: Request, ids) -> dict[str, int | None]:
    """The league of each running match the ledger holds (one query; blocking: call in a thread)."""
    try:
        running = ledger_of(request).matches(status="running", limit=None)
    except LedgerError:
        return {}
    wanted = set(ids)
    return {str(m.id): m.league_id for m in running if str(m.id) in wanted}


def running(request: Request) -> list[dict]:
    """The running matches (id, game, league, seats and bots, step, started), oldest first; []
    without a referee. Safe from a thread (a sync route): it reads only the loop's snapshot, and
    the ledger."""
    live = getattr(request.app.state, "live", None)
    if live is None:
        return []
    entries = live.snapshot
    leagues = _leagues(request, [e.id for e in entries]) if entries else {}
    return [e.to_json(leagues.get(e.id)) for e in entries]


@router.get("/api/v1/live", tags=["live"])
def live_list(request: Request) -> list[dict]:
    """The matches being played now by this server's referee, oldest first."""
    _live(request)
    return running(request)


async def _finished(request: Request, live: Live, match_id: str) -> dict | None:
    """A match that is not running: its ``end`` if it ended, from this process's memory or the
    ledger; None if it is not known at all. 404 if it is known but neither running here nor
    ended (scheduled, or played by another process)."""
    def from_ledger():
        try:
            return ledger_of(request).match(int(match_id)) if match_id.isdigit() else None
        except (LedgerError, OverflowError):
            return None
    m = await run_in_threadpool(from_ledger)
    ended = live.ended.get(match_id)
    if ended is None and m is not None and m.status in ("finished", "failed"):
        ended = end_of(match_id, m.game, m.bots, m.status, len(m.steps), list(m.places), list(m.scores))
    if ended is None:
        if m is None:
            return None
        raise HTTPException(404, f"match {match_id} is {m.status} and not being played by this server")
    return ended


@router.get("/api/v1/matches/{match_id}/live", tags=["live"],
            response_class=StreamingResponse, responses={200: {"content": {"text/event-stream": {}}}})
async def live_stream(request: Request, match_id: str):
    """Server-sent events of a running match as a spectator sees it (module docstring)."""
    live = _live(request)
    if match_id not in live.runs:
        done = await _finished(request, live, match_id)
        if done is None:
            raise HTTPException(404, f"no match {match_id}")
        return StreamingResponse(iter([sse("end", done)]), media_type="text/event-stream")
    watcher = live.join(match_id)

    async def events():
        try:
            while True:
                try:
                    await asyncio.wait_for(watcher.wake.wait(), HEARTBEAT)
                except TimeoutError:
                    yield sse("heartbeat", {})
                    continue
                watcher.wake.clear()
                while watcher.queue:
                    kind, data = watcher.queue.popleft()
                    yield data
                    if kind == "end":
                        return
        finally:
            live.leave(match_id, watcher)
    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _table(request: Request, match_id: str) -> dict:
    """What live_step.html draws, read on the loop: the frame now (or the last one, or none, once
    the match has ended), the seats' hands as a spectator sees them, and the end if it came."""
    live = _live(request)
    run = live.runs.get(match_id)
    if run is not None:
        about = {"id": match_id, "game": run.match.game_id, "bots": list(run.bots)}
        data, ended = live.current(match_id), None
    else:
        ended = await _finished(request, live, match_id)
        if ended is None:
            raise HTTPException(404, f"no match {match_id}")
        about = {"id": match_id, "game": ended["game"], "bots": ended["bots"]}
        data = live.last_frames.get(match_id)
    players = len(about["bots"])
    view = (data["view"] if data else None) or {}
    info = view.get("seats", []) if isinstance(view.get("seats"), list) else []
    return {"m": about, "frame": data, "ended": ended, "info": info, "refresh": REFRESH,
            "hands": [_hidden_hand(view, s) for s in range(players)] if data and data["view"] is not None else []}


@router.get("/matches/{match_id}/live", response_class=HTMLResponse, include_in_schema=False)
async def live_page(request: Request, match_id: str):
    """The live page of a match (module docstring)."""
    context = await _table(request, match_id)
    return await run_in_threadpool(templates.TemplateResponse, request, "live.html", context)


@router.get("/matches/{match_id}/live/table", response_class=HTMLResponse, include_in_schema=False)
async def live_fragment(request: Request, match_id: str):
    """The live table alone, as an HTML fragment (what live.js puts in the page)."""
    context = await _table(request, match_id)
    return await run_in_threadpool(templates.TemplateResponse, request, "live_step.html", context)
