"""The replay viewer and its API: a finished match stepped through decision by decision.

``GET /api/v1/matches/{id}/steps/{k}?seat=N``: the match rebuilt at step ``k``
(:class:`cardarena.server.replay.Replay`; 0 is the deal, ``steps`` the end), omniscient without
``seat``, or exactly what seat N was sent. ``GET /matches/{id}/replay?step=k&seat=N``: the
viewer page, drawn on the server (it reads without JavaScript); ``static/replay.js`` steps it in
place through ``GET /matches/{id}/replay/steps/{k}?seat=N``, the same table as an HTML fragment,
so one renderer (``templates/replay_step.html``) draws both.

Privacy: only a match whose deal is spent is replayed (else 403); a match recorded by another
version of its rules engine, or whose record does not replay, is 409 with the reason; a match
whose step log was pruned (``cardarena ledger prune``) is 410 Gone, saying so. Unknown match or
a step out of range: 404; a seat the match does not have: 422. Each app keeps the
:class:`Replay` of the last :data:`CACHED` matches; a finished match never changes but for a
prune, after which ``serve --keep-logs`` drops what it kept of it (:func:`forget`).

Design notes and measurements: docs/web.md (replay).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from cardarena.ratings import LedgerError

from ..games import Game, UnknownGame, get, new_game
from ..replay import Replay, ReplayError, shown_events
from .deps import ledger_of, templates

router = APIRouter()

#: replays kept per app (least recently used dropped first)
CACHED = 32


@dataclass(frozen=True)
class Replayed:
    """A finished match and its replay: what the viewer needs of the record."""

    id: int
    game: str
    bots: list[str]
    places: list[int]
    replay: Replay
    words: Game  # a game of the match, for events in words (``event_text`` reads no state)


class _Cache:
    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[int, Replayed] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: int) -> Replayed | None:
        with self.lock:
            hit = self.items.get(key)
            if hit is not None:
                self.items.move_to_end(key)
            return hit

    def put(self, key: int, value: Replayed) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_CACHE_LOCK = threading.Lock()


def _cache(request: Request) -> _Cache:
    """The app's cache of replays, made on first use."""
    state = request.app.state
    with _CACHE_LOCK:
        if getattr(state, "replays", None) is None:
            state.replays = _Cache(CACHED)
        return state.replays


def replayed(request: Request, match_id: int) -> Replayed:
    """The finished match ``match_id`` ready to replay, from the cache or the ledger."""
    cache = _cache(request)
    hit = cache.get(match_id)
    if hit is not None:
        return hit
    try:
        m = ledger_of(request).match(match_id)
    except LedgerError:
        raise HTTPException(404, f"no match {match_id}") from None
    if m.status != "finished":
        raise HTTPException(403, f"match {match_id} is {m.status}: only a finished match can be replayed "
                                 "(a running match is public only as spectators see it)")
    if not m.deal_spent:
        raise HTTPException(403, f"match {match_id} shares its deal with rotations of its duplicate set still to "
                                 "finish: it is replayed once the whole set is finished")
    if m.pruned_at is not None:
        from ..replay import pruned_on
        raise HTTPException(410, f"match {match_id}: step log pruned on {pruned_on(m)}, so it cannot be replayed; "
                                 f"its result, ratings and deal are kept (/matches/{match_id})")
    recorded = (m.result_details or {}).get("engine_version", 1)
    try:
        current = get(m.game).engine_version
    except UnknownGame:
        raise HTTPException(409, f"match {match_id} is of the game {m.game!r}, which this release does not have") from None
    if recorded != current:
        raise HTTPException(409, f"match {match_id} was recorded by version {recorded} of the {m.game} rules "
                                 f"engine and this release has version {current}: it cannot be replayed here")
    try:
        replay = Replay(m.game, len(m.bots), m.seed, m.options, m.steps)
    except ReplayError as e:
        raise HTTPException(409, f"match {match_id} does not replay from its record: {e}") from None
    hit = Replayed(m.id, m.game, list(m.bots), list(m.places), replay,
                   new_game(m.game, len(m.bots), m.seed, m.options))
    cache.put(match_id, hit)
    return hit


def forget(app, match_ids) -> None:
    """Drop what ``app`` keeps of these matches, their logs just pruned (``serve --keep-logs``):
    their replays and their answers and pages (``api.keep_answer``)."""
    from . import api
    ids = set(match_ids)
    kept = getattr(app.state, "replays", None)
    if kept is not None:
        with kept.lock:
            for match_id in ids & kept.items.keys():
                del kept.items[match_id]
    api.forget_answers(app.state.ledger, [(what, match_id) for match_id in ids for what in ("api", "page")])


def _step(r: Replayed, k: int, seat: int | None) -> dict:
    if not 0 <= k <= r.replay.total:
        raise HTTPException(404, f"match {r.id} has steps 0–{r.replay.total}, not {k}")
    if seat is not None and not 0 <= seat < len(r.bots):
        raise HTTPException(422, f"match {r.id} has seats 0–{len(r.bots) - 1}, not {seat}")
    return r.replay.step(k, seat)


SeatQuery = Query(None, description="A seat: what it was shown; none: the omniscient state.")


@router.get("/api/v1/matches/{match_id}/steps/{k}", tags=["replay"])
def step_api(request: Request, match_id: int, k: int, seat: int | None = SeatQuery) -> dict:
    """A finished match at step ``k`` (0: the deal; ``steps``: the end), omniscient or as ``seat`` saw it.

    Omniscient: ``state`` (every hand, the table), ``decisions`` (each seat to act: ``actions``
    in words and its ``choice``, an index into them), ``events`` with the seats that saw each
    (null: everyone). With ``seat``: ``view`` (exactly the view the referee sent that seat),
    ``decisions`` (its own, if it acts at step ``k``), ``events`` (those it saw)."""
    r = replayed(request, match_id)
    out = _step(r, k, seat)
    out["match"] = r.id
    out["game"] = r.game
    out["bots"] = r.bots
    return out


def _page_context(request: Request, r: Replayed, k: int, seat: int | None) -> dict[str, Any]:
    """What replay_step.html draws: the step, the hands by seat (face down where the seat may not
    see them), the view the table is drawn from, the events in words (each once: omniscient, a
    private event as its seat saw it, :func:`shown_events`)."""
    step = _step(r, k, seat)
    if seat is None:
        table = r.replay.step(k, step["to_act"][0] if step["to_act"] else 0)["view"]  # the public table
        hands = [{"cards": list(h), "own": True} for h in step["state"].get("hands", [])]
    else:
        table = step["view"]
        hands = [_hidden_hand(table, s) for s in range(len(r.bots))]
        if "hand" in table:
            hands[seat] = {"cards": list(table["hand"]), "own": True}
    events = step["events"] if seat is not None else [e["data"] for e in shown_events(step["events"])]
    return {"request": request, "m": r, "step": step, "seat": seat, "table": table, "hands": hands,
            "events": [r.words.event_text(e) for e in events]}


def _hidden_hand(view: dict, seat: int) -> dict:
    """Another seat's hand as ``view`` shows it: its known cards ("" or "?": face down)."""
    seats = view.get("seats")
    info = seats[seat] if isinstance(seats, list) and seat < len(seats) and isinstance(seats[seat], dict) else {}
    if "known" in info:
        return {"cards": [c or "?" for c in info["known"]], "own": False}
    count = info.get("hand_size", len(view.get("hand", ())))
    return {"cards": ["?"] * count, "own": False}


@router.get("/matches/{match_id}/replay", response_class=HTMLResponse, include_in_schema=False)
def replay_page(request: Request, match_id: int, step: int = 0, seat: int | None = None):
    """The replay viewer at ``step`` (0: the deal), omniscient or as ``seat`` saw it."""
    r = replayed(request, match_id)
    return templates.TemplateResponse(request, "replay.html", _page_context(request, r, step, seat))


@router.get("/matches/{match_id}/replay/steps/{k}", response_class=HTMLResponse, include_in_schema=False)
def replay_fragment(request: Request, match_id: int, k: int, seat: int | None = None):
    """Step ``k`` of the viewer as an HTML fragment (what replay.js puts in the page)."""
    r = replayed(request, match_id)
    return templates.TemplateResponse(request, "replay_step.html", _page_context(request, r, k, seat))
