"""Unsorted as fixed spaces: action ids bounded by the largest hand the rules allow, and a flat
observation tensor of a seat's view.

The :class:`~cardarena.research.spaces.Codec` of ``unsorted`` (rules: server/games/unsorted.py,
rulings U1–U17). It reads only the view and action JSON (``UnsortedView``, ``UnsortedAction`` of
proto/cardarena/v1/unsorted.proto), so it serves in-process and over gRPC alike. ``L``, the
largest hand, is **17** with 3 or 4 players and **14** with 5; ``num_actions`` = 65 L.

Observation
===========
``N`` seats, relative to the observer (block 0 is the observing seat); ``F`` = 15 card faces
(0 joker, 1 … 12 A … Q, 13 Stop, 14 Draw). The table is the tensor's layout (tests/research
checks it against ``layout()``):

===============  ============  ==========================================================
name             size          value
===============  ============  ==========================================================
hand             L×F           slot ``i``: one-hot face of the card at hand position ``i``
drawn_card       F             phase ``draw``, own view: one-hot face of the card to place
seat_known       N×L×F         per relative seat: faces known to all, at their positions
                               (spares taken; "" elsewhere stays 0)
seat_spares      N×2×F         per relative seat: one-hot face of each spare still there
seat_state       N×9           per relative seat: chips / 3, hand size / L, out, acted this
                               round, leader, to act, drawer, still to act, lost last deal
plays            N×(N+25)      this round's plays in order (a round has at most N: each seat
                               acts once): relative seat one-hot (N), kind one-hot (7,
                               Stop and Draw included), number / 12, position / L, cards as
                               face counts / 3 (F), is the highest
bar              6             the highest combination: kind one-hot (5), number / 12
discard          F             faces on the discard pile / copies in the deck (4; 2 jokers,
                               2 Stop, 2 Draw)
seat_history     N×(F+2)       per relative seat, this deal's earlier rounds: faces played /
                               4, rounds won / 10 (capped at 1), cards drawn / 6
clock            10            phase one-hot (``play``, ``draw``, ``over``); deal / (chips
                               in the game + 1); round / 54; draw pile / its size after the
                               deal; Draw cards played this round / 2; cards still to draw
                               / 6; must lead (own turn, nothing played); deals left /
                               ``max_deals`` (0 without a cap)
===============  ============  ==========================================================

Nothing here is hidden from the seat: every part comes from its own view.

Design notes and measurements: docs/research.md (codec_unsorted).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cardarena.research import compiled
from cardarena.server.games.cards import CARD_TEXT, JOKER
from cardarena.server.games import unsorted
from cardarena.server.games.unsorted import DRAW_CARDS, KIND_NAME, KIND_OF_NAME, RANK, STOP_CARDS

from .spaces import Codec, python_class

FACES = 15
STOP_FACE, DRAW_FACE = 13, 14
#: card text → face (0 joker, 1–12 number, 13 Stop, 14 Draw)
FACE: dict[str, int] = {CARD_TEXT[c]: RANK[c] for c in range(52) if RANK[c] <= 12}
FACE |= {CARD_TEXT[JOKER]: 0}
FACE |= {CARD_TEXT[c]: STOP_FACE for c in STOP_CARDS} | {CARD_TEXT[c]: DRAW_FACE for c in DRAW_CARDS}
#: copies of each face in the deck (U1)
COPIES = (2,) + (4,) * 12 + (2, 2)
INV_COPIES = tuple(1 / c for c in COPIES)
#: what 0 … 3 cards of a play count, 1/3 each, added one at a time
THIRDS = (0.0, 1 / 3, 1 / 3 + 1 / 3, 1 / 3 + 1 / 3 + 1 / 3)
COMBINATION_KINDS = 5           # single … three of a kind (U2)
NUMBERS = 12
PER_POSITION = COMBINATION_KINDS * NUMBERS
KINDS = len(KIND_NAME)          # the plays' kinds, Stop and Draw included
PHASES = ("play", "draw", "over")
SEAT_STATE = 9
ROUND_BOUND = 54
#: the id blocks after the plays' (× L): Stop, Draw, the two spares, the drawn card
STOP_BLOCK = PER_POSITION
DRAW_BLOCK = STOP_BLOCK + 1
SPARE_BLOCK = DRAW_BLOCK + 1
PLACE_BLOCK = SPARE_BLOCK + 2


def largest_hand(players: int) -> int:
    """The most cards a hand can hold with ``players`` seats: dealt + 2 spares + 5 (see above)."""
    return (7 if players == 5 else 10) + 7


@python_class
class UnsortedCodec(Codec):
    game_id = "unsorted"

    def __init__(self, players: int, options: Mapping | None = None):
        super().__init__(players, options)
        n = players
        L = self.max_hand = largest_hand(n)
        self.num_actions = (PLACE_BLOCK + 1) * L   # 65 L
        dealt = L - 7
        self.pile_after_deal = 54 - n * (dealt + 2)
        self.chips_in_game = n * (3 if n < 5 or self.options["long_game"] else 2)
        self._play_size = n + KINDS + 3 + FACES
        self._rel = [{(me + k) % n: k for k in range(n)} for me in range(n)]  # seat → relative, by observer
        self._lay_out([
            ("hand", L * FACES), ("drawn_card", FACES), ("seat_known", n * L * FACES),
            ("seat_spares", n * 2 * FACES), ("seat_state", n * SEAT_STATE),
            ("plays", n * self._play_size), ("bar", COMBINATION_KINDS + 1), ("discard", FACES),
            ("seat_history", n * (FACES + 2)), ("clock", 10),
        ])

    # ----- actions ----------------------------------------------------------------------------
    def action_id(self, action_json: Mapping) -> int:
        L = self.max_hand
        if "play" in action_json:
            a = action_json["play"]
            return a["position"] * PER_POSITION + (KIND_OF_NAME[a["kind"]] - 1) * NUMBERS + a["number"] - 1
        if "take_spare" in action_json:
            a = action_json["take_spare"]
            return (SPARE_BLOCK + a["spare"]) * L + a["position"]
        for key, block in (("stop", STOP_BLOCK), ("draw", DRAW_BLOCK), ("put_drawn", PLACE_BLOCK)):
            if key in action_json:
                return block * L + action_json[key]["position"]
        raise ValueError(f"unsorted: not an action: {action_json!r}")

    def engine_ids(self, game: Any, actions: Sequence[Any]) -> list[int]:
        """The ids of the engine's legal actions, read from their tuples (the table of
        games/unsorted.py's docstring), as ``action_id(game.action_json(a))`` gives them
        (tests/research holds the two equal). Not remembered per action as other games' are: a
        play's tuple names its cards, so few come again."""
        L: int = self.max_hand
        ids: list[int] = []
        for a in actions:
            tag: int = a[0]
            if tag == unsorted.PLAY:  # (PLAY, start, cards, kind, number, jokers, flag)
                ids.append(a[1] * PER_POSITION + (a[3] - 1) * NUMBERS + a[4] - 1)
            elif tag == unsorted.STOP:
                ids.append(STOP_BLOCK * L + a[1])
            elif tag == unsorted.DRAW:
                ids.append(DRAW_BLOCK * L + a[1])
            elif tag == unsorted.SPARE:  # (SPARE, spare, card, position)
                ids.append((SPARE_BLOCK + a[1]) * L + a[3])
            else:  # (PLACE, card, position)
                ids.append(PLACE_BLOCK * L + a[2])
        return ids

    def action_json_of(self, action_id: int) -> dict:
        L = self.max_hand
        if not 0 <= action_id < self.num_actions:
            raise ValueError(f"unsorted: no action id {action_id} (0–{self.num_actions - 1})")
        block, p = divmod(action_id, L)
        if block < STOP_BLOCK:
            position, k = divmod(action_id, PER_POSITION)
            kind, number = divmod(k, NUMBERS)
            return {"play": {"position": position, "kind": KIND_NAME[kind + 1], "number": number + 1}}
        if block == STOP_BLOCK:
            return {"stop": {"position": p}}
        if block == DRAW_BLOCK:
            return {"draw": {"position": p}}
        if block < PLACE_BLOCK:
            return {"take_spare": {"spare": block - SPARE_BLOCK, "position": p}}
        return {"put_drawn": {"position": p}}

    # ----- observations -----------------------------------------------------------------------
    def encode(self, view: Mapping[str, Any]) -> tuple[list[int], list[int], list[float]]:
        # typed for the compiled build (compile_codecs.py)
        st: dict[str, int] = self._start
        n: int = self.players
        L: int = self.max_hand
        face: dict[str, int] = FACE
        me: int = view["seat"]
        rel: dict[int, int] = self._rel[me]
        # the one-hot cells to ``ones``, the values to (at, val); the parts where counts collide
        # (the plays' cards, the discard pile, the earlier rounds) are counted and added last
        first = st["hand"]
        ones: list[int] = []
        i = 0
        for c in view["hand"]:
            ones.append(first + i * FACES + face[c])
            i += 1
        if view["drawn_card"]:
            ones.append(st["drawn_card"] + face[view["drawn_card"]])
        known, spares, state = st["seat_known"], st["seat_spares"], st["seat_state"]
        leader: int = view["leader"]
        turn: int = view["turn"]
        drawer: int = view["drawer"]
        still: list[int] = view["still_to_act"]
        lost: list[int] = view["last_deal_losers"]
        at: list[int] = []
        val: list[float] = []
        for info in view["seats"]:
            s: int = info["seat"]
            k = rel[s]
            cards: list[str] = info["known"]
            first = known + k * L * FACES
            i = 0
            for c in cards:
                if c:
                    ones.append(first + i * FACES + face[c])
                i += 1
            first = spares + k * 2 * FACES
            i = 0
            for c in info["spares"]:
                ones.append(first + i * FACES + face[c])
                i += 1
            first = state + k * SEAT_STATE
            for j in range(first, first + SEAT_STATE):
                at.append(j)
            val += (info["chips"] / 3, info["hand_size"] / L, info["out"], info["acted"],
                    leader == s, turn == s, drawer == s, s in still, s in lost)
        size: int = self._play_size
        highest: int = view["highest"]
        plays: list[dict[str, Any]] = view["plays"]
        if plays:
            thirds: dict[int, int] = {}  # the plays' cards, 1/3 a card
            j = 0
            for p in plays:
                first = st["plays"] + j * size
                m = first + n + KINDS
                seat: int = p["seat"]
                ones.append(first + rel[seat])
                ones.append(first + n + KIND_OF_NAME[p["kind"]] - 1)
                at.append(m)
                at.append(m + 1)
                at.append(first + size - 1)
                val.append(p["number"] / NUMBERS)
                val.append(p["position"] / L)
                val.append(j == highest)
                for c in p["cards"]:
                    cell = m + 2 + face[c]
                    thirds[cell] = thirds.get(cell, 0) + 1
                j += 1
            if highest >= 0:
                p = plays[highest]
                ones.append(st["bar"] + KIND_OF_NAME[p["kind"]] - 1)
                at.append(st["bar"] + COMBINATION_KINDS)
                val.append(p["number"] / NUMBERS)
            for cell, k in thirds.items():
                at.append(cell)
                val.append(THIRDS[k])
        discard: list[str] = view["discard"]
        if discard:
            faces: dict[int, int] = {}
            for c in discard:
                f = face[c]
                faces[f] = faces.get(f, 0) + 1
            first = st["discard"]
            for f, k in faces.items():
                at.append(first + f)
                val.append(k * INV_COPIES[f])  # halves and quarters: exact
        hist, stride = st["seat_history"], FACES + 2
        won = [0] * n
        rounds: list[dict[str, Any]] = view["earlier_rounds"]
        if rounds:
            drawn: dict[int, float] = {}
            quarters: dict[int, int] = {}
            for r in rounds:
                winner: int = r["winner"]
                k = rel[winner]
                won[k] += 1
                cell = hist + k * stride + FACES + 1
                drawn[cell] = drawn.get(cell, 0.0) + r["drawn"] / 6
                for p in r["plays"]:
                    seat = p["seat"]
                    first = hist + rel[seat] * stride
                    for c in p["cards"]:
                        cell = first + face[c]
                        quarters[cell] = quarters.get(cell, 0) + 1
            for cell, x in drawn.items():
                at.append(cell)
                val.append(x)
            for cell, k in quarters.items():
                at.append(cell)
                val.append(k * 0.25)
        for k in range(n):
            at.append(hist + k * stride + FACES)
            val.append(min(won[k] / 10, 1.0))
        first = st["clock"]
        phase: str = view["phase"]
        cap = view["max_deals"]
        ones.append(first + PHASES.index(phase))
        at += (first + 3, first + 4, first + 5, first + 6, first + 7, first + 8, first + 9)
        val += (view["deal"] / (self.chips_in_game + 1), view["round"] / ROUND_BOUND,
                view["draw_pile_size"] / self.pile_after_deal, view["draws_played"] / 2,
                view["cards_to_draw"] / 6,
                turn == me and leader == me and not plays and phase == "play",
                (cap - view["deal"]) / cap if cap else 0.0)
        return ones, at, val


CODEC = UnsortedCodec


# the compiled build of this module in its place, if it is current (compiled.py)
compiled.take(__name__)
