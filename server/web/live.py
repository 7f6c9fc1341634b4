"""Live matches as a spectator sees them: the running matches of the referee in
this process (``cardarena serve``), each watchable while it plays, public information only.

Routes: ``GET /api/v1/live`` (the running matches), ``GET /api/v1/matches/{id}/live``
(server-sent events: ``frame``, ``heartbeat``, then ``end``), ``GET /matches/{id}/live`` (the
page, drawn on the server; ``static/live.js`` follows the stream), ``/matches/{id}/live/table``
(the table as an HTML fragment) and ``/watch`` (to a match being played, else the latest to
end). Under ``cardarena web`` (no referee) every live answer is a 404 that says live matches
are shown by ``cardarena serve``, and /watch says so. A match is played at a pace and behind
the spectator delay (:mod:`.broadcast`).

What a spectator gets is ``Game.spectator_view()``, the events every seat saw in words, the
seats to act and the faults: never a hand, a seed or a token. A rotation of a duplicate set
shares its deal with rotations still to play: its frames hold the step, the seats to act and
the faults only (``"sealed": true``). :class:`Live` is one watcher of the referee
(``Referee.watchers``): it builds each frame on the event loop and at once, and a slow reader
loses frames (a queue holds at most :data:`QUEUED`), never slows or stops the match.

Design notes and measurements: docs/web.md (live).
"""
from __future__ import annotations

import asyncio
from array import array
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Annotated

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from cardarena.ratings import LedgerError

from .broadcast import DEFAULT_PACE, MAX_PACE, Clock, Rebuilt, Showing, Timeline, from_record, played, sse
from .deps import ledger_of, referee_of, templates
from .replay import _hidden_hand

router = APIRouter()

HEARTBEAT = 15.0     # seconds between heartbeats of a quiet stream
QUEUED = 256         # frames a watcher's queue holds (the oldest dropped first)
ENDED_KEPT = 256     # ends of finished matches remembered
KEPT_SOURCES = 8     # ended matches whose steps are kept in memory (till the ledger has them)
TIMELINES_KEPT = 4096  # ended matches kept for the spectator delay, at most
REBUILT_KEPT = 16    # matches whose rebuilt frames are kept (the least recently used dropped)
RECENT_WATCH = 3600.0  # seconds: /watch plays a match that ended at most this long ago
REFRESH = 5          # seconds between reloads of the page without JavaScript
NO_REFEREE = ("no live matches here: this server reads a ledger only (cardarena web); "
              "live matches are shown by `cardarena serve`")
PaceQuery = Annotated[float | None, Query(ge=0, le=MAX_PACE, allow_inf_nan=False,
                                          description=f"seconds a step, 0–{MAX_PACE:g} (0: each step as it is "
                                                      "played); default: the server's (`serve --live-pace`)")]
StepQuery = Annotated[int | None, Query(ge=0, le=2 ** 63 - 1, description="the step to start from (0: the deal)")]


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
    """The referee's watcher for the web (module docstring): the listing, the feeds, the ends;
    ``pace`` the streams' default seconds a step, ``delay`` the spectator delay in seconds."""

    def __init__(self, referee, pace: float = DEFAULT_PACE, delay: float = 0.0, arena=None,
                 clock: Clock | None = None):
        self.pace, self.delay, self.arena = pace, delay, arena
        self.clock = clock or Clock()
        self.timelines: dict[str, Timeline] = {}  # running, and ended a while (broadcast.Timeline)
        self.snapshot: tuple[Timeline, ...] = ()   # the same, for a thread to read
        self.sourced: OrderedDict[str, Timeline] = OrderedDict()  # ended, still holding their steps
        self.delayed: OrderedDict[str, Timeline] = OrderedDict()  # ended, frames still to release
        self.rebuilt: OrderedDict[str, tuple[Rebuilt | None, dict | None]] = OrderedDict()
        self.feeds: dict[str, Feed] = {}
        self.ended: OrderedDict[str, dict] = OrderedDict()
        self.ended_when: OrderedDict[str, tuple[float, bool]] = OrderedDict()  # clock time, sealed
        self.last_frames: OrderedDict[str, dict] = OrderedDict()  # a watched match's final frame
        self.runs = referee.runs
        for run in list(referee.runs.values()):  # matches that started before the app
            self._start(run)
        referee.watchers.add(self)

    def _start(self, run) -> None:
        m = run.match
        ladder = (self.delay > 0 and self.arena is not None and m.match_id.isdigit()
                  and int(m.match_id) in self.arena.playing_ids)
        self.timelines[m.match_id] = Timeline(
            m.match_id, m.game_id, tuple(run.bots), datetime.now(timezone.utc).isoformat(timespec="seconds"),
            array("d", [self.clock.now()] * (len(m.steps) + 1)), bool(getattr(run, "sealed", False)), ladder,
            (m.players, m.seed, m.options, m.steps, run.fault_log))
        self.snapshot = tuple(self.timelines.values())

    def __call__(self, kind: str, run, events: list) -> None:
        match_id = run.match.match_id
        if kind == "start":
            self._start(run)
        tl = self.timelines.get(match_id)
        if tl is not None and kind == "step":
            tl.times.append(self.clock.now())
            tl.touch()
        feed = self.feeds.get(match_id)
        if feed is not None and kind != "end":
            feed.push(frame(run, events))
        if kind == "end":
            result = run.result
            ended = end_of(match_id, run.match.game_id, run.bots, "finished" if result is not None else "stopped",
                           len(run.match.steps),
                           None if result is None else list(result.places),
                           None if result is None else list(result.scores))
            _remember(self.ended, match_id, ended)
            _remember(self.ended_when, match_id, (self.clock.now(), bool(getattr(run, "sealed", False))))
            if tl is not None:
                tl.ended, tl.ended_at = ended, self.clock.now()
                tl.touch()
                self._retire(tl)
            if feed is not None:
                if feed.latest is not None:
                    _remember(self.last_frames, match_id, feed.latest)
                encoded = sse("end", ended)
                for w in feed.watchers:
                    w.put("end", encoded)
                del self.feeds[match_id]

    def _retire(self, tl: Timeline) -> None:
        """An ended match's timeline: its steps kept for the last :data:`KEPT_SOURCES` matches
        (the ledger records a match just after it ends), its times while the delay has frames of
        it to release; then dropped."""
        now = self.clock.now()
        self.sourced[tl.id] = self.delayed[tl.id] = tl
        dropped = []
        while len(self.sourced) > KEPT_SOURCES:
            _, old = self.sourced.popitem(last=False)
            old.source = None
            dropped.append(old)
        while self.delayed:
            first = next(iter(self.delayed.values()))
            if first.ended_at + self.delay > now and len(self.delayed) <= TIMELINES_KEPT:
                break
            dropped.append(self.delayed.pop(first.id))
        gone = False
        for t in dropped:
            if t.source is None and t.id not in self.delayed and self.timelines.get(t.id) is t:
                del self.timelines[t.id]
                gone = True
        if gone:
            self.snapshot = tuple(self.timelines.values())

    def as_of(self, now: float | None = None) -> list[tuple[Timeline, int]]:
        """The matches being played as shown, behind the spectator delay, each with its step
        shown (safe from a thread: it reads the snapshot)."""
        cutoff = (self.clock.now() if now is None else now) - self.delay
        if not self.delay:
            return [(tl, len(tl.times) - 1) for tl in self.snapshot if tl.ended is None]
        return [(tl, tl.step_at(cutoff)) for tl in self.snapshot if tl.running_at(cutoff)]

    def to_watch(self) -> str | None:
        """A match to watch now (on the loop): the latest started of those being played (as of
        the delay), else the latest that finished here within :data:`RECENT_WATCH`; sealed
        rotations of duplicate sets are left out (they show no table)."""
        now = self.clock.now()
        playing = [tl for tl, _ in self.as_of(now) if not tl.sealed]
        if playing:
            return max(playing, key=lambda tl: tl.times[0]).id
        for match_id in reversed(self.ended_when):
            when, sealed = self.ended_when[match_id]
            if now - when > RECENT_WATCH:
                break
            if when + self.delay <= now and not sealed and (self.ended.get(match_id) or {}).get("status") == "finished":
                return match_id
        return None

    def held_back(self) -> set[str]:
        """The matches of this referee not shown whole yet: running, or ended within the delay."""
        now = self.clock.now()
        return {tl.id for tl in self.snapshot if tl.ended_at is None or tl.ended_at + self.delay > now}

    async def showing(self, request: Request, match_id: str) -> Showing:
        """What is shown of a match at a pace (on the loop): from its timeline while this process
        keeps it, else from the ledger; 404 if it is not known, or known and neither played here
        nor ended."""
        tl = self.timelines.get(match_id)
        kept = self.rebuilt.get(match_id)
        if kept is not None:
            self.rebuilt.move_to_end(match_id)
        if tl is not None and tl.source is not None:
            if kept is None or kept[0] is None:
                players, seed, options, steps, faults = tl.source  # a new game is dealt: in a thread
                kept = (await run_in_threadpool(Rebuilt, match_id, tl.game, players, seed, options, steps, faults,
                                                tl.sealed), None)
                self._keep(match_id, kept)
            return Showing(tl, kept[0])
        if kept is None or (tl is None and kept[1] is None):
            m, rebuilt = await run_in_threadpool(_record, request, match_id)
            end = None
            if tl is None:
                end = self.ended.get(match_id) or _end_of_record(match_id, m)
            if tl is None and end is None:
                if m is None:
                    raise HTTPException(404, f"no match {match_id}")
                raise HTTPException(404, f"match {match_id} is {m.status} and not being played by this server")
            kept = (rebuilt, end)
            if rebuilt is not None:
                self._keep(match_id, kept)
        return Showing(tl, kept[0], None if tl is not None else kept[1])

    def _keep(self, match_id: str, kept: tuple) -> None:
        self.rebuilt[match_id] = kept
        self.rebuilt.move_to_end(match_id)
        while len(self.rebuilt) > REBUILT_KEPT:
            self.rebuilt.popitem(last=False)

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


def _remember(kept: OrderedDict, key: str, value) -> None:
    kept[key] = value
    while len(kept) > ENDED_KEPT:
        kept.popitem(last=False)


def install(app: FastAPI, pace: float = DEFAULT_PACE, delay: float = 0.0) -> None:
    """Include the live routes in ``app`` and, with a referee, watch it (on the loop's thread,
    or before the loop runs: the referee's state is touched here)."""
    referee = app.state.referee
    app.state.live = Live(referee, pace, delay, app.state.arena) if referee is not None else None
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
    """The running matches (id, game, league, seats and bots, step, started) as shown, behind
    the spectator delay, oldest first; [] without a referee. Safe from a thread (a sync route):
    it reads only the loop's snapshot, and the ledger."""
    live = getattr(request.app.state, "live", None)
    if live is None:
        return []
    shown = live.as_of()
    leagues = _leagues(request, [tl.id for tl, _ in shown]) if shown else {}
    return [tl.to_json(step, leagues.get(tl.id)) for tl, step in shown]


def delayed(request: Request) -> list[Timeline] | None:
    """The matches being played as of the spectator delay, or None without one (the pages then
    show the referee's and the arena's state as it is)."""
    live = getattr(request.app.state, "live", None)
    if live is None or not live.delay:
        return None
    return [tl for tl, _ in live.as_of()]


@router.get("/api/v1/live", tags=["live"])
def live_list(request: Request) -> list[dict]:
    """The matches being played now by this server's referee (behind its spectator delay), oldest first."""
    _live(request)
    return running(request)


def _record(request: Request, match_id: str):
    """The ledger's match (None: not there) and its frames rebuilt if it may be shown in full
    (blocking: call in a thread)."""
    try:
        m = ledger_of(request).match(int(match_id)) if match_id.isdigit() else None
    except (LedgerError, OverflowError):
        return None, None
    try:
        return m, (from_record(m) if m is not None else None)
    except Exception:  # noqa: BLE001 - a record that does not rebuild shows its end alone
        return m, None


def _end_of_record(match_id: str, m) -> dict | None:
    if m is not None and m.status in ("finished", "failed"):
        return end_of(match_id, m.game, m.bots, m.status, len(m.steps), list(m.places), list(m.scores))
    return None


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
    ended = live.ended.get(match_id) or _end_of_record(match_id, m)
    if ended is None:
        if m is None:
            return None
        raise HTTPException(404, f"match {match_id} is {m.status} and not being played by this server")
    return ended


def _start_of(request: Request, step: int | None) -> int | None:
    """The first step of a stream: the one after its ``Last-Event-ID`` (a reconnecting
    EventSource goes on where it was), else ``step``."""
    last = request.headers.get("last-event-id", "")
    return int(last) + 1 if last.isdigit() and len(last) < 19 else step


@router.get("/api/v1/matches/{match_id}/live", tags=["live"],
            response_class=StreamingResponse, responses={200: {"content": {"text/event-stream": {}}}})
async def live_stream(request: Request, match_id: str, pace: PaceQuery = None, step: StepQuery = None):
    """Server-sent events of a match as a spectator sees it (module docstring): with a pace,
    frames from ``step`` (default: the deal) at least ``pace`` seconds apart, to the end, also
    once the match has ended; each no earlier than the spectator delay after it was played."""
    live = _live(request)
    pace = live.pace if pace is None else pace
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if pace or live.delay or step is not None:
        show = await live.showing(request, match_id)
        start = _start_of(request, step)
        if start is None and pace:
            start = 0
        return StreamingResponse(played(show, live.clock, live.delay, pace, start, HEARTBEAT),
                                 media_type="text/event-stream", headers=headers)
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
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)


def _status(pace: float, delay: float, running: bool, step: int) -> str:
    """The page's line of what it shows, in words."""
    if not pace:
        words = "playing now: the page follows the match as it is played" if running else \
            "ended: shown again as it was played"
    else:
        start = "from the deal" if step == 0 else f"from step {step}"
        words = (f"playing now: shown {start}, {pace:g} s a step" if running
                 else f"this match has ended: it is played again {start}, {pace:g} s a step, to its result")
    return words + (f"; {delay:g} s behind the table" if delay and running else "")


async def _table(request: Request, match_id: str, pace: float | None = None, step: int | None = None) -> dict:
    """What live_step.html draws, read on the loop: the frame (the current one, or with a pace
    or a delay the one asked for or due), the seats' hands as a spectator sees them, the end
    once it is shown, and how the page goes on."""
    live = _live(request)
    pace = live.pace if pace is None else pace
    run = live.runs.get(match_id)
    follow = {"pace": f"{pace:g}", "stream": f"/api/v1/matches/{match_id}/live?pace={pace:g}",
              "delay": live.delay, "refresh_url": None}
    if not pace and not live.delay and step is None:  # as it is played: the latest frame
        if run is not None:
            about = {"id": match_id, "game": run.match.game_id, "bots": list(run.bots)}
            data, ended = live.current(match_id), None
        else:
            ended = await _finished(request, live, match_id)
            if ended is None:
                raise HTTPException(404, f"no match {match_id}")
            about = {"id": match_id, "game": ended["game"], "bots": ended["bots"]}
            data = live.last_frames.get(match_id)
        follow["status"] = _status(0, 0, ended is None, 0)
    else:
        show = await live.showing(request, match_id)
        about = {"id": match_id, "game": show.game, "bots": show.bots}
        latest, end_out = show.latest(live.clock.now(), live.delay)
        k = min(step, latest) if step is not None else (min(0, latest) if pace else latest)
        data = None
        if k >= 0 and show.rebuilt is not None:
            try:
                data = (await run_in_threadpool(show.rebuilt.frame, k))[0]
            except Exception:  # noqa: BLE001 - a record that does not rebuild: its end alone
                data = None
        ended = show.ended() if end_out and (data is None or k == show.frames() - 1) else None
        if pace:
            follow["stream"] += f"&step={max(k, 0)}"
            follow["refresh_url"] = f"?pace={pace:g}&step={max(k, 0) + max(1, round(REFRESH / pace))}"
        follow["status"] = _status(pace, live.delay, not end_out, max(k, 0))
        follow["waiting"] = data is None and ended is None
    players = len(about["bots"])
    view = (data["view"] if data else None) or {}
    info = view.get("seats", []) if isinstance(view.get("seats"), list) else []
    return {"m": about, "frame": data, "ended": ended, "info": info, "refresh": REFRESH, **follow,
            "hands": [_hidden_hand(view, s) for s in range(players)] if data and data["view"] is not None else []}


@router.get("/matches/{match_id}/live", response_class=HTMLResponse, include_in_schema=False)
async def live_page(request: Request, match_id: str, pace: PaceQuery = None, step: StepQuery = None):
    """The live page of a match (module docstring)."""
    context = await _table(request, match_id, pace, step)
    return await run_in_threadpool(templates.TemplateResponse, request, "live.html", context)


@router.get("/matches/{match_id}/live/table", response_class=HTMLResponse, include_in_schema=False)
async def live_fragment(request: Request, match_id: str, pace: PaceQuery = None, step: StepQuery = None):
    """The live table alone, as an HTML fragment (what live.js puts in the page)."""
    context = await _table(request, match_id, pace, step)
    return await run_in_threadpool(templates.TemplateResponse, request, "live_step.html", context)


def _latest_finished(request: Request, held_back: set[str]) -> str | None:
    """The ledger's latest finished match that is public in full, ended within
    :data:`RECENT_WATCH` and is not ``held_back`` (blocking: call in a thread)."""
    since = datetime.now(timezone.utc) - timedelta(seconds=RECENT_WATCH)
    try:
        found = ledger_of(request).matches(status="finished", limit=20)
    except LedgerError:
        return None
    for m in found:
        at = m.finished_at if m.finished_at is None or m.finished_at.tzinfo else m.finished_at.replace(tzinfo=timezone.utc)
        if m.deal_spent and not m.pruned and at is not None and at >= since and str(m.id) not in held_back:
            return str(m.id)
    return None


@router.get("/watch", response_class=HTMLResponse, include_in_schema=False)
async def watch(request: Request, pace: PaceQuery = None):
    """To a match to watch now: one being played (behind the spectator delay), else the latest
    that ended here, played at the pace; with neither, a page that says nothing is played."""
    live = getattr(request.app.state, "live", None)
    found = None
    if live is not None and referee_of(request) is not None:
        found = live.to_watch() or await run_in_threadpool(_latest_finished, request, live.held_back())
    if found is not None:
        return RedirectResponse(f"/matches/{found}/live" + ("" if pace is None else f"?pace={pace:g}"), 303)
    words = NO_REFEREE if live is None else (
        f"Nothing is being played here now, and no match has ended in the last {RECENT_WATCH / 60:g} minutes.")
    return await run_in_threadpool(templates.TemplateResponse, request, "watch.html",
                                   {"message": words, "ladders": getattr(request.app.state, "arena", None) is not None})
