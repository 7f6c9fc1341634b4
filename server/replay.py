"""A recorded match rebuilt at any step, for the replay viewer and its API.

A match is replayed from its seed, options and steps (the choices by index, as
:func:`cardarena.server.match.replay` does). Step ``k`` is the state after the first ``k``
steps: ``k = 0`` is the deal (before the first decision), ``k = len(steps)`` the end. At a step
``k < len(steps)`` the seats in ``to_act()`` decide, and ``steps[k]`` holds their choices.
The events of step ``k`` are those the match log numbers ``k``: the setup's at 0, then the
events that applying ``steps[k - 1]`` made (the same numbering as ``Match.log`` and the
ledger's event log).

What one seat is shown at a step is exactly what the referee sent it: ``game.view(seat)``, with
the labels of its legal actions in their canonical order. Nothing here is meant for a running
match: only a finished match is public in full (the caller checks). A :class:`Replay` is safe
to share between threads; no request replays more than ``every`` steps.

Design notes and measurements: docs/conduct.md (replay).
"""
from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .games import Event, Game, get as get_game, new_game


class ReplayError(Exception):
    """The record does not replay (a step that is not legal, a game over too early)."""


class Replay:
    """One recorded match, replayable to any step ``0 … len(steps)``."""

    def __init__(self, game_id: str, players: int, seed: int, options: Mapping[str, Any] | None,
                 steps: Sequence[Mapping[Any, int]], every: int = 32):
        self.game_id = game_id
        self.players = players
        self.steps: list[dict[int, int]] = [{int(s): int(i) for s, i in c.items()} for c in steps]
        self.every = every
        game = new_game(game_id, players, seed, options)
        #: the events of each step, ``events[k]`` made by reaching step k (0: the setup)
        self.events: list[list[Event]] = [list(game.opening_events())]
        self._checkpoints: dict[int, Game] = {}
        for k in range(len(self.steps)):
            if k % every == 0:
                self._checkpoints[k] = game.copy()
            if game.is_over():
                raise ReplayError(f"the game is over after step {k}, but {len(self.steps)} steps are recorded")
            self.events.append(self._apply(game, k))
        if not game.is_over():
            raise ReplayError(f"the game is not over after the {len(self.steps)} recorded steps")
        self._checkpoints[len(self.steps)] = game.copy()
        self._cursor: tuple[int, Game] = (len(self.steps), game)
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """The number of steps; the last step number."""
        return len(self.steps)

    def _apply(self, game: Game, k: int) -> list[Event]:
        """Apply ``steps[k]`` to ``game`` (which is at step k); its events."""
        actions = {}
        for seat, index in self.steps[k].items():
            legal = game.legal_actions(seat)
            if not 0 <= index < len(legal):
                raise ReplayError(f"step {k + 1} does not replay: seat {seat} chose {index}, "
                                  f"legal are 0…{len(legal) - 1}")
            actions[seat] = legal[index]
        return list(game.apply(actions))

    def _game_at(self, k: int) -> Game:
        """The game at step ``k``, made the cursor (call with the lock held)."""
        at, game = self._cursor
        if not at <= k < at + self.every:
            at = k if k in self._checkpoints else k - k % self.every
            game = self._checkpoints[at].copy()
        while at < k:
            self._apply(game, at)
            at += 1
        self._cursor = (k, game)
        return game

    def step(self, k: int, seat: int | None = None) -> dict:
        """Step ``k`` as plain JSON: omniscient (``seat`` None) or as ``seat`` was shown it.

        Keys: ``step``, ``steps`` (the total), ``seat``, ``to_act``, ``over``; omniscient:
        ``state`` (``Game.state_json()``: every hand, the table, the stock), ``decisions`` (per
        seat to act: its ``actions`` in words and its ``choice``, the index into them),
        ``events`` (each ``{"seats": [...] | None, "data": {...}}``, None: seen by everyone);
        for a seat: ``view`` (exactly ``game.view(seat)``, the dict the referee encodes),
        ``decisions`` (one entry if the seat decides at step k, else none) and ``events`` (the
        ``data`` of the events of step k that seat saw). At the end, ``result``.
        """
        if not 0 <= k <= self.total:
            raise IndexError(f"step {k} is not in 0…{self.total}")
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not in 0…{self.players - 1}")
        with self._lock:
            game = self._game_at(k)
            to_act = list(game.to_act()) if k < self.total else []
            seats = to_act if seat is None else [s for s in to_act if s == seat]
            decisions = [{"seat": s, "actions": [game.action_label(a) for a in game.legal_actions(s)],
                          "choice": self.steps[k][s]} for s in seats]
            out: dict[str, Any] = {"step": k, "steps": self.total, "seat": seat, "to_act": to_act,
                                   "over": k == self.total}
            if seat is None:
                out["state"] = game.state_json()
                out["events"] = [{"seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                                 for ev in self.events[k]]
            else:
                out["view"] = game.view(seat)
                out["events"] = [ev.data for ev in self.events[k] if ev.visible_to(seat)]
            out["decisions"] = decisions
            if k == self.total:
                out["result"] = game.result().to_json()
            return out


def shown_events(events: Sequence[Mapping[str, Any]], seat: int | None = None) -> list[Mapping[str, Any]]:
    """The events of a log as one reader reads them, each once.

    Each event holds ``seats`` (who saw it, None: every seat) and ``data``, and ``step`` in the
    match log (the events of one step need none). With ``seat``: the events that seat saw.
    Omniscient (``seat`` None): every event but the others' line of a private one. A game tells a
    seat's private event twice: its own line to that seat (``draw`` with the card drawn, ``put
    drawn`` with the card placed) and the others' line to the other seats (the same without the
    card); whoever sees every hand reads the seat's own line only.
    """
    if seat is not None:
        return [ev for ev in events if ev["seats"] is None or seat in ev["seats"]]

    def told_to_its_seat(ev) -> bool:
        return ev["seats"] is not None and ev["data"].get("seat") in ev["seats"]

    def key(ev) -> tuple:
        return ev.get("step"), ev["data"].get("type"), ev["data"].get("seat")

    own = {key(ev) for ev in events if told_to_its_seat(ev)}
    return [ev for ev in events if ev["seats"] is None or told_to_its_seat(ev) or key(ev) not in own]


def pruned_on(m) -> str:
    """The day (UTC) a match's step log was pruned, as ``match show`` and the pages say it."""
    return m.pruned_at.strftime("%Y-%m-%d")


def render_match(m, seat: int | None = None) -> list[str]:
    """A recorded match (a MatchDetail) as a readable play-by-play, the text of ``cardarena match
    show`` and of the web's match page: each event once (:func:`shown_events`); with ``seat``,
    only what that seat saw."""
    cls = get_game(m.game)
    game = cls(len(m.bots), m.seed, m.options)
    lines = [f"match {m.id}: {m.game}, {len(m.bots)} seats, {m.status}"
             + (f", seed {m.seed}" if seat is None else "")]
    for s, b in enumerate(m.bots):
        lines.append(f"  seat {s}: {b}")
    if seat is not None:
        lines.append(f"(as seat {seat} saw it)")
    if getattr(m, "pruned_at", None) is not None:
        lines.append(f"(step log pruned on {pruned_on(m)}: no play-by-play or replay; the result, the ratings "
                     "and the deal are kept)")
    for ev in shown_events(m.events, seat):
        lines.append(f"[{ev['step']:>4}] {game.event_text(ev['data'])}")
    if m.status == "finished":
        lines.append("result:")
        for s, b in enumerate(m.bots):
            extra = []
            if m.faults and m.faults[s]:
                extra.append(f"{m.faults[s]} faults")
            if m.forfeited and m.forfeited[s]:
                absent = getattr(m, "absent", None)
                extra.append("forfeited: absent, not rated" if absent and absent[s] else "forfeited")
            lines.append(f"  place {m.places[s]}: seat {s} {b}, score {m.scores[s]:g}" + (f" ({', '.join(extra)})" if extra else ""))
    return lines
