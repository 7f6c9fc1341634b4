"""Scouting and SCOUT as fixed spaces: action ids bounded by the largest hand the rules allow, and
a flat observation tensor of a seat's view.

The :class:`~cardarena.research.spaces.Codec` s of ``scouting`` (rulings S1–S8) and ``scout``
(O1–O7), whose play is the core they share, server/games/show_scout.py. They read only the view
and action JSON (``ScoutingView`` / ``ScoutView``, ``ScoutingAction`` / ``ScoutAction`` of
proto/cardarena/v1/scout.proto), so they serve in-process and over gRPC alike. ``M``, the
largest hand, is 34 with 3 players and 41 with 4 or 5; ``C``, the longest show, 12 (Scouting)
or 10 (SCOUT).

Observation
===========
``N`` seats, relative to the observer (block 0 is the observing seat); a card is ``F`` wide
(Scouting 12, SCOUT 20), ``V`` values (12, 10), ``P`` = N × H the cards in play. The table is
the tensor's layout (tests/research checks it against ``layout()``):

===============  ==========  ================================================================
name             size        value
===============  ==========  ================================================================
hand             M×F         slot ``i``: the card at hand position ``i`` (in hand order: shows
                             are adjacent cards)
table            C×F         the active show's cards in table order (its ends: the scouts)
table_info       N+4         owner's relative seat one-hot (N); kind one-hot (single, set,
                             run); cards / C
seat_known       N×M×F       per relative seat: its scouted cards, the way up they lie, at
                             their positions (cards never seen stay 0)
seat_state       N×10        per relative seat: hand size / M, captured / P, Scout chips / P,
                             Scout & Show used, hand turned (SCOUT), score / P, round's start
                             seat, to act, owner of the show, shows this round / 10 (capped);
                             a game's score may pass ±1 (it adds up N rounds)
round_scores     N×N         per relative seat, its score of each finished round / P
shown            N×V         per relative seat: the values it showed this round / 4 (Scouting:
                             4 cards a value) or / 9 (SCOUT); a card shown again after a
                             scout counts again
clock            6           phase one-hot (``flip``, ``play``, ``over``); round / rounds;
                             turns this round / the cap; Scout & Show in progress
===============  ==========  ================================================================

Nothing here is hidden from the seat: every part comes from its own view.

Design notes and measurements: docs/research.md (codec_show_scout).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from cardarena.research import compiled
from cardarena.server.games import scout, scouting, show_scout
from cardarena.server.games.show_scout import UNKNOWN

from .spaces import Codec, Tally, python_class

ENDS = ("left", "right")
#: the engine's end index (its action tuples) → ours
_END = tuple(ENDS.index(end) for end in show_scout._ENDS)
KINDS = ("single", "set", "run")
PHASES = ("flip", "play", "over")
SEAT_STATE = 10


def largest_hand(players: int, dealt: int) -> int:
    """The most cards a hand can hold: every card in play but one in each other hand (S6)."""
    return players * dealt - (players - 1)


@python_class
class ShowScoutCodec(Codec):
    """The codec both games share; a subclass names its game, cards and bounds."""

    #: the longest show; values 1 … V; copies of a value at most (for ``shown``)
    LONGEST_SHOW: ClassVar[int]
    VALUES: ClassVar[int]
    VALUE_COPIES: ClassVar[int]
    #: ways up a scouted card may be inserted (SCOUT: turned or not)
    WAYS: ClassVar[int] = 1
    HAS_FLIP: ClassVar[bool] = False
    #: card text → the offsets of its card cells (within F)
    CELLS: ClassVar[dict[str, tuple[int, ...]]]
    WIDTH: ClassVar[int]
    HAND_SIZES: ClassVar[Mapping[int, int]]
    TURN_CAP: ClassVar[int]

    def __init__(self, players: int, options: Mapping | None = None):
        super().__init__(players, options)
        n = players
        self.in_play = n * self.HAND_SIZES[n]
        M = self.max_hand = largest_hand(n, self.HAND_SIZES[n])
        C, T = self.LONGEST_SHOW, self.WAYS
        self._scouts = M * C
        self._flips = self._scouts + 4 * T * M
        self.num_actions = self._flips + (2 if self.HAS_FLIP else 0)
        F = self.WIDTH
        self._rel = [{(me + k) % n: k for k in range(n)} for me in range(n)]  # seat → relative, by observer
        self._lay_out([
            ("hand", M * F), ("table", C * F), ("table_info", n + 4), ("seat_known", n * M * F),
            ("seat_state", n * SEAT_STATE), ("round_scores", n * n), ("shown", n * self.VALUES),
            ("clock", 6),
        ])
        self._phase_at = {p: self._start["clock"] + i for i, p in enumerate(PHASES)}
        st, cells = self._start, self.CELLS
        # card text → its cells at slot i of the hand and of the table (unknown: none)
        self._hand_cells = [{c: tuple(st["hand"] + i * F + x for x in xs) for c, xs in cells.items()} | {UNKNOWN: ()}
                            for i in range(M)]
        self._table_cells = [{c: tuple(st["table"] + i * F + x for x in xs) for c, xs in cells.items()}
                             for i in range(C)]
        self._known_cells = [[{c: tuple(st["seat_known"] + (k * M + i) * F + x for x in xs) for c, xs in cells.items()}
                              | {UNKNOWN: ()} for i in range(M)] for k in range(n)]
        # a value v shown by the seat k places left: its slot; what j copies add up to, one at a time
        self._shown_at = [{v: st["shown"] + k * self.VALUES + v - 1 for v in range(1, self.VALUES + 1)}
                          for k in range(n)]
        per, total, per_copy = 1 / self.VALUE_COPIES, 0.0, [0.0]
        for _ in range(self.LONGEST_SHOW * self.TURN_CAP):  # at most a show a turn
            total += per
            per_copy.append(total)
        values = [per_copy] * self.size  # read at the shown slots only
        self._shown = Tally(self, "_shown_cells", values)
        # the indices of each relative seat's seat_state block and of its round_scores row
        self._state_at = [list(range(st["seat_state"] + k * SEAT_STATE, st["seat_state"] + (k + 1) * SEAT_STATE))
                          for k in range(n)]
        self._scores_at = [list(range(st["round_scores"] + k * n, st["round_scores"] + (k + 1) * n)) for k in range(n)]

    # ----- actions ----------------------------------------------------------------------------
    def action_id(self, action_json: Mapping) -> int:
        if "show" in action_json:
            a = action_json["show"]
            return a["start"] * self.LONGEST_SHOW + a["count"] - 1
        if "flip" in action_json:
            return self._flips + bool(action_json["flip"]["turn_hand"])
        sns = "scout_and_show" in action_json
        a = action_json["scout_and_show" if sns else "scout"]
        T, M = self.WAYS, self.max_hand
        way = ((2 * sns + ENDS.index(a["end"])) * T + bool(a["turned"]))
        return self._scouts + way * M + a["position"]

    def engine_ids(self, game: Any, actions: Sequence[Any]) -> list[int]:
        """The ids of the engine's legal actions, read from their tuples (the forms of
        games/show_scout.py's docstring), as ``action_id(game.action_json(a))`` gives them
        (tests/research holds the two equal). Not remembered per action as other games' are: a
        show's tuple names its cards, so few come again."""
        C: int = self.LONGEST_SHOW
        T: int = self.WAYS
        M: int = self.max_hand
        scouts: int = self._scouts
        flips: int = self._flips
        ids: list[int] = []
        for a in actions:
            kind: int = a[0]
            if kind == show_scout.SHOW:
                ids.append(a[1] * C + a[2] - 1)
            elif kind == show_scout.FLIP:
                ids.append(flips + (1 if a[1] else 0))
            else:
                way: int = (2 if kind == show_scout.SCOUT_AND_SHOW else 0) + _END[a[1]]
                ids.append(scouts + (way * T + (1 if a[2] else 0)) * M + a[3])
        return ids

    def action_json_of(self, action_id: int) -> dict:
        if not 0 <= action_id < self.num_actions:
            raise ValueError(f"{self.game_id}: no action id {action_id} (0–{self.num_actions - 1})")
        if action_id < self._scouts:
            start, k = divmod(action_id, self.LONGEST_SHOW)
            return {"show": {"start": start, "count": k + 1}}
        if action_id >= self._flips:
            return {"flip": {"turn_hand": action_id > self._flips}}
        way, position = divmod(action_id - self._scouts, self.max_hand)
        way, turned = divmod(way, self.WAYS)
        sns, end = divmod(way, 2)
        return {"scout_and_show" if sns else "scout":
                {"end": ENDS[end], "turned": bool(turned), "position": position}}

    # ----- observations -----------------------------------------------------------------------
    def _shown_cells(self, me: int, shows: list[dict[str, Any]]) -> list[int]:
        """The slots of the values of ``shows``, as seat ``me`` sees them."""
        rel: dict[int, int] = self._rel[me]
        shown_at: list[dict[int, Any]] = self._shown_at  # (Any: see encode)
        cells: list[int] = []
        for s in shows:
            seat: int = s["seat"]
            at = shown_at[rel[seat]]
            for v in s["values"]:
                cells.append(at[v])
        return cells

    def encode(self, view: Mapping[str, Any]) -> tuple[list[int], list[int], list[float]]:
        # typed for the compiled build (compile_codecs.py); the indices are made once (a compiled
        # int is boxed anew, a new object, when a list takes it) and passed along as objects
        st: dict[str, int] = self._start
        n: int = self.players
        M: int = self.max_hand
        C: int = self.LONGEST_SHOW
        me: int = view["seat"]
        rel: dict[int, int] = self._rel[me]
        # the hand's and the table's cells, slot by slot: [slot][card] → the card's cells there
        ones: list[int] = []
        hand_cells: list[dict[str, tuple[int, ...]]] = self._hand_cells
        i = 0
        for c in view["hand"]:
            ones += hand_cells[i][c]
            i += 1
        table: dict[str, Any] = view["table"]
        table_cards: list[str] = table["cards"]
        table_cells: list[dict[str, tuple[int, ...]]] = self._table_cells
        i = 0
        for c in table_cards:
            ones += table_cells[i][c]
            i += 1
        info_at = st["table_info"]
        owner: int = table["owner"]
        if owner >= 0:
            ones.append(info_at + rel[owner])
        if table["kind"]:
            ones.append(info_at + n + KINDS.index(table["kind"]))
        seats: list[dict[str, Any]] = view["seats"]
        known_cells: list[list[dict[str, tuple[int, ...]]]] = self._known_cells
        for info in seats:
            cards: list[str] = info["known"]
            if cards.count(UNKNOWN) < len(cards):
                seat: int = info["seat"]
                cells = known_cells[rel[seat]]
                i = 0
                for c in cards:
                    ones += cells[i][c]
                    i += 1
        ones.append(self._phase_at[view["phase"]])
        clock = st["clock"]
        at: list[int] = [info_at + n + 3, clock + 3, clock + 4, clock + 5]
        val: list[float] = [len(table_cards) / C, view["round"] / view["rounds"],
                            view["round_actions"] / view["action_cap"], view["scout_and_show_in_progress"]]
        # the values each seat showed this round: a copy counts 1 / VALUE_COPIES (the round's
        # shows only grow, and views share them: counted by what was added, Tally)
        shows: list[dict[str, Any]] = view["shows"]
        per_seat = [0] * n  # shows by relative seat
        if shows:
            shown = self._shown.entries(me, shows)
            at += shown[0]
            val += shown[1]
            for x in shows:
                seat = x["seat"]
                per_seat[rel[seat]] += 1
        start: int = view["start_seat"]
        turn: int = view["turn"]
        state_at: list[list[Any]] = self._state_at
        scores_at: list[list[Any]] = self._scores_at
        scale = 1 / self.in_play
        for info in seats:
            s: int = info["seat"]
            k = rel[s]
            at += state_at[k]
            val += (info["hand_size"] / M, info["captured"] * scale, info["scout_chips"] * scale,
                    info["scout_and_show_used"], info["turned_hand"], info["score"] * scale,
                    start == s, turn == s, owner == s, min(per_seat[k] / 10, 1.0))
            rs: list[Any] = info["round_scores"]
            if rs:
                at += scores_at[k][:len(rs)]
                for score in rs:
                    val.append(score * scale)
        return ones, at, val


@python_class
class ScoutingCodec(ShowScoutCodec):
    game_id = "scouting"
    LONGEST_SHOW = 12
    VALUES = 12
    VALUE_COPIES = 4
    WIDTH = 12
    HAND_SIZES = scouting.HAND_SIZES
    TURN_CAP = scouting.Scouting.TURN_CAP
    CELLS = {scouting.Scouting.TEXT[c]: (scouting.Scouting.VALUE[c] - 1,) for c in scouting.DECK}


@python_class
class ScoutCodec(ShowScoutCodec):
    game_id = "scout"
    LONGEST_SHOW = 10
    VALUES = 10
    VALUE_COPIES = 9
    WAYS = 2
    HAS_FLIP = True
    WIDTH = 20
    HAND_SIZES = scout.HAND_SIZES
    TURN_CAP = scout.Scout.TURN_CAP
    CELLS = {scout.TEXT[c]: (scout.VALUE[c] - 1, 10 + scout.VALUE[scout.TURN[c]] - 1)
             for c in scout.deck_for(5) + [scout.TURN[c] for c in scout.deck_for(5)]}


CODEC = {"scouting": ScoutingCodec, "scout": ScoutCodec}


# the compiled build of this module in its place, if it is current (compiled.py)
compiled.take(__name__)
