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

import numpy as np

from cardarena.server.games.cards import CARD_TEXT

from .spaces import Codec

CARDS = 52
ROWS = 4
ROW_LIMIT = 5
ROW_ACTION = CARDS  # the id of row 0
PHASES = ("choose", "row", "over")
REASONS = ("too_low", "twin_rows")
#: card text → ladder code (the action JSON and the view name cards by text)
CODE: dict[str, int] = {t: c for c, t in enumerate(CARD_TEXT[:CARDS])}


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
        # the constant part (game) once; observe copies it
        self._blank = np.zeros(self.size, dtype=np.float32)
        self._blank[0] = n / 10
        self._blank[1] = self.decks / 2
        self._copy = np.float32(1.0 / self.decks)

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
    def observe(self, view: Mapping) -> np.ndarray:
        # three lists, written into the tensor at once at the end: the slots set to 1 (one-hot
        # parts and flags), scalars with their values, and every copy of a card (add.at adds
        # twins up; a copy counts 1 / decks)
        st, n, code = self._start, self.players, CODE
        me = view["seat"]
        phase = view["phase"]
        ones = [st["phase"] + PHASES.index(phase), st["dealer"] + (view["dealer"] - me) % n]
        at = [st["clock"], st["clock"] + 1]
        val = [view["round"] / 10, view["turn"] / 10]
        start = st["hand"]
        copies = [start + code[c] for c in view["hand"]]
        base, end = st["row_cards"], st["row_end"]
        length, points = st["row_length"], st["row_points"]
        for i, row in enumerate(view["rows"]):
            cards = row["cards"]
            if cards:
                start = base + i * CARDS
                copies += [start + code[c] for c in cards]
                ones.append(end + i * CARDS + code[cards[-1]])
            at += (length + i, points + i)
            val += (len(cards) / ROW_LIMIT, row["points"] / 25)
        played, pile, pts, totals = st["played"], st["pile"], st["points"], st["totals"]
        scale = 1.0 / self.options["end_score"]
        seats = view["seats"]
        for k in range(n):
            info = seats[(me + k) % n]
            start = played + k * CARDS
            copies += [start + code[c] for c in info["played"]]
            if info["pile"]:
                start = pile + k * CARDS
                copies += [start + code[c] for c in info["pile"]]
            at += (pts + k, totals + k)
            val += (info["points"] * scale, info["total"] * scale)
        if phase == "row":
            start = st["to_place"]
            copies += [start + code[p["card"]] for p in view["to_place"]]
            rev = st["revealed"]
            ones += [rev + ((p["seat"] - me) % n) * CARDS + code[p["card"]]
                     for p in view["revealed"]]
            ones.append(st["choice_card"] + code[view["choice_card"]])
            if view["chooser"] >= 0:
                ones.append(st["chooser"] + (view["chooser"] - me) % n)
            if view["choice_reason"]:
                ones.append(st["choice_reason"] + REASONS.index(view["choice_reason"]))
        out = self._blank.copy()
        out[ones] = 1.0
        out[at] = val
        np.add.at(out, np.array(copies, dtype=np.intp), self._copy)
        return out

CODEC = SixthCardCodec
