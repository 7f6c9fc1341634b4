"""The shared core of the show-or-scout games: SCOUT (``scout``) and Scouting (``scouting``).

Both games are played with a hand that is never sorted. On a turn a seat either *shows*
adjacent cards of its hand that beat the active show on the table, or *scouts* one card from an
end of that show into any position of its hand, or once per round does both (*Scout & Show*).
This module holds everything the two games share; :mod:`.scout` and :mod:`.scouting` add their
decks (and SCOUT its two-valued cards and the whole-hand flip). The rulings are those of
RULINGS.md; Scouting numbers them S1–S8, SCOUT O1–O7 (O3 says "as in Scouting, S2–S6"):

* S2 — a show is adjacent cards in hand order, all equal (a *set*, any number) or consecutive
  rising or falling as they sit (a *run*: 4-5-6 or 6-5-4, never 5-4-6); no wrap. One card is a
  show (a *single*).
* S3 — strength: more cards beat fewer; with the same count a set beats a run; otherwise the
  higher lowest card wins; equal does not beat. Singles compare by value.
* S4 — Show: the beaten show goes face down to the shower (1 point a card); an empty table
  takes any show. Scout: one card from either end of the active show into any position
  0…len(hand); the show's owner scores 1 (a Scout chip); impossible on an empty table; scouting
  the last card empties the table and its owner stays owner for the round-end check.
* S5 — Scout & Show, once per round, as two decisions of the same seat in one turn: the first
  offers only the scouts after which a beating show exists, the second only the shows that beat
  what remains of the active show.
* S6 / O4 — the round ends when a hand is empty after a show, or when play would return to the
  show's owner and everybody else only scouted since (then that owner is exempt). Each seat
  scores +1 per captured card, +1 per Scout chip, −1 per card left in hand (negatives allowed).
* S7 / O5 — as many rounds as players; round 1 starts at seat 0, then the start moves left
  (seat + 1); highest total wins; ties share a place.
* S8 / O6 — cap: ``TURN_CAP`` turns per round (Scouting 200, SCOUT 300; a Scout & Show is one
  turn, counted at its show, so the cap never falls between its scout and its show), then the
  round is scored as it stands, without the owner's exemption. Default: the weakest show that
  beats the table if there is one (of equal ones the first listed; the second half of a Scout &
  Show always has one), else scout the left end, not turned, to position 0; SCOUT's flip: keep
  the hand. On an empty table every show beats it, so the default shows the lowest single (the
  leftmost of equal ones), not S8's "leftmost single": with the leftmost single a card scouted
  to position 0 off a one-card show came straight back on the emptied table, and 3- and
  5-player all-default rounds still circled to the cap (50 of the 600 rounds of 3-player
  Scouting's seeds 0–199).

House details where the rulings are silent (also in the game modules' docstrings):

* A one-card show has one end: it is offered only as "left" (scouting it "right" would be the
  same move twice).
* Every action names the cards it moves, so an action is legal only in the hand it was listed
  for; shows are listed by start position then length, scouts by end, turn, position.
* Everything about a seat that the table sees is public: scouted cards keep their identity and
  position in the new hand (they shift as cards around them leave or arrive), the shows of the
  round and who made them, captured counts, chips, Scout & Show markers, scores.

``spectator_view()`` is a view without the seat's own keys (``seat``, ``hand``, ``hand_values``,
``hand_other_values``): what a spectator of a live match is shown.

Cards are small int codes; a game class supplies ``VALUE`` (code → active value), ``TEXT``
(code → text) and, for two-valued cards, ``TURN`` (code → the same card turned round).

Actions (internal tuples, hashable; ``action_json`` gives the typed wire form):

=============================================  ===============================================
``(SHOW, start, count, cards)``                 show ``count`` cards of the hand from ``start``
``(SCOUT, end, turned, position, card)``        scout the left (0) / right (1) end card
``(SCOUT_AND_SHOW, end, turned, position, c)``  the scout that opens a Scout & Show
``(FLIP, turn)``                                SCOUT only: turn the whole hand (1) or keep it (0)
=============================================  ===============================================
"""
from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from . import cards as _cards
from .base import Event, Game, IllegalAction, Result

SHOW, SCOUT, SCOUT_AND_SHOW, FLIP = 0, 1, 2, 3

PHASE_FLIP, PHASE_PLAY, PHASE_OVER = 0, 1, 2
_PHASE_NAMES = ("flip", "play", "over")
_ENDS = ("left", "right")

#: a show's strength as one int: count first, then set over run, then the lowest value (S3)
_COUNT, _SET = 1000, 100

UNKNOWN = "?"  # a card of another hand whose face the seat has not seen


def show_key(values) -> int:
    """The strength of a show (S3) as an int: a higher key beats a lower one, equal does not.

    0 for an empty table (every show beats it). ``values`` must be a show (S2)."""
    n = len(values)
    if n == 0:
        return 0
    low = min(values)
    if n == 1 or values[0] == values[1]:
        return n * _COUNT + _SET + low
    return n * _COUNT + low


def is_show(values) -> bool:
    """S2: all equal, or consecutive rising or falling in the order given; one card is a show."""
    n = len(values)
    if n == 0:
        return False
    if n == 1:
        return True
    d = values[1] - values[0]
    if d not in (-1, 0, 1):
        return False
    return all(values[i + 1] - values[i] == d for i in range(n - 1))


def show_kind(values) -> str:
    """"single", "set" or "run" ("" for no cards)."""
    n = len(values)
    if n == 0:
        return ""
    if n == 1:
        return "single"
    return "set" if values[0] == values[1] else "run"


def shows_in(values) -> list[tuple[int, int, int]]:
    """Every show of a hand (S2) as ``(start, count, key)``, by start then count."""
    out = []
    n = len(values)
    for i in range(n):
        v = values[i]
        out.append((i, 1, _COUNT + _SET + v))
        if i + 1 >= n:
            continue
        d = values[i + 1] - v
        if d == 0:
            j = i + 1
            while True:
                out.append((i, j - i + 1, (j - i + 1) * _COUNT + _SET + v))
                if j + 1 < n and values[j + 1] == v:
                    j += 1
                else:
                    break
        elif d == 1 or d == -1:
            j = i + 1
            while True:
                w = values[j]
                out.append((i, j - i + 1, (j - i + 1) * _COUNT + (v if d == 1 else w)))
                if j + 1 < n and values[j + 1] - w == d:
                    j += 1
                else:
                    break
    return out


def best_keys_after_insert(values, v: int) -> list[int]:
    """For each position p in 0…len(values): the key of the strongest show of the hand after
    inserting a card of value ``v`` at p. O(len) for all positions together (S5's offer)."""
    n = len(values)
    eqL = [1] * n
    upL = [1] * n
    dnL = [1] * n
    for j in range(1, n):
        d = values[j] - values[j - 1]
        if d == 0:
            eqL[j] = eqL[j - 1] + 1
        elif d == 1:
            upL[j] = upL[j - 1] + 1
        elif d == -1:
            dnL[j] = dnL[j - 1] + 1
    eqR = [1] * n
    upR = [1] * n
    dnR = [1] * n
    for j in range(n - 2, -1, -1):
        d = values[j + 1] - values[j]
        if d == 0:
            eqR[j] = eqR[j + 1] + 1
        elif d == 1:
            upR[j] = upR[j + 1] + 1
        elif d == -1:
            dnR[j] = dnR[j + 1] + 1
    pref = [0] * (n + 1)
    for j in range(n):
        x = values[j]
        k = eqL[j] * _COUNT + _SET + x
        if upL[j] > 1:
            k = max(k, upL[j] * _COUNT + x - upL[j] + 1)
        if dnL[j] > 1:
            k = max(k, dnL[j] * _COUNT + x)
        pref[j + 1] = max(pref[j], k)
    suf = [0] * (n + 1)
    for j in range(n - 1, -1, -1):
        x = values[j]
        k = eqR[j] * _COUNT + _SET + x
        if upR[j] > 1:
            k = max(k, upR[j] * _COUNT + x)
        if dnR[j] > 1:
            k = max(k, dnR[j] * _COUNT + x - dnR[j] + 1)
        suf[j] = max(suf[j + 1], k)
    out = []
    for p in range(n + 1):
        best = pref[p] if pref[p] > suf[p] else suf[p]
        left = values[p - 1] if p > 0 else None
        right = values[p] if p < n else None
        a = eqL[p - 1] if left == v else 0
        b = eqR[p] if right == v else 0
        k = (a + b + 1) * _COUNT + _SET + v
        if k > best:
            best = k
        a = upL[p - 1] if left == v - 1 else 0
        b = upR[p] if right == v + 1 else 0
        if a or b:
            k = (a + b + 1) * _COUNT + v - a
            if k > best:
                best = k
        a = dnL[p - 1] if left == v + 1 else 0
        b = dnR[p] if right == v - 1 else 0
        if a or b:
            k = (a + b + 1) * _COUNT + v - b
            if k > best:
                best = k
        out.append(best)
    return out


class ShowScoutGame(Game):
    """The state machine both games share; a subclass supplies the cards and the deal."""

    min_players = 3
    max_players = 5

    #: code → active value; code → text; code → the card turned round (None: cards never turn)
    VALUE: ClassVar[tuple[int, ...]] = ()
    TEXT: ClassVar[tuple[str, ...]] = ()
    TURN: ClassVar[tuple[int, ...] | None] = None
    #: turns per round before the round is scored as it stands (S8 / O6); a Scout & Show is one
    TURN_CAP: ClassVar[int] = 200
    engine_version = 2  # 2: the cap counts whole turns (it counted decisions)
    #: SCOUT: every round opens with the sealed whole-hand flip decision (O2)
    HAS_FLIP: ClassVar[bool] = False

    # ----- what a subclass supplies -----------------------------------------------------------
    @abstractmethod
    def deck(self) -> list[int]:
        """The cards used with this many players, in a fixed order (codes)."""

    @abstractmethod
    def hand_size(self) -> int:
        """Cards dealt to each seat with this many players."""

    def canonical(self, card: int) -> int:
        """The card's identity regardless of which way up it is."""
        return card

    @classmethod
    def card_label(cls, card: int) -> str:
        """A card in labels: its value (Scouting) or both values (SCOUT, "3/7")."""
        return str(cls.VALUE[card])

    # ----- setup ------------------------------------------------------------------------------
    def __init__(self, players: int, seed: int, options: Mapping | None = None):
        super().__init__(players, seed, options)
        n = players
        self.rng = _cards.new_rng(seed)
        self.round = 0  # 0-based; shown as round + 1
        self.rounds = n
        self.totals = [0] * n
        self.round_scores: list[list[int]] = [[] for _ in range(n)]
        self.phase = PHASE_PLAY
        self._legal: list | None = None
        self._legal_seat = -1
        self._opening: list[Event] = self._start_round()

    def _start_round(self) -> list[Event]:
        n = self.players
        self.start_seat = self.round % n
        self.turn = self.start_seat
        deck = self.deck()
        self.rng.shuffle(deck)
        if self.TURN is not None:
            turn = self.TURN
            deck = [turn[c] if self.rng.random() < 0.5 else c for c in deck]
        size = self.hand_size()
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(size * n):
            hands[i % n].append(deck[i])
        self.hands = hands
        self.out = deck[size * n:]  # S1: the rest stays out unseen
        self.known = [[False] * size for _ in range(n)]
        self.table: list[int] = []
        self.table_key = 0
        self.owner = -1
        self.captured = [0] * n
        self.chips = [0] * n
        self.sns_used = [False] * n
        self.sns_pending = False
        self.turned_hand = [False] * n
        self.round_turns = 0
        self.shows: list[dict] = []
        self.phase = PHASE_FLIP if self.HAS_FLIP else PHASE_PLAY
        self._legal = None
        text = self.TEXT
        events = [Event({"type": "round_start", "round": self.round + 1, "start_seat": self.start_seat,
                         "hand_sizes": [size] * n})]
        for s in range(n):
            events.append(Event({"type": "deal", "round": self.round + 1, "seat": s,
                                 "hand": [text[c] for c in hands[s]]}, frozenset((s,))))
        return events

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    def copy(self) -> "ShowScoutGame":
        g = object.__new__(type(self))
        d = self.__dict__.copy()
        d["options"] = dict(self.options)
        d["rng"] = random.Random()
        d["rng"].setstate(self.rng.getstate())
        for k in ("totals", "table", "out", "captured", "chips", "sns_used", "turned_hand", "shows"):
            d[k] = list(d[k])
        for k in ("round_scores", "hands", "known"):
            d[k] = [list(x) for x in d[k]]
        g.__dict__.update(d)
        return g

    # ----- decisions --------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.phase == PHASE_PLAY:
            return (self.turn,)
        if self.phase == PHASE_FLIP:
            return tuple(range(self.players))
        return ()

    def legal_actions(self, seat: int) -> list:
        if self.phase == PHASE_FLIP:
            return [(FLIP, 0), (FLIP, 1)] if 0 <= seat < self.players else []
        if self.phase != PHASE_PLAY or seat != self.turn:
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _values(self, seat: int) -> list[int]:
        value = self.VALUE
        return [value[c] for c in self.hands[seat]]

    def _compute_legal(self) -> list:
        seat = self.turn
        hand = self.hands[seat]
        vals = self._values(seat)
        table_key = self.table_key
        out: list = [(SHOW, i, k, tuple(hand[i:i + k])) for i, k, key in shows_in(vals) if key > table_key]
        if self.sns_pending or not self.table:
            return out  # S5 second half: shows only; S4: no scout on an empty table
        ends = (0,) if len(self.table) == 1 else (0, 1)
        turns = (False, True) if self.TURN is not None else (False,)
        positions = range(len(hand) + 1)
        scouts = []
        for end in ends:
            card = self.table[0] if end == 0 else self.table[-1]
            for turned in turns:
                scouts.extend((SCOUT, end, turned, p, card) for p in positions)
        out.extend(scouts)
        if not self.sns_used[seat]:
            value = self.VALUE
            for end in ends:
                card = self.table[0] if end == 0 else self.table[-1]
                rest = self.table[1:] if end == 0 else self.table[:-1]
                rest_key = show_key([value[c] for c in rest])
                for turned in turns:
                    v = value[self.TURN[card]] if turned else value[card]
                    best = best_keys_after_insert(vals, v)
                    out.extend((SCOUT_AND_SHOW, end, turned, p, card)
                               for p in positions if best[p] > rest_key)
        return out

    def default_action(self, seat: int):
        """S8 / O6: flip → keep the hand; else the weakest show that beats the table (of equal
        ones the first listed; on an empty table the lowest single), or with none, scout the
        left end, not turned, to position 0."""
        legal = self.legal_actions(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} is not to act")
        if self.phase == PHASE_FLIP:
            return (FLIP, 0)
        value = self.VALUE
        beating = [a for a in legal if a[0] == SHOW]
        if beating:
            return min(beating, key=lambda a: show_key([value[c] for c in a[3]]))
        return (SCOUT, 0, False, 0, self.table[0])

    # ----- applying ---------------------------------------------------------------------------
    def apply(self, actions: Mapping[int, object]) -> list[Event]:
        seats = self.to_act()
        if len(actions) != len(seats) or any(s not in actions for s in seats):
            raise IllegalAction(f"seats to act are {list(seats)}, actions were given for {sorted(actions)}")
        for seat, action in actions.items():
            if action not in self.legal_actions(seat):
                raise IllegalAction(f"seat {seat}: {action!r} is not a legal action now")
        if self.phase == PHASE_FLIP:
            return self._apply_flip(actions)
        seat = self.turn
        action = actions[seat]
        self._legal = None
        if action[0] != SCOUT_AND_SHOW:
            self.round_turns += 1  # S8: a turn ends here; a Scout & Show ends at its show
        if action[0] == SHOW:
            events = self._apply_show(seat, action)
        else:
            events = self._apply_scout(seat, action)
        if self.phase == PHASE_PLAY and self.round_turns >= self.TURN_CAP:
            events.extend(self._end_round("cap", -1))
        return events

    def _apply_flip(self, actions: Mapping[int, object]) -> list[Event]:
        """O2: every seat decided sealed; a turned hand swaps the values of every card in place."""
        turn = self.TURN
        for s in range(self.players):
            if actions[s][1]:
                self.hands[s] = [turn[c] for c in self.hands[s]]
                self.turned_hand[s] = True
        self.phase = PHASE_PLAY
        self._legal = None
        events = [Event({"type": "hands_turned", "round": self.round + 1,
                         "turned": [bool(actions[s][1]) for s in range(self.players)]})]
        text = self.TEXT
        for s in range(self.players):
            if actions[s][1]:
                events.append(Event({"type": "hand", "seat": s, "hand": [text[c] for c in self.hands[s]]},
                                    frozenset((s,))))
        return events

    def _apply_show(self, seat: int, action) -> list[Event]:
        _, start, count, cards = action
        hand = self.hands[seat]
        del hand[start:start + count]
        del self.known[seat][start:start + count]
        beaten = self.table
        self.captured[seat] += len(beaten)  # S4: face down to the shower, 1 point a card
        value = self.VALUE
        vals = [value[c] for c in cards]
        sns = self.sns_pending
        self.table = list(cards)
        self.table_key = show_key(vals)
        self.owner = seat
        # the round's shows, kept as built once (views share these dicts; never mutate them)
        self.shows.append({"seat": seat, "cards": [self.TEXT[c] for c in cards], "values": vals,
                           "scout_and_show": sns})
        if sns:
            self.sns_pending = False
        text = self.TEXT
        events = [Event({"type": "show", "seat": seat, "start": start, "count": count,
                         "cards": [text[c] for c in cards], "values": list(vals), "kind": show_kind(vals),
                         "beaten": [text[c] for c in beaten], "scout_and_show": sns})]
        if not hand:
            events.extend(self._end_round("out", -1))  # S6: a hand is empty after a show
        else:
            self.turn = (seat + 1) % self.players
        return events

    def _apply_scout(self, seat: int, action) -> list[Event]:
        kind, end, turned, position, card = action
        table = self.table
        table.pop(0 if end == 0 else -1)
        self.table_key = show_key([self.VALUE[c] for c in table])
        new = self.TURN[card] if turned else card
        self.hands[seat].insert(position, new)
        self.known[seat].insert(position, True)
        owner = self.owner
        self.chips[owner] += 1  # S4: the show's owner scores 1
        sns = kind == SCOUT_AND_SHOW
        events = [Event({"type": "scout", "seat": seat, "end": _ENDS[end], "card": self.TEXT[card],
                         "turned": bool(turned), "value": self.VALUE[new], "position": position,
                         "owner": owner, "table_left": len(table), "scout_and_show": sns})]
        if sns:
            self.sns_used[seat] = True
            self.sns_pending = True  # the same seat now shows (S5)
            return events
        nxt = (seat + 1) % self.players
        if nxt == owner:
            # S6: play would return to the owner and everybody else only scouted since (a show
            # would have made its shower the owner)
            events.extend(self._end_round("scouted", owner))
        else:
            self.turn = nxt
        return events

    def _end_round(self, reason: str, exempt: int) -> list[Event]:
        """S6 / O4: +captured +chips −cards in hand, except ``exempt``; then the next round (S7)."""
        n = self.players
        scores = []
        for s in range(n):
            sc = self.captured[s] + self.chips[s] - (0 if s == exempt else len(self.hands[s]))
            scores.append(sc)
            self.round_scores[s].append(sc)
            self.totals[s] += sc
        events = [Event({"type": "round_end", "round": self.round + 1, "reason": reason, "exempt": exempt,
                         "hand_sizes": [len(h) for h in self.hands],
                         "captured": list(self.captured), "chips": list(self.chips),
                         "round_scores": scores, "totals": list(self.totals)})]
        self.round += 1
        self._legal = None
        if self.round >= self.rounds:
            self.phase = PHASE_OVER
            self.turn = -1
            res = self.result()
            events.append(Event({"type": "game_over", "totals": list(self.totals), "places": list(res.places)}))
        else:
            events.extend(self._start_round())
        return events

    def is_over(self) -> bool:
        return self.phase == PHASE_OVER

    def result(self) -> Result:
        """S7 / O5: highest total wins; ties share a place."""
        return Result.from_scores(self.totals, True)

    # ----- what a seat sees -------------------------------------------------------------------
    def _seat_json(self, s: int) -> dict:
        text, value = self.TEXT, self.VALUE
        hand, known = self.hands[s], self.known[s]
        return {
            "seat": s,
            "hand_size": len(hand),
            "known": [text[c] if k else UNKNOWN for c, k in zip(hand, known)],
            "known_values": [value[c] if k else -1 for c, k in zip(hand, known)],
            "captured": self.captured[s],
            "scout_chips": self.chips[s],
            "scout_and_show_used": self.sns_used[s],
            "turned_hand": self.turned_hand[s],
            "score": self.totals[s],
            "round_scores": list(self.round_scores[s]),
        }

    def view(self, seat: int) -> dict:
        text, value = self.TEXT, self.VALUE
        hand = self.hands[seat]
        table = self.table
        tvals = [value[c] for c in table]
        v = {
            "seat": seat,
            "players": self.players,
            "phase": _PHASE_NAMES[self.phase],
            "round": min(self.round + 1, self.rounds),
            "rounds": self.rounds,
            "start_seat": self.start_seat,
            "turn": self.turn if self.phase == PHASE_PLAY else -1,
            "hand": [text[c] for c in hand],
            "hand_values": [value[c] for c in hand],
        }
        if self.TURN is not None:
            turn = self.TURN
            v["hand_other_values"] = [value[turn[c]] for c in hand]
        v.update({
            "table": {"cards": [text[c] for c in table], "values": tvals, "owner": self.owner,
                      "kind": show_kind(tvals)},
            "scout_and_show_in_progress": self.sns_pending,
            "seats": [self._seat_json(s) for s in range(self.players)],
            "shows": list(self.shows),
            "round_actions": self.round_turns,  # wire names kept: they count turns (S8)
            "action_cap": self.TURN_CAP,
        })
        return v

    def spectator_view(self) -> dict:
        """A view without its seat's own keys (``seat``, ``hand``, ``hand_values``,
        ``hand_other_values``): the public part, under the same keys. Every seat's scouted cards
        stay (``seats[].known``: they entered the hand face up), and its hand size."""
        v = self.view(0)
        for key in ("seat", "hand", "hand_values", "hand_other_values"):
            v.pop(key, None)
        return v

    def state_json(self) -> dict:
        text = self.TEXT
        return {
            "round": self.round + 1,
            "phase": _PHASE_NAMES[self.phase],
            "start_seat": self.start_seat,
            "turn": self.turn,
            "hands": [[text[c] for c in h] for h in self.hands],
            "known": [list(k) for k in self.known],
            "out": [text[c] for c in self.out],
            "table": [text[c] for c in self.table],
            "owner": self.owner,
            "captured": list(self.captured),
            "chips": list(self.chips),
            "scout_and_show_used": list(self.sns_used),
            "scout_and_show_in_progress": self.sns_pending,
            "turned_hand": list(self.turned_hand),
            "round_turns": self.round_turns,
            "round_scores": [list(r) for r in self.round_scores],
            "totals": list(self.totals),
        }

    def resample_hidden(self, seat: int, rng: random.Random) -> "ShowScoutGame":
        """A copy in which every card ``seat`` has not seen is re-dealt: the unknown cards of the
        other hands and the cards out of play (Scouting), each SCOUT card at a random way up;
        the seat's own hand, the scouted cards of every hand, the table and the history stay.
        The future deals are re-seeded too."""
        other = self.copy()
        other.rng = random.Random(rng.getrandbits(64))
        other._legal = None
        slots = [(s, i) for s in range(self.players) if s != seat
                 for i, k in enumerate(self.known[s]) if not k]
        pool = [other.hands[s][i] for s, i in slots] + list(other.out)
        pool = [self.canonical(c) for c in pool]
        rng.shuffle(pool)
        turn = self.TURN
        if turn is not None:
            pool = [turn[c] if rng.random() < 0.5 else c for c in pool]
        for (s, i), c in zip(slots, pool):
            other.hands[s][i] = c
        other.out = pool[len(slots):]
        return other

    # ----- words (class methods: they read no state, so a Decision may keep them, match.py) ----
    @classmethod
    def action_json(cls, action) -> dict:
        kind = action[0]
        text, value = cls.TEXT, cls.VALUE
        if kind == SHOW:
            _, start, count, cards = action
            vals = [value[c] for c in cards]
            return {"show": {"start": start, "count": count, "cards": [text[c] for c in cards],
                             "values": vals, "kind": show_kind(vals)}}
        if kind == FLIP:
            return {"flip": {"turn_hand": bool(action[1])}}
        _, end, turned, position, card = action
        new = cls.TURN[card] if turned else card
        body = {"end": _ENDS[end], "card": text[card], "turned": bool(turned), "value": value[new],
                "position": position}
        return {"scout" if kind == SCOUT else "scout_and_show": body}

    @classmethod
    def action_label(cls, action) -> str:
        kind = action[0]
        value = cls.VALUE
        if kind == SHOW:
            _, start, count, cards = action
            vals = [value[c] for c in cards]
            if count == 1:
                what = str(vals[0])
            elif vals[0] == vals[1]:
                what = f"set of {vals[0]}s ({count})"
            else:
                what = "-".join(map(str, vals))
            return f"show {what} from position {start}"
        if kind == FLIP:
            return "turn hand" if action[1] else "keep hand"
        _, end, turned, position, card = action
        if turned:
            s = (f"scout {_ENDS[end]} {cls.card_label(card)} turned to {value[cls.TURN[card]]}"
                 f" at position {position}")
        else:
            s = f"scout {_ENDS[end]} {cls.card_label(card)} to position {position}"
        return s if kind == SCOUT else "Scout & Show: " + s

    def event_text(self, data: dict) -> str:
        t = data.get("type")
        if t == "round_start":
            return f"round {data['round']}: seat {data['start_seat']} starts; {data['hand_sizes'][0]} cards each"
        if t == "deal":
            return f"seat {data['seat']} is dealt {' '.join(data['hand'])}"
        if t == "hands_turned":
            who = [str(s) for s, x in enumerate(data["turned"]) if x]
            return ("seats " + ", ".join(who) + " turn their hands") if who else "nobody turns their hand"
        if t == "hand":
            return f"seat {data['seat']} now holds {' '.join(data['hand'])}"
        if t == "show":
            sns = "Scout & Show: " if data["scout_and_show"] else ""
            took = f", capturing {len(data['beaten'])}" if data["beaten"] else ""
            return (f"{sns}seat {data['seat']} shows {' '.join(data['cards'])} "
                    f"from position {data['start']}{took}")
        if t == "scout":
            sns = "Scout & Show: " if data["scout_and_show"] else ""
            turned = f" turned to {data['value']}" if data["turned"] else ""
            return (f"{sns}seat {data['seat']} scouts {data['end']} {data['card']}{turned} "
                    f"to position {data['position']}; a Scout chip to seat {data['owner']}")
        if t == "round_end":
            why = {"out": "a hand is empty", "scouted": f"everybody scouted seat {data['exempt']}'s show",
                   "cap": "the action cap"}[data["reason"]]
            return (f"round {data['round']} ends ({why}): scores {data['round_scores']}, "
                    f"totals {data['totals']}")
        if t == "game_over":
            return f"game over: totals {data['totals']}, places {data['places']}"
        return super().event_text(data)
