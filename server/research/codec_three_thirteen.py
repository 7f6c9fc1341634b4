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

from collections.abc import Mapping

import numpy as np

from cardarena.server.games.cards import CARD_TEXT, JOKER, SUIT_SYMBOLS

from .spaces import Codec

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


class ThreeThirteenCodec(Codec):
    game_id = "three-thirteen"
    num_actions = GO_OUT + CODES

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
        self._blank = np.zeros(self.size, dtype=np.float32)
        self._blank[0] = n / 8
        self._blank[1] = self.decks / 4
        # the scale of a copies slot: 1 / the copies of its card in the game
        per_card = np.full(CODES, 1.0 / self.decks, dtype=np.float32)
        per_card[JOKER] = 1.0 / (2 * self.decks)
        self._copy_scale = np.zeros(self.size, dtype=np.float32)
        for name, size in self._parts:
            start = self._start[name]
            if name in _COPIES:
                self._copy_scale[start:start + size] = np.tile(per_card, size // CODES)
            elif name in _MELDS:
                self._copy_scale[start:start + size] = 1.0 / self.decks

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
    def observe(self, view: Mapping) -> np.ndarray:
        # three lists, written into the tensor at once at the end: the slots set to 1 (one-hot
        # parts and flags), scalars with their values, and every copy of a card (add.at adds
        # them up and _copy_scale scales them; the table's melds count there too)
        st, n, code = self._start, self.players, CODE
        me = view["seat"]
        rnd = view["round"]
        wild = st["wild_cards"] + (rnd + 1) * 4           # R2: rank rnd + 2, codes from (rank-1)*4
        ones = [st["round"] + rnd - 1, wild, wild + 1, wild + 2, wild + 3, st["wild_cards"] + JOKER,
                st["phase"] + PHASES.index(view["phase"]),
                st["dealer"] + (view["dealer"] - me) % n]
        if view["turn"] >= 0 and view["phase"] != "over":
            ones.append(st["turn"] + (view["turn"] - me) % n)
        if view["taken_card"]:
            ones.append(st["taken_card"] + code[view["taken_card"]])
        if view["gone_out"] >= 0:
            ones.append(st["gone_out"] + (view["gone_out"] - me) % n)
        at = [st["stock"], st["stock"] + 1]
        val = [view["stock_size"] / self.cards, view["rebuilds"] / 2]
        copies = [st["hand"] + code[c] for c in view["hand"]]
        pile = view["discard_pile"]
        if pile:
            ones.append(st["pile_top"] + code[pile[-1]])
            start = st["pile"]
            copies += [start + code[c] for c in pile]
        upcard, start = st["upcard"], st["discards"]
        for c, by in zip(view["discards"], view["discarded_by"]):
            if by < 0:
                ones.append(upcard + code[c])
            else:
                copies.append(start + ((by - me) % n) * CODES + code[c])
        taken, size, melded, last, totals = (st["taken"], st["hand_size"], st["melded"],
                                             st["last_turn"], st["totals"])
        seats = view["seats"]
        for k in range(n):
            info = seats[(me + k) % n]
            if info["taken"]:
                copies += [taken + k * CODES + code[c] for c in info["taken"]]
            at += (size + k, totals + k)
            val += (info["hand_size"] / MAX_HAND, info["total"] / 100)
            if info["melded"]:
                ones.append(melded + k)
            if info["last_turn"]:
                ones.append(last + k)
        table, sets, runs = st["table"], st["table_sets"], st["table_runs"]
        for m in view["melds"]:
            copies += [table + code[c] for c in m["cards"]]
            if m["kind"] == "run":
                first = runs + SUIT[m["suit"]] * RANKS - 1
                copies.extend(range(first + m["low"], first + m["high"] + 1))
            else:
                copies.append(sets + RANK[m["rank"]] - 1)
        out = self._blank.copy()
        out[ones] = 1.0
        out[at] = val
        copies = np.array(copies, dtype=np.intp)
        np.add.at(out, copies, self._copy_scale[copies])
        return out

CODEC = ThreeThirteenCodec
