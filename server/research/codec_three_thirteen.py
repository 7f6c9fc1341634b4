"""Three Thirteen as fixed spaces: 108 action ids and a flat observation tensor of a seat's view.

The :class:`~cardarena.research.spaces.Codec` of ``three-thirteen`` (rules:
server/games/three_thirteen.py, rulings R1–R11). It reads only the view and action JSON
(``ThreeThirteenView``, ``ThreeThirteenAction`` of proto/cardarena/v1/three_thirteen.proto), so
it serves in-process and over gRPC alike. Actions: the same 108 ids at every player count and
option set, 0 and 1 the draws, 2 + code a discard, 55 + code going out (A♣ = 0 … K♠ = 51, the
joker 52); a seat never chooses its melds (R7).

Observation
===========
``N`` seats, relative to the observer (block 0 is the observing seat); card blocks are 53 wide,
by code, the joker last. The table is the tensor's layout (tests/research checks it against
``layout()``):

==============  =====  ===========================================================================
name            size   value
==============  =====  ===========================================================================
game            2      players / 8; decks / 4
round           11     one-hot: round 1 … 11 (round r deals r + 2 cards, rank r + 2 is wild, R2)
wild_cards      53     1 at the cards wild this round: the four of the wild rank and the joker
phase           3      one-hot: ``draw``, ``discard``, ``over``
turn            N      one-hot relative seat to act (none when over; block 0: it is us)
dealer          N      one-hot relative seat of this round's dealer
hand            53     copies in own hand
taken_card      53     one-hot of the card just taken from the pile (it may not be discarded, R5)
stock           2      stock size / the game's cards; rebuilds this round / 2 (R9)
pile            53     copies in the discard pile
pile_top        53     one-hot of the pile's top card (what the draw from the pile takes)
upcard          53     one-hot of this round's upcard (the first card of ``discards``)
discards        N×53   per relative seat: copies it put on the pile this round
hand_size       N      per relative seat: cards in hand / 14 (13 dealt + the draw)
taken           N×53   per relative seat: copies it took from the pile and still holds (public)
melded          N      per relative seat: 1 if it laid down this round (went out or last turn)
last_turn       N      per relative seat: 1 if its last turn is still to come (R6)
gone_out        N      one-hot relative seat that went out this round
totals          N      per relative seat: game total so far / 100
table           53     copies laid in melds on the table
table_sets      13     per rank A … K: sets of that rank on the table / decks
table_runs      52     per suit ♣ ♦ ♥ ♠ × rank A … K: runs on the table covering that place / decks
==============  =====  ===========================================================================

Nothing here is hidden from the seat: every part comes from its own view.

Design notes and measurements: docs/research.md (codec_three_thirteen).
"""
from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np

from cardarena.research import compiled
from cardarena.server.games.cards import CARD_TEXT, JOKER, SUIT_SYMBOLS

from .spaces import Codec, Tally, python_class

CODES = 53                       # 52 cards and the joker
ROUNDS = 11
RANKS = 13
MAX_HAND = 14                    # round 11 deals 13, plus the draw
DRAW_STOCK, DRAW_PILE, DISCARD, GO_OUT = 0, 1, 2, 2 + CODES
PHASES = ("draw", "discard", "over")
#: card text → code (the action JSON and the view name cards by text)
CODE: dict[str, int] = {t: c for c, t in enumerate(CARD_TEXT)}
SUIT: dict[str, int] = {s: i for i, s in enumerate(SUIT_SYMBOLS)}
RANK: dict[str, int] = {t: r for r, t in enumerate(
    ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], 1)}
#: the parts that count copies of cards, each copy scaled by the copies of its card in the game
_COPIES = ("hand", "pile", "discards", "taken", "table")
#: the parts that count melds (scaled by the decks)
_MELDS = ("table_sets", "table_runs")


@python_class
class ThreeThirteenCodec(Codec):
    game_id = "three-thirteen"
    num_actions = GO_OUT + CODES
    float32_values = True  # (encode rounds its quotients; the counts' tables are float32 sums)

    def __init__(self, players: int, options: Mapping | None = None):
        super().__init__(players, options)
        n = players
        self.decks = (n + 1) // 2                        # R1
        self.cards = self.decks * 54
        self._lay_out([
            ("game", 2), ("round", ROUNDS), ("wild_cards", CODES), ("phase", 3), ("turn", n),
            ("dealer", n), ("hand", CODES), ("taken_card", CODES), ("stock", 2), ("pile", CODES),
            ("pile_top", CODES), ("upcard", CODES), ("discards", n * CODES), ("hand_size", n),
            ("taken", n * CODES), ("melded", n), ("last_turn", n), ("gone_out", n),
            ("totals", n), ("table", CODES), ("table_sets", RANKS), ("table_runs", 4 * RANKS),
        ])
        # a copies slot counts each copy as 1 / the copies of its card in the game (melds: 1 /
        # decks): _sums_at[i] lists what 0, 1, 2 … copies add up to at slot i, in float32, one
        # addition at a time (exact sums but for 3 decks' thirds and sixths)
        card, joker = _float32_sums(1.0 / self.decks), _float32_sums(1.0 / (2 * self.decks))
        self._sums_at: list[list[float]] = [[]] * self.size  # (empty where no copies are counted)
        for name, size in self._parts:
            start = self._start[name]
            if name in _COPIES:
                for i in range(start, start + size):
                    self._sums_at[i] = joker if (i - start) % CODES == JOKER else card
            elif name in _MELDS:
                self._sums_at[start:start + size] = [card] * size
            elif name == "upcard":  # counted with the discards, but one-hot
                self._sums_at[start:start + size] = [[0.0] + [1.0] * 64] * size
        # where each card lands, by part: card text → index; the discards by (text, the seat
        # that made it), relative to each seat (−1, nobody: the upcard)
        st = self._start
        self._hand_at = _card_cells(st["hand"])
        self._pile_at = _card_cells(st["pile"])
        self._table_at = _card_cells(st["table"])
        self._top_at = _card_cells(st["pile_top"])
        self._taken_card_at = _card_cells(st["taken_card"])
        self._taken_at = [_card_cells(st["taken"] + k * CODES) for k in range(n)]
        self._discard_at = [{(text, by): (st["upcard"] if by < 0 else st["discards"] + (by - me) % n * CODES) + c
                             for text, c in CODE.items() for by in range(-1, n)} for me in range(n)]
        self._discards = Tally(self, "_discard_cells", self._sums_at)
        self._pile = Tally(self, "_pile_cells", self._sums_at)
        self._phase_at = {p: st["phase"] + i for i, p in enumerate(PHASES)}
        # the round's one-hot and its wild cards (R2: rank r + 2, the four of it and the joker)
        self._round_ones = [[]] + [[st["round"] + r - 1, *(st["wild_cards"] + (r + 1) * 4 + i for i in range(4)),
                                    st["wild_cards"] + JOKER] for r in range(1, ROUNDS + 1)]

    # ----- actions ----------------------------------------------------------------------------
    def action_id(self, action_json: Mapping) -> int:
        if "draw" in action_json:
            return DRAW_PILE if action_json["draw"] == "discard_pile" else DRAW_STOCK
        if "discard" in action_json:
            return DISCARD + CODE[action_json["discard"]]
        return GO_OUT + CODE[action_json["go_out"]]

    def action_json_of(self, action_id: int) -> dict:
        if not 0 <= action_id < self.num_actions:
            raise ValueError(f"three-thirteen: no action id {action_id} (0–{self.num_actions - 1})")
        if action_id < DISCARD:
            return {"draw": "discard_pile" if action_id == DRAW_PILE else "stock"}
        if action_id < GO_OUT:
            return {"discard": CARD_TEXT[action_id - DISCARD]}
        return {"go_out": CARD_TEXT[action_id - GO_OUT]}

    # ----- observations -----------------------------------------------------------------------
    def _discard_cells(self, me: int, texts: list[str], by: list[int]) -> list[int]:
        """The slots of discards (card, the seat that made it), as seat ``me`` sees them."""
        cells: dict[tuple[str, int], Any] = self._discard_at[me]  # (Any: see encode)
        return [cells[(text, seat)] for text, seat in zip(texts, by)]

    def _pile_cells(self, me: int, texts: list[str]) -> list[int]:
        cells: dict[str, Any] = self._pile_at
        return [cells[text] for text in texts]

    def encode(self, view: Mapping[str, Any]) -> tuple[list[int], list[int], list[float]]:
        # every copy of a card goes to ``copies`` (counted at the end and scaled by _sums_at; the
        # table's melds count there too), the one-hot parts to ``ones``, the rest to (at, val);
        # typed for the compiled build (compile_codecs.py): the cells and values passed along as
        # they are read are objects (Any), since a compiled int or float item is unboxed when
        # read and boxed anew, a new object, when stored
        st: dict[str, int] = self._start
        n: int = self.players
        me: int = view["seat"]
        phase: str = view["phase"]
        dealer: int = view["dealer"]
        turn: int = view["turn"]
        gone_out: int = view["gone_out"]
        ones: list[Any] = self._round_ones[view["round"]] + [self._phase_at[phase], st["dealer"] + (dealer - me) % n]
        if turn >= 0 and phase != "over":
            ones.append(st["turn"] + (turn - me) % n)
        if view["taken_card"]:
            ones.append(self._taken_card_at[view["taken_card"]])
        if gone_out >= 0:
            ones.append(st["gone_out"] + (gone_out - me) % n)
        stock, size, totals = st["stock"], st["hand_size"], st["totals"]
        at: list[Any] = [0, 1, stock + 1, stock]
        val: list[Any] = [n / 8, self.decks / 4, view["rebuilds"] / 2]  # (float32 values)
        # the values of ``at`` from its 4th on, stock size first: rounded to float32 at once below
        quotients: list[float] = [view["stock_size"] / self.cards]
        hand_at: dict[str, Any] = self._hand_at
        copies: list[Any] = [hand_at[c] for c in view["hand"]]
        pile_texts: list[str] = view["discard_pile"]
        if pile_texts:
            ones.append(self._top_at[pile_texts[-1]])
        pile = self._pile.entries(me, pile_texts)  # counted apart
        # each seat's discards in its block, relative (the upcard in its one-hot): counted apart
        discards = self._discards.entries(me, view["discards"], view["discarded_by"])
        seats: list[dict[str, Any]] = view["seats"]
        melded, last = st["melded"], st["last_turn"]
        taken_at: list[dict[str, Any]] = self._taken_at
        for k in range(n):
            info = seats[(me + k) % n]
            taken: list[str] = info["taken"]
            if taken:
                cells = taken_at[k]
                for c in taken:
                    copies.append(cells[c])
            at.append(size + k)
            at.append(totals + k)
            quotients.append(info["hand_size"] / MAX_HAND)
            quotients.append(info["total"] / 100)
            if info["melded"]:
                ones.append(melded + k)
            if info["last_turn"]:
                ones.append(last + k)
        melds: list[dict[str, Any]] = view["melds"]
        if melds:
            table: dict[str, Any] = self._table_at
            sets, runs = st["table_sets"], st["table_runs"]
            for m in melds:
                for c in m["cards"]:
                    copies.append(table[c])
                if m["kind"] == "run":
                    first = runs + SUIT[m["suit"]] * RANKS - 1
                    low: int = m["low"]
                    high: int = m["high"]
                    for i in range(first + low, first + high + 1):
                        copies.append(i)
                else:
                    copies.append(sets + RANK[m["rank"]] - 1)
        val += array("f", quotients).tolist()
        at += discards[0]
        val += discards[1]
        at += pile[0]
        val += pile[1]
        # the copies counted in sorted order, a cell's copies one entry (fewer dict operations
        # than counting them in a dict; the entries' order does not matter)
        copies.sort()
        sorted_cells: list[int] = copies  # (the same list, read as ints to compare them)
        sums: list[list[Any]] = self._sums_at
        j, end = 0, len(copies)
        while j < end:
            cell = sorted_cells[j]
            k = 1
            while j + k < end and sorted_cells[j + k] == cell:
                k += 1
            at.append(copies[j])
            counted = sums[cell]
            val.append(counted[k] if k < len(counted) else _sum(counted, k))
            j += k
        return ones, at, val


def _card_cells(start: int) -> dict[str, int]:
    """Card text → its index in a 53-wide card block from ``start`` (by code, the joker last)."""
    return {text: start + c for text, c in CODE.items()}


def _sum(sums: list[float], k: int) -> float:
    """What ``k`` copies add up to (``sums`` grown as far as needed)."""
    while len(sums) <= k:
        sums.append(float(np.float32(np.float32(sums[-1]) + np.float32(sums[1]))))
    return sums[k]


def _float32_sums(scale: float, most: int = 64) -> list[float]:
    """What 0, 1, 2 … ``most`` copies of ``scale`` add up to in float32, one at a time."""
    step, total, out = np.float32(scale), np.float32(0), [0.0]
    for _ in range(most):
        total = np.float32(total + step)
        out.append(float(total))
    return out


CODEC = ThreeThirteenCodec


# the compiled build of this module in its place, if it is current (compiled.py)
compiled.take(__name__)
