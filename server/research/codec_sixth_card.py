"""Sixth Card as fixed spaces: 56 action ids and a flat observation tensor of a seat's view.

The :class:`~cardarena.research.spaces.Codec` of ``sixth-card`` (rules: server/games/sixth_card.py,
rulings C1–C14). It reads only the view and action JSON (``SixthCardView``, ``SixthCardAction``
of proto/cardarena/v1/sixth_card.proto), so it serves in-process and over gRPC alike. Actions:
the same 56 ids at every player count and option set, 0 … 51 ``{"play": "7♠"}`` (the card's
ladder code, C2) and 52 … 55 ``{"row": i}``; the two copies of a card of two decks share its id.

Observation
===========
``N`` seats, relative to the observer (block 0 is the observing seat); card blocks are 52 wide,
by ladder code. The table is the tensor's layout (tests/research checks it against ``layout()``):

================  =====  =========================================================================
name              size   value
================  =====  =========================================================================
game              2      players / 10; decks / 2
phase             3      one-hot: ``choose``, ``row``, ``over``
clock             2      round / 10 (not capped); turn / 10
dealer            N      one-hot relative seat of this round's dealer
hand              52     copies in own hand
row_cards         208    4 rows × 52: copies in the row
row_end           208    4 rows × 52: one-hot of the row's last card
row_length        4      cards in the row / 5
row_points        4      the row's penalty points / 25 (5 cards of at most 5 points)
played            N×52   per relative seat: copies it revealed this round (this turn's included)
pile              N×52   per relative seat: copies in its penalty pile this round (C10)
points            N      per relative seat: penalty points this round / end_score
totals            N      per relative seat: game total so far / end_score
revealed          N×52   phase ``row``: per relative seat, one-hot of its card this turn
to_place          52     phase ``row``: copies of the revealed cards still to be placed
choice_card       52     phase ``row``: one-hot of the card waiting for a row
chooser           N      phase ``row``: one-hot relative seat choosing a row (block 0: it is us)
choice_reason     2      flags: ``too_low`` (C9), ``twin_rows`` (C7)
================  =====  =========================================================================

Nothing here is hidden from the seat: every part comes from its own view.

Design notes and measurements: docs/research.md (codec_sixth_card).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardarena.research import compiled
from cardarena.server.games.cards import CARD_TEXT

from .spaces import Codec, python_class

CARDS = 52
ROWS = 4
ROW_LIMIT = 5
ROW_ACTION = CARDS  # the id of row 0
PHASES = ("choose", "row", "over")
REASONS = ("too_low", "twin_rows")
#: card text → ladder code (the action JSON and the view name cards by text)
CODE: dict[str, int] = {t: c for c, t in enumerate(CARD_TEXT[:CARDS])}


@python_class
class SixthCardCodec(Codec):
    game_id = "sixth-card"
    num_actions = CARDS + ROWS

    def __init__(self, players: int, options: Mapping | None = None):
        super().__init__(players, options)
        n = players
        self.decks = self.options["decks"] or (1 if n <= 4 else 2)
        self._lay_out([
            ("game", 2), ("phase", 3), ("clock", 2), ("dealer", n), ("hand", CARDS),
            ("row_cards", ROWS * CARDS), ("row_end", ROWS * CARDS), ("row_length", ROWS),
            ("row_points", ROWS), ("played", n * CARDS), ("pile", n * CARDS), ("points", n),
            ("totals", n), ("revealed", n * CARDS), ("to_place", CARDS), ("choice_card", CARDS),
            ("chooser", n), ("choice_reason", 2),
        ])
        # where each card lands, by part (and relative seat): card text → index
        st = self._start
        self._hand_at = _card_cells(st["hand"])
        self._row_at = [_card_cells(st["row_cards"] + i * CARDS) for i in range(ROWS)]
        self._end_at = [_card_cells(st["row_end"] + i * CARDS) for i in range(ROWS)]
        self._played_at = [_card_cells(st["played"] + k * CARDS) for k in range(n)]
        self._pile_at = [_card_cells(st["pile"] + k * CARDS) for k in range(n)]
        self._revealed_at = [_card_cells(st["revealed"] + k * CARDS) for k in range(n)]
        self._to_place_at = _card_cells(st["to_place"])
        self._choice_at = _card_cells(st["choice_card"])
        self._phase_at = {p: st["phase"] + i for i, p in enumerate(PHASES)}
        self._reason_at = {r: st["choice_reason"] + i for i, r in enumerate(REASONS)}

    # ----- actions ----------------------------------------------------------------------------
    def action_id(self, action_json: Mapping) -> int:
        if "play" in action_json:
            return CODE[action_json["play"]]
        return ROW_ACTION + int(action_json["row"])

    def action_json_of(self, action_id: int) -> dict:
        if not 0 <= action_id < self.num_actions:
            raise ValueError(f"sixth-card: no action id {action_id} (0–{self.num_actions - 1})")
        if action_id < CARDS:
            return {"play": CARD_TEXT[action_id]}
        return {"row": action_id - ROW_ACTION}

    # ----- observations -----------------------------------------------------------------------
    def encode(self, view: Mapping[str, Any]) -> tuple[list[int], list[int], list[float]]:
        # every copy of a card goes to ``copies`` (with two decks, twins add up: counted at the
        # end), the one-hot parts to ``ones``, the rest to (at, val); typed for the compiled
        # build (compile_codecs.py)
        st: dict[str, int] = self._start
        n: int = self.players
        me: int = view["seat"]
        phase: str = view["phase"]
        dealer: int = view["dealer"]
        ones: list[int] = [self._phase_at[phase], st["dealer"] + (dealer - me) % n]
        clock, length, points = st["clock"], st["row_length"], st["row_points"]
        at: list[int] = [0, 1, clock, clock + 1, length, length + 1, length + 2, length + 3,
                         points, points + 1, points + 2, points + 3]
        rows: list[dict[str, Any]] = view["rows"]
        val: list[float] = [n / 10, self.decks / 2, view["round"] / 10, view["turn"] / 10]
        for row in rows:
            val.append(len(row["cards"]) / ROW_LIMIT)
        for row in rows:
            val.append(row["points"] / 25)
        hand_at: dict[str, int] = self._hand_at
        copies: list[int] = [hand_at[c] for c in view["hand"]]
        row_at: list[dict[str, int]] = self._row_at
        end_at: list[dict[str, int]] = self._end_at
        for i, row in enumerate(rows):
            cards: list[str] = row["cards"]
            if cards:
                cells = row_at[i]
                for c in cards:
                    copies.append(cells[c])
                ones.append(end_at[i][cards[-1]])
        pts, totals = st["points"], st["totals"]
        scale = 1.0 / self.options["end_score"]
        seats: list[dict[str, Any]] = view["seats"]
        played_at: list[dict[str, int]] = self._played_at
        pile_at: list[dict[str, int]] = self._pile_at
        for k in range(n):
            info = seats[(me + k) % n]
            cells = played_at[k]
            for c in info["played"]:
                copies.append(cells[c])
            cells = pile_at[k]
            for c in info["pile"]:
                copies.append(cells[c])
            at.append(pts + k)
            at.append(totals + k)
            val.append(info["points"] * scale)
            val.append(info["total"] * scale)
        if phase == "row":
            to_place: dict[str, int] = self._to_place_at
            for p in view["to_place"]:
                copies.append(to_place[p["card"]])
            revealed: list[dict[str, int]] = self._revealed_at
            for p in view["revealed"]:
                seat: int = p["seat"]
                ones.append(revealed[(seat - me) % n][p["card"]])
            ones.append(self._choice_at[view["choice_card"]])
            chooser: int = view["chooser"]
            if chooser >= 0:
                ones.append(st["chooser"] + (chooser - me) % n)
            if view["choice_reason"]:
                ones.append(self._reason_at[view["choice_reason"]])
        if self.decks == 1:  # every card once: a copy is 1
            ones += copies
        else:  # a copy counts 0.5: sums are exact
            counts: dict[int, int] = {}
            for i in copies:
                counts[i] = counts.get(i, 0) + 1
            for i, k in counts.items():
                at.append(i)
                val.append(k * 0.5)
        return ones, at, val


def _card_cells(start: int) -> dict[str, int]:
    """Card text → its index in a 52-wide card block from ``start`` (by ladder code)."""
    return {text: start + c for text, c in CODE.items()}


CODEC = SixthCardCodec


# the compiled build of this module in its place, if it is current (compiled.py)
compiled.take(__name__)
