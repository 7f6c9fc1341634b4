"""Sixth Card: everybody lays a card at once; the sixth card in a row takes the five before it.

The rules engine of ``sixth-card``, our adaptation of *6 nimmt!* for ordinary cards. Rules text:
``server/games/rules/sixth-card.en.txt`` (shared/rules/sixth-card.en.txt, with the penalty table
the text lost printed where it stood, rebuilt from C1 and marked so); where the text is silent
or damaged, the rulings C1–C14 of shared/RULINGS.md decide. This module is also the
template the other games follow: one :class:`SixthCard` class holds the state and its dynamics,
``view`` is the one place a seat's knowledge is produced, and every action is a precomputed
tuple.

The game
========
2–10 players; one 52-card deck for 2–4 players, two decks for 5–10 (C3). Each round the dealer
shuffles, deals 10 cards to every seat and lays 4 cards face up: each starts a row. A round is
10 turns. In a turn every seat chooses one card from its hand, sealed and at the same time
(C4); then all cards are revealed together and placed lowest first on the ladder (C2, C5):

* a card goes to the end of the row whose last card is the highest card still below it; a twin
  at a row's end counts as just below its twin, so a twin lands on its twin (C6);
* if two rows end with twins and both are the best fit, the card goes to the shorter row; at
  equal length its owner chooses between the two, asked when the card is placed (C7);
* a card that would be a row's sixth card takes the row's five cards into its owner's penalty
  pile and starts that row (C8);
* a card below every row's end is *too low*: its owner chooses any row (a full one included),
  asked when the card is placed, after the reveal, seeing every revealed card; it takes that
  row's cards and starts the row (C9). Only the turn's lowest card can ever be too low.

After the 10th turn every seat scores its penalty pile (C1, C11), the deal passes left (C12:
seat 0 deals first) and a new round starts. The game ends after the round in which a seat
reaches the end score (66), never in the middle of a round; the fewest penalty points win and
ties share a place (C11). Every round takes at least one row (20 or more cards cannot fit into
four rows of at most five), so the game always ends and needs no cap.

Rulings applied
===============
C1 penalty points: A 2 3 4 6 7 8 9 → 1, every 5 → 2, every 10 → 3, J K Q♣ Q♦ Q♥ → 2, Q♠ → 5
(79 a deck) · C2 the ladder is the card code: A♣ = 0 … K♠ = 51 (the text's 1 … 52, less one) ·
C3 decks by player count, identical codes are twins · C4 sealed simultaneous choice: ``to_act()``
is every seat, ``apply`` takes all the cards at once, nothing is stored before · C5 twins in seat
order clockwise from the dealer's left · C6 target row · C7 twin rows · C8 the sixth card ·
C9 too low · C10 penalty piles are public · C11 rounds of 10 turns, the end after the round that
reaches the end score, fewest points win · C12 seat 0 deals first, the deal passes left ·
C13 options below · C14 defaults below.

Decisions and actions
=====================
=====================  ===================================  ==================  =================
phase, ``to_act()``    ``legal_actions(seat)``              ``action_json``     ``action_label``
=====================  ===================================  ==================  =================
``choose``: all seats  ``("play", card)``: each different   ``{"play": "7♠"}``  ``play 7♠``
                       card in hand once, lowest first
``row``: the owner of  ``("row", i)``: rows 0–3 (too        ``{"row": 2}``      ``take row 3``,
the card being placed  low) or the two twin rows, lowest                        ``put 9♥ in row 3``
                       first
``over``: nobody       none
=====================  ===================================  ==================  =================

Rows are numbered 0–3 in actions, views and event data (the wire), and 1–4 in labels and event
texts, as the rules text numbers them ("Carla takes row 3"). Default actions (C14): the card
choice plays the lowest card in hand; the row choice takes the row with the fewest penalty
points, then the fewest cards, then the lowest index.

The view
========
``view(seat)`` is the JSON of ``SixthCardView`` (proto/cardarena/v1/sixth_card.proto):

================  ===============================================================================
key               value
================  ===============================================================================
seat, players     this seat; the number of seats
decks             1 or 2; exact_cards, end_score, rounds: the options in force
round, turn       the round (from 1) and its turn (1–10); dealer: the seat that dealt this round
phase             ``"choose"``, ``"row"`` or ``"over"``
hand              this seat's cards, lowest first
rows              four ``{"cards": [...], "points": p}``
seats             per seat ``{"played": cards revealed this round in turn order, "pile": penalty
                  pile this round, "points": its points, "total": game total so far}``
round_scores      per finished round ``{"points": [by seat]}``
revealed          phase ``row``: this turn's cards ``{"seat", "card"}`` in placement order
to_place          phase ``row``: the revealed cards still to be placed (the waiting card first)
chooser           phase ``row``: the seat choosing a row, else -1
choice_reason     ``"too_low"`` or ``"twin_rows"``, else ``""``; choice_card: the waiting card
================  ===============================================================================

``spectator_view()`` is the same without ``seat`` and ``hand``, and with ``hand_size`` in each
``seats`` entry (what a spectator of a live match is shown).

Events (``data["type"]``): ``deal`` (public: round, dealer, cards each, the four row starts;
private to each seat: its hand), ``reveal`` (round, turn, every chosen card with its seat in
placement order), ``take`` (seat, row, cards, points, reason ``sixth_card``/``too_low``),
``place`` (seat, card, row), ``round_end`` (round, points, totals), ``game_end`` (totals,
places).

Options (C13)
=============
``end_score`` (66; the text's short game is 44) · ``rounds`` (0: play to the end score; N: the
game is exactly N rounds, whatever the scores) · ``exact_cards`` (only 10 cards a seat plus 4,
from the aces up: 2 players A–6, 3 players A–8 plus 9♣ 9♦, 4 players A–J; 2–4 players and one
deck only) · ``decks`` (0: by player count as C3; 1: one deck, 2–4 players; 2: two decks).

Version history: 1 — the first complete engine.
"""
from __future__ import annotations

import random
from collections.abc import Mapping

from .base import Event, Game, GameOptionError, IllegalAction, Option, Result
from .cards import CARD_TEXT, new_rng, rank_of

HAND_SIZE = 10
ROWS = 4
ROW_LIMIT = 5  # a row holds five cards; the sixth takes them

CHOOSE, ROW, OVER = "choose", "row", "over"
TOO_LOW, TWIN_ROWS = "too_low", "twin_rows"


def _penalty(card: int) -> int:
    """C1: the penalty points of one card."""
    rank = rank_of(card)
    if rank == 12:
        return 5 if card % 4 == 3 else 2  # Q♠ 5, the other queens 2
    if rank in (11, 13) or rank == 5:
        return 2
    return 3 if rank == 10 else 1


#: penalty points by card code (C1); one deck totals 79.
PENALTY: tuple[int, ...] = tuple(_penalty(c) for c in range(52))

#: the actions, built once: ``PLAY[card]`` and ``TAKE_ROW[i]``.
PLAY: tuple[tuple[str, int], ...] = tuple(("play", c) for c in range(52))
TAKE_ROW: tuple[tuple[str, int], ...] = tuple(("row", i) for i in range(ROWS))
_ALL_ROWS = tuple(range(ROWS))


class SixthCard(Game):
    id = "sixth-card"
    title = "Sixth Card"
    summary = ("Everybody lays a card at once; cards join four rows lowest first, and whoever "
               "lays a row's sixth card takes the five before it. Fewest penalty points win.")
    min_players = 2
    max_players = 10
    option_specs = (
        Option("end_score", 66, "the game ends after the round in which a seat reaches this "
               "many penalty points (the short game: 44)", minimum=1, maximum=1000),
        Option("rounds", 0, "0: play to end_score; N: play exactly N rounds (a short game)",
               minimum=0, maximum=100),
        Option("exact_cards", False, "use only 10 cards a seat plus 4, from the aces up "
               "(2p A–6, 3p A–8 + 9♣ 9♦, 4p A–J); 2–4 players", kind=bool),
        Option("decks", 0, "0: by player count (1 deck for 2–4 players, 2 for 5–10); "
               "1 or 2 to choose (1 deck holds 2–4 players)", choices=(0, 1, 2)),
    )
    rules_texts = {"en": "sixth-card.en.txt"}
    default_policy = ("card choice: the lowest card in hand; row choice: the row with the fewest "
                      "penalty points, then the fewest cards, then the lowest row number (C14)")
    proto_module = "sixth_card"
    proto_name = "SixthCard"

    def __init__(self, players: int, seed: int, options: Mapping | None = None):
        super().__init__(players, seed, options)
        opts = self.options
        decks = opts["decks"] or (1 if players <= 4 else 2)
        if decks * 52 < HAND_SIZE * players + ROWS:
            raise GameOptionError(
                f"option decks: one deck holds 2–4 players, not {players} (use 2 decks)")
        if opts["exact_cards"]:
            if players > 4:
                raise GameOptionError(
                    f"option exact_cards: only for 2–4 players, not {players}")
            if decks != 1:
                raise GameOptionError("option exact_cards: uses one deck, not decks=2")
            self.deck = list(range(HAND_SIZE * players + ROWS))  # the lowest cards, from A♣ up
        else:
            self.deck = list(range(52)) * decks
        self.decks = decks
        self.rng = new_rng(seed)
        n = players
        self.dealer = 0                          # C12
        self.round = 0
        self.turn = 1
        self.phase = CHOOSE
        self.hands: list[list[int]] = [[] for _ in range(n)]   # each sorted, lowest first
        self.rows: list[list[int]] = [[] for _ in range(ROWS)]
        self.stock: list[int] = []               # the cards not used this round, face down
        self.played: list[list[int]] = [[] for _ in range(n)]  # revealed this round, by seat
        self.piles: list[list[int]] = [[] for _ in range(n)]   # penalty piles this round (C10)
        self.points = [0] * n                    # this round
        self.totals = [0] * n                    # the game so far, this round included
        self.round_scores: list[list[int]] = []  # the points of each finished round
        # the turn being placed: (seat, card) in placement order, and the next one's index
        self.queue: list[tuple[int, int]] = []
        self.next = 0
        # a pending row choice: the seat, its reason and the rows it may choose
        self.chooser = -1
        self.reason = ""
        self.choices: tuple[int, ...] = ()
        self._seats = tuple(range(n))
        # legal_actions per seat, built on demand and cleared by every apply (and by _deal);
        # code that sets the fields above directly must clear it too
        self._legal: list[list | None] = [None] * n
        self._opening = self._deal()

    # ----- setup ---------------------------------------------------------------------------
    def _deal(self) -> list[Event]:
        """Start a round: shuffle all the cards, 10 to each seat, 4 row starts (setup 1–4)."""
        self.round += 1
        self.turn = 1
        self.phase = CHOOSE
        n = self.players
        deck = self.deck[:]
        self.rng.shuffle(deck)
        self.hands = [sorted(deck[s * HAND_SIZE:(s + 1) * HAND_SIZE]) for s in range(n)]
        start = n * HAND_SIZE
        self.rows = [[c] for c in deck[start:start + ROWS]]
        self.stock = deck[start + ROWS:]
        self.played = [[] for _ in range(n)]
        self.piles = [[] for _ in range(n)]
        self.points = [0] * n
        self._legal = [None] * n
        T = CARD_TEXT
        events = [Event({"type": "deal", "round": self.round, "dealer": self.dealer,
                         "cards_each": HAND_SIZE, "rows": [T[r[0]] for r in self.rows]})]
        for s in range(n):
            events.append(Event({"type": "deal", "round": self.round, "seat": s,
                                 "hand": [T[c] for c in self.hands[s]]}, frozenset((s,))))
        return events

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    # ----- whose turn, what is legal -------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.phase == CHOOSE:
            return self._seats  # C4: every seat at once
        if self.phase == ROW:
            return (self.chooser,)
        return ()

    def legal_actions(self, seat: int) -> list:
        legal = self._legal[seat]
        if legal is None:
            if self.phase == CHOOSE:
                legal = [PLAY[c] for c in dict.fromkeys(self.hands[seat])]  # twins listed once
            elif self.phase == ROW and seat == self.chooser:
                legal = [TAKE_ROW[i] for i in self.choices]
            else:
                legal = []
            self._legal[seat] = legal
        return list(legal)

    def default_action(self, seat: int):
        """C14: the lowest card; the row with the fewest points, then cards, then index."""
        if self.phase == CHOOSE:
            return PLAY[self.hands[seat][0]]
        if self.phase == ROW and seat == self.chooser:
            rows = self.rows
            best = min(self.choices,
                       key=lambda i: (sum(PENALTY[c] for c in rows[i]), len(rows[i]), i))
            return TAKE_ROW[best]
        raise IllegalAction(f"seat {seat} is not to act")

    # ----- play ----------------------------------------------------------------------------
    def apply(self, actions: Mapping[int, tuple]) -> list[Event]:
        seats = self.to_act()
        if len(actions) != len(seats) or any(s not in actions for s in seats):
            raise IllegalAction(
                f"seats to act are {list(seats)}, actions were given for {sorted(actions)}")
        legal = self.legal_actions
        for seat, action in actions.items():
            if action not in (self._legal[seat] or legal(seat)):
                raise IllegalAction(f"seat {seat}: {action!r} is not a legal action now")
        self._legal = [None] * self.players
        events: list[Event] = []
        if self.phase == CHOOSE:
            self._reveal(actions, events)
        else:
            seat, card = self.queue[self.next]
            row = actions[seat][1]
            self._place(seat, card, row, self.reason == TOO_LOW, events)
            self.next += 1
            self.phase, self.chooser, self.reason, self.choices = CHOOSE, -1, "", ()
        self._resolve(events)
        return events

    def _reveal(self, actions: Mapping[int, tuple], events: list[Event]) -> None:
        """C4, C5: every chosen card face up at once, queued lowest first; twins in seat order
        from the dealer's left."""
        n, first = self.players, self.dealer + 1
        order = []
        for seat, (_, card) in actions.items():
            self.hands[seat].remove(card)
            self.played[seat].append(card)
            order.append((card, (seat - first) % n, seat))
        order.sort()
        self.queue = [(seat, card) for card, _, seat in order]
        self.next = 0
        T = CARD_TEXT
        events.append(Event({"type": "reveal", "round": self.round, "turn": self.turn,
                             "cards": [{"seat": s, "card": T[c]} for s, c in self.queue]}))

    def _resolve(self, events: list[Event]) -> None:
        """Place the queued cards until all are placed or a card's owner must choose a row."""
        rows, queue = self.rows, self.queue
        while self.next < len(queue):
            seat, card = queue[self.next]
            best, where = -1, []
            for i in _ALL_ROWS:  # C6: the highest row end still below (a twin counts as below)
                end = rows[i][-1]
                if end <= card:
                    if end > best:
                        best, where = end, [i]
                    elif end == best:
                        where.append(i)
            if not where:  # C9: too low, the owner chooses any row
                self._ask(seat, TOO_LOW, _ALL_ROWS)
                return
            target = where[0]
            if len(where) > 1:  # C7: two rows end with twins
                a, b = where
                if len(rows[a]) == len(rows[b]):
                    self._ask(seat, TWIN_ROWS, (a, b))
                    return
                target = a if len(rows[a]) < len(rows[b]) else b
            self._place(seat, card, target, False, events)
            self.next += 1
        self.queue, self.next = [], 0
        if self.hands[0]:
            self.turn += 1
        else:
            self._end_round(events)

    def _ask(self, seat: int, reason: str, rows: tuple[int, ...]) -> None:
        self.phase, self.chooser, self.reason, self.choices = ROW, seat, reason, rows

    def _place(self, seat: int, card: int, i: int, take: bool, events: list[Event]) -> None:
        """Lay ``card`` at the end of row ``i``; too low (``take``) or sixth, take the row first
        (C8, C9)."""
        row = self.rows[i]
        T = CARD_TEXT
        if take or len(row) >= ROW_LIMIT:
            pts = sum(PENALTY[c] for c in row)
            self.piles[seat].extend(row)
            self.points[seat] += pts
            self.totals[seat] += pts
            events.append(Event({"type": "take", "seat": seat, "row": i,
                                 "cards": [T[c] for c in row], "points": pts,
                                 "reason": TOO_LOW if take else "sixth_card"}))
            self.rows[i] = [card]
        else:
            row.append(card)
        events.append(Event({"type": "place", "seat": seat, "card": T[card], "row": i}))

    def _end_round(self, events: list[Event]) -> None:
        """C11: score the round; end the game, or pass the deal left and deal again (C12)."""
        self.round_scores.append(list(self.points))
        events.append(Event({"type": "round_end", "round": self.round,
                             "points": list(self.points), "totals": list(self.totals)}))
        rounds = self.options["rounds"]
        if (self.round >= rounds) if rounds else max(self.totals) >= self.options["end_score"]:
            self.phase = OVER
            res = self.result()
            events.append(Event({"type": "game_end", "totals": list(self.totals),
                                 "places": list(res.places)}))
            return
        self.dealer = (self.dealer + 1) % self.players
        events.extend(self._deal())

    def is_over(self) -> bool:
        return self.phase == OVER

    def result(self) -> Result:
        """C11: the fewest penalty points win; ties share a place."""
        return Result.from_scores(self.totals, higher_is_better=False, rounds=self.round)

    # ----- what a seat may know ------------------------------------------------------------
    def view(self, seat: int) -> dict:
        return self.views((seat,))[seat]

    def views(self, seats) -> dict[int, dict]:
        """Every seat's view shares the public parts (the same objects): built once per step."""
        T = CARD_TEXT
        public = self._public_view()
        hands = self.hands
        return {s: {"seat": s, **public, "hand": [T[c] for c in hands[s]]} for s in seats}

    def spectator_view(self) -> dict:
        """The public part of the views (no seat, no hand), with each seat's ``hand_size``
        added to its ``seats`` entry: the sealed choices of a turn stay unseen until the reveal
        (C4), the penalty piles are public (C10)."""
        public = self._public_view()
        hands = self.hands
        public["seats"] = [{**info, "hand_size": len(hands[s])} for s, info in enumerate(public["seats"])]
        return public

    def _public_view(self) -> dict:
        T, P = CARD_TEXT, PENALTY
        opts = self.options
        points, totals = self.points, self.totals
        if self.phase == ROW:  # mid-placement: the turn's cards, what is left, the waiting card
            queue = self.queue
            revealed = [{"seat": s, "card": T[c]} for s, c in queue]
            to_place = [{"seat": s, "card": T[c]} for s, c in queue[self.next:]]
            choice_card = T[queue[self.next][1]]
        else:
            revealed, to_place, choice_card = [], [], ""
        return {
            "players": self.players,
            "decks": self.decks,
            "exact_cards": opts["exact_cards"],
            "end_score": opts["end_score"],
            "rounds": opts["rounds"],
            "round": self.round,
            "turn": self.turn,
            "dealer": self.dealer,
            "phase": self.phase,
            "rows": [{"cards": [T[c] for c in row], "points": sum([P[c] for c in row])}
                     for row in self.rows],
            "seats": [{"played": [T[c] for c in self.played[s]],
                       "pile": [T[c] for c in self.piles[s]],
                       "points": points[s], "total": totals[s]} for s in self._seats],
            "round_scores": [{"points": list(p)} for p in self.round_scores],
            "revealed": revealed,
            "to_place": to_place,
            "chooser": self.chooser,
            "choice_reason": self.reason,
            "choice_card": choice_card,
        }

    def state_json(self) -> dict:
        """The omniscient snapshot (logs, audits, tests); never sent to a bot."""
        T = CARD_TEXT
        return {
            "round": self.round, "turn": self.turn, "dealer": self.dealer, "phase": self.phase,
            "hands": [[T[c] for c in h] for h in self.hands],
            "rows": [[T[c] for c in r] for r in self.rows],
            "stock": [T[c] for c in self.stock],
            "played": [[T[c] for c in p] for p in self.played],
            "piles": [[T[c] for c in p] for p in self.piles],
            "points": list(self.points), "totals": list(self.totals),
            "round_scores": [list(p) for p in self.round_scores],
            "queue": [{"seat": s, "card": T[c]} for s, c in self.queue], "next": self.next,
            "chooser": self.chooser, "choice_reason": self.reason, "choices": list(self.choices),
        }

    # ----- copies and determinization ------------------------------------------------------
    def copy(self) -> "SixthCard":
        """An independent copy (cheaper than deepcopy: the state is flat lists of ints)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.options = dict(self.options)
        new.deck = self.deck[:]
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        for name in ("hands", "rows", "played", "piles"):
            setattr(new, name, [x[:] for x in getattr(self, name)])
        new.round_scores = [p[:] for p in self.round_scores]
        new.stock, new.queue = self.stock[:], self.queue[:]
        new.points, new.totals = self.points[:], self.totals[:]
        new._legal = [None] * self.players
        new._opening = list(self._opening)
        return new

    def resample_hidden(self, seat: int, rng: random.Random) -> "SixthCard":
        """A copy with the other hands and the unused cards re-dealt and future shuffles
        reseeded: everything ``seat`` sees stays as it is."""
        new = self.copy()
        others = [s for s in self._seats if s != seat]
        pool = [c for s in others for c in new.hands[s]] + new.stock
        rng.shuffle(pool)
        k = 0
        for s in others:
            size = len(new.hands[s])
            new.hands[s] = sorted(pool[k:k + size])
            k += size
        new.stock = pool[k:]
        new.rng = random.Random(rng.getrandbits(64))
        return new

    # ----- words -----------------------------------------------------------------------------
    def action_json(self, action) -> dict:
        kind, value = action
        return {"play": CARD_TEXT[value]} if kind == "play" else {"row": value}

    def action_label(self, action) -> str:
        """``play 7♠``; ``take row 3`` (too low, or a full twin row); ``put 9♥ in row 3``."""
        kind, value = action
        if kind == "play":
            return f"play {CARD_TEXT[value]}"
        if self.phase == ROW and self.reason == TWIN_ROWS and len(self.rows[value]) < ROW_LIMIT:
            return f"put {CARD_TEXT[self.queue[self.next][1]]} in row {value + 1}"
        return f"take row {value + 1}"

    def event_text(self, data: dict) -> str:
        kind = data.get("type")
        if kind == "deal" and "hand" in data:
            return f"seat {data['seat']} is dealt {' '.join(data['hand'])}"
        if kind == "deal":
            return (f"round {data['round']}: seat {data['dealer']} deals {data['cards_each']} "
                    f"cards each; the rows start with {' '.join(data['rows'])}")
        if kind == "reveal":
            cards = ", ".join(f"seat {p['seat']} {p['card']}" for p in data["cards"])
            return f"turn {data['turn']}: revealed {cards}"
        if kind == "take":
            why = "too low" if data["reason"] == TOO_LOW else "sixth card"
            unit = "point" if data["points"] == 1 else "points"
            return (f"seat {data['seat']} takes row {data['row'] + 1} ({why}): "
                    f"{' '.join(data['cards'])}, {data['points']} {unit}")
        if kind == "place":
            return f"seat {data['seat']} lays {data['card']} in row {data['row'] + 1}"
        if kind == "round_end":
            pts = ", ".join(f"seat {s} {p} ({t})"
                            for s, (p, t) in enumerate(zip(data["points"], data["totals"])))
            return f"round {data['round']} ends; points (totals): {pts}"
        if kind == "game_end":
            pts = ", ".join(f"seat {s} {t} (place {p})"
                            for s, (t, p) in enumerate(zip(data["totals"], data["places"])))
            return f"game over: {pts}"
        return super().event_text(data)


GAME = SixthCard
