"""Three Thirteen: eleven rounds of rummy, 3 to 13 cards, a new wild rank every round.

The rules engine of ``three-thirteen``. Rules text: ``server/games/rules/three-thirteen.en.txt``
(shared/rules/three-thirteen.en.txt); where it is silent, the rulings R1–R11 of
shared/RULINGS.md decide. The melding itself (which cards form which sets and runs, and the
lay-offs) is done by the referee with the solver in :mod:`.melds`.

The game
========
2–8 players. Each round the dealer shuffles every card and deals round + 2 cards to each seat,
one at a time clockwise from its left; the next card, face up, starts the discard pile; the
rest is the stock. The seat left of the dealer starts. A turn: take the top card of the stock
or of the discard pile; then discard a card, or go out. Going out lays down every card but the
final discard in sets and runs; then every other seat, clockwise from the goer's left, takes a
last turn: it draws, the referee lays down its melds and lays its cards off onto any melds on
the table, and it discards. The cards left in a hand score their points. After 11 rounds the
lowest total wins.

Rulings applied
===============
* R1 one 54-card deck (2 jokers) per two players, rounded up: 1 deck for 2 players, 4 for 7–8.
  Identical cards from different decks are interchangeable.
* R2 round r deals r + 2 cards and makes rank r + 2 wild (3s … 10s, then J, Q, K); jokers are
  always wild. The dealer is seat 0 in round 1 and moves left each round; the seat left of the
  dealer starts; the first upcard starts the discard pile.
* R3 a set is 3+ cards of one rank (duplicates from several decks allowed); a run is 3+
  consecutive cards of one suit, ace low only (Q-K-A is not a run); a card is in one meld.
* R4 the wild cards of a meld never outnumber its natural cards; a wild-rank card standing for
  its own rank (and, in a run, its own suit) counts as natural, one standing for another card
  is a wild. A meld holds at least one card standing for itself. So three 3s in round 1 are a
  set (three natural), 3♣ 3♦ 3♥ Jo Jo Jo is a set of 3s (three natural, three wild), and
  Jo Jo 3♣ in round 1 is not a meld (two wild, one natural); 7♠ is natural in 6♠ 7♠ 8♠ with 7s
  wild, 7♥ in it would be a wild.
* R5 a turn: draw (stock or discard pile), then one discard action that ends the turn — either
  "discard X" or, when possible, "go out discarding X". The card just taken from the discard
  pile may not be discarded again; decided here: nor may an identical copy of it (the same card
  from another deck), since the table could not tell them apart — unless the hand holds nothing
  else.
* R6 going out is allowed on any turn (the first included) when every card but the discard can
  go into new melds (jokers too: going out needs a final discard, so 6 cards in two sets of
  three after the draw cannot go out). Then each other seat, clockwise from the goer's left,
  takes one last turn: it draws and chooses its discard; the referee lays down its melds and
  lays cards off onto any melds on the table (anybody's, including those laid earlier in the
  same last turns), at either end of a run and onto sets, respecting the wild limit of the
  extended meld; then the discard ends the turn (the rules text: nothing is laid after it).
  Nobody else can go out in the last turns.
* R7 the referee lays the arrangement that leaves the seat the fewest points, then the fewest
  cards; among equal ones the first in the solver's canonical order, which tries lay-offs
  before new melds, and new melds that make one meld together (7-8-9 and 10-J-Q of a suit)
  are laid as one (melds.py). So a seat's decisions are only where to draw from, what to
  discard, and whether to go out. Where the wild cards go, decided here: the melds take the
  dearest wilds (a joker before a wild-rank card when it counts more) and the cheapest stay in
  hand. The wilds go, dearest first, to the new melds in the order they were chosen and then
  to the table's melds in table order; each meld takes the wilds it needs (a gap in a run, the
  third card of a set or of a two-card run) and, while more are left than the melds need, as
  many more as its wild limit and the 13 ranks allow. A run's wilds beyond its natural cards go
  above its top card while there is room up to the king, then below its lowest: 5♠ 6♠ Jo is
  laid as 5-6-7♠, Q♠ K♠ Jo as J-Q-K♠. A card laid off at a run's end may bring wilds for the
  ranks between (9♠ onto 4♠ 5♠ 6♠ with two wilds for 7♠ 8♠), and a wild may be laid off alone.
  A wild laid down keeps the place it was given: 7♠ cannot later take the joker's place in
  5♠ 6♠ Jo. In the log a last turn's ``lay_down`` comes before its ``discard``.
* R8 points left in hand: A = 1, 2–10 face value, J 11, Q 12, K 13 (a wild-rank card counts its
  face value), a joker 20 (option ``joker_points``). Lowest total after the last round wins;
  ties share a place.
* R9 when a seat is to draw and the stock is empty, the stock is rebuilt from the discard pile
  except its top card, shuffled. A third rebuild in one round does not happen: the round ends at
  once and every seat scores its whole hand as it stands (a seat that already laid down scores
  the cards it kept; the goer scores 0). This cap keeps random play short.
* R10 defaults: draw from the stock; go out if the hand can (the referee lays it down, R7);
  else discard the highest card that is not wild (the highest by points, then by card code; if
  every card that may be discarded is wild, the highest of those). In a last turn (which cannot
  go out, R6): draw from the stock, then the same discard. Decided here: going out, the default
  discards the card that same order picks among the discards that let it go out. (A default
  that never went out ended every all-default round at a cap: all 546 rounds of 2–8 seats,
  seeds 0–2, three option settings, at R9's; going out, all 546 end by a seat going out, and
  3,640 of 3,640 on seeds 0–19, the longest in 116 turns at 8 seats.)
* R11 cap: a round in which nobody has gone out after 150 turns a seat (``TURNS_PER_SEAT``,
  300 turns at 2 seats, 1200 at 8) ends there, scored as R9's cap: every seat scores its whole
  hand (``round_end`` reason ``"turns"``). R9 alone does not end every round: seats that keep
  taking the discard never empty the stock. The turns counted are the round's turns before a
  seat goes out; the last turns after it are never cut. Play that tries to go out never comes
  near it (the example heuristic's longest round in 18 matches: 48 turns at 8 seats; the R10
  default's in 420 all-default matches: 116 turns at 8 seats); random play's longest seen,
  1054 turns at 8 seats, ended at R9 first.

Decided here, where RULINGS is silent: the cards a seat took from the discard pile are public
until they leave its hand; when it discards or lays down a card identical to one of them, the
table takes it for that card. The cards a seat keeps after its last turn stay hidden until the
round ends; then every hand is shown (event ``round_end``).

Decisions and actions
=====================
===========  ==============================  ============================  ========================
phase        action (``legal_actions``)      wire (``action_json``)        label
===========  ==============================  ============================  ========================
``draw``     ``("draw", "stock")``           ``{"draw": "stock"}``         draw from the stock
             ``("draw", "discard_pile")``    ``{"draw": "discard_pile"}``  take 7♠ from the discard
             (when the pile is not empty)                                  pile
``discard``  ``("discard", card)`` for       ``{"discard": "K♠"}``         discard K♠
             every different card that may
             be discarded, then
             ``("go_out", card)`` for every  ``{"go_out": "K♠"}``          go out, discarding K♠
             discard that lets the seat go
             out (never in a last turn)
===========  ==============================  ============================  ========================

Cards are listed lowest code first (A♣ … K♠, then the joker). Default actions: R10 above.

The view
========
``view(seat)`` is the JSON of ``ThreeThirteenView`` (proto/cardarena/v1/three_thirteen.proto):

================  ===============================================================================
key               value
================  ===============================================================================
seat, players     this seat; the number of seats; decks, rounds, joker_points: the game's setup
round             the round (from 1); wild_rank: its wild rank as text ("3" … "K"); dealer
turn, phase       the seat to act (-1 when over); ``"draw"``, ``"discard"`` or ``"over"``
hand              this seat's hand, lowest code first
taken_card        the card this seat just took from the discard pile (it may not discard it), or ""
stock_size        cards in the stock; rebuilds: stock rebuilds this round (R9)
discard_pile      the pile now, bottom first (the last card is its top)
discards          every card put on the pile this round, the upcard first; discarded_by: who (-1:
                  the upcard)
seats             per seat ``{"seat", "hand_size", "taken": cards taken from the pile and still
                  held, "total", "melded": laid down this round, "last_turn": still to take it}``
melds             the table: ``{"seat", "kind", "cards", "laid_by", "rank", "suit", "low",
                  "high", "naturals", "wilds"}``
round_scores      per finished round ``{"round", "points": [by seat], "reason": "out"/"cap"/"turns"}`` (R9, R11)
gone_out          the seat that went out this round, or -1; last_turns: seats still to take their
                  last turn, next first
================  ===============================================================================

``spectator_view()`` is the same without ``seat``, ``hand`` and ``taken_card`` (what a spectator
of a live match is shown).

Events (``data["type"]``): ``deal`` (public: round, dealer, wild rank, cards each, upcard;
private to each seat: its hand), ``draw`` (private to the drawer: the card; to the others: that
it drew from the stock), ``take`` (a card taken from the discard pile), ``discard``,
``rebuild`` (the stock rebuilt), ``go_out`` (the goer, its discard and its melds), ``lay_down``
(a last turn's new melds, its lay-offs — table meld index, cards, the meld as extended — and
how many cards the seat keeps after its discard; it comes before that ``discard``),
``round_end`` (every hand shown, the points, the totals, "out" or "cap"), ``game_end`` (totals
and places).

Options
=======
``rounds`` (11; fewer for short games and tests: round r still deals r + 2 cards) ·
``joker_points`` (20: what a joker left in hand counts, R8).

Version history: 1 — the first complete engine. 2 — runs of one span in different
suits are told apart in last turns (a lay-off was missed); a last turn lays down before its
discard in the log; a faster solver (the same arrangements). 3 — R11: a round ends after 150
turns a seat. 4 — R10: the default goes out when the hand can (it never did).
"""
from __future__ import annotations

import random
from bisect import insort
from collections.abc import Mapping

from .base import Event, Game, IllegalAction, Option, Result
from .cards import CARD_TEXT, JOKER, SUIT_SYMBOLS, new_rng, rank_text, standard_deck
from .melds import RUN, Meld, arrange, card_points, extend, going_out_discards

DRAW, DISCARD, OVER = "draw", "discard", "over"
STOCK, PILE = "stock", "discard_pile"
MAX_REBUILDS = 2  # R9: a third rebuild ends the round
TURNS_PER_SEAT = 150  # R11: a round ends after this many turns a seat

#: the actions, built once
DRAW_STOCK = ("draw", STOCK)
DRAW_PILE = ("draw", PILE)
DISCARD_CARD: tuple[tuple[str, int], ...] = tuple(("discard", c) for c in range(53))
GO_OUT_CARD: tuple[tuple[str, int], ...] = tuple(("go_out", c) for c in range(53))


class ThreeThirteen(Game):
    id = "three-thirteen"
    #: 2: runs of one span in different suits are no twins; a last turn lays down first.
    #: 3: R11, a round ends after 150 turns a seat.
    #: 4: R10, the default goes out when the hand can.
    engine_version = 4
    title = "Three Thirteen"
    summary = ("Eleven rounds of rummy: 3 cards in the first, 13 in the last, and the number "
               "dealt is wild. Draw, discard, go out with sets and runs; the fewest points win.")
    min_players = 2
    max_players = 8
    option_specs = (
        Option("rounds", 11, "rounds to play (round r deals r + 2 cards, its wild rank is "
               "r + 2); fewer for a short game", minimum=1, maximum=11),
        Option("joker_points", 20, "what a joker left in hand counts (R8)",
               minimum=0, maximum=100),
    )
    rules_texts = {"en": "three-thirteen.en.txt"}
    default_policy = ("draw: from the stock; then go out if the hand can (R7 lays it down); "
                      "else discard (a last turn too) the highest card that is not wild (R10)")
    proto_module = "three_thirteen"
    proto_name = "ThreeThirteen"

    def __init__(self, players: int, seed: int, options: Mapping | None = None):
        super().__init__(players, seed, options)
        n = players
        self.decks = (n + 1) // 2                       # R1
        self.deck = standard_deck(self.decks, 2)
        self.rng = new_rng(seed)
        self.joker_points = self.options["joker_points"]
        self.round = 0
        self.dealer = n - 1                             # _deal moves it to seat 0 for round 1
        self.wild = 0
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.stock: list[int] = []                      # its top card is the last
        self.pile: list[int] = []                       # the discard pile; its top is the last
        self.pile_text: list[str] = []                  # the same, as text (for the views)
        self.discards: list[str] = []                   # every card put on the pile this round
        self.discarded_by: list[int] = []
        self.taken: list[list[int]] = [[] for _ in range(n)]  # taken from the pile, still held
        self.just_taken = -1                            # the card the seat to act just took
        self.turn = 0
        self.phase = DRAW
        self.rebuilds = 0
        self.round_turns = 1                            # turns begun this round (R11)
        self.turn_cap = TURNS_PER_SEAT * n
        self.gone_out = -1
        self.last_turns: list[int] = []                 # seats still to take their last turn
        self.melded = [False] * n
        self.table: list[tuple[Meld, int, tuple[int, ...]]] = []  # meld, its seat, laid_by
        self.totals = [0] * n
        self.round_scores: list[tuple[int, tuple[int, ...], str]] = []
        self._seats = tuple(range(n))
        self._legal: list | None = None
        self._opening = self._deal()

    # ----- setup ---------------------------------------------------------------------------
    def _deal(self) -> list[Event]:
        """R2: shuffle every card, deal round + 2 to each seat from the dealer's left, turn the
        upcard; the seat left of the dealer starts."""
        self.round += 1
        n = self.players
        self.dealer = (self.dealer + 1) % n
        self.wild = self.round + 2
        size = self.round + 2
        deck = self.deck[:]
        self.rng.shuffle(deck)
        first = (self.dealer + 1) % n
        hands = [[] for _ in range(n)]
        for k in range(size * n):                       # one card at a time, clockwise
            hands[(first + k) % n].append(deck[k])
        self.hands = [sorted(h) for h in hands]
        upcard = deck[size * n]
        self.pile = [upcard]
        self.pile_text = [CARD_TEXT[upcard]]
        self.stock = deck[size * n + 1:]
        self.stock.reverse()                            # the next card of the deck is the top
        self.discards = [CARD_TEXT[upcard]]
        self.discarded_by = [-1]
        self.taken = [[] for _ in range(n)]
        self.just_taken = -1
        self.turn = first
        self.phase = DRAW
        self.rebuilds = 0
        self.round_turns = 1
        self.gone_out = -1
        self.last_turns = []
        self.melded = [False] * n
        self.table = []
        self._legal = None
        T = CARD_TEXT
        events = [Event({"type": "deal", "round": self.round, "dealer": self.dealer,
                         "wild_rank": rank_text(self.wild), "cards_each": size,
                         "upcard": T[upcard]})]
        for s in range(n):
            events.append(Event({"type": "deal", "round": self.round, "seat": s,
                                 "hand": [T[c] for c in self.hands[s]]}, frozenset((s,))))
        return events

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    # ----- whose turn, what is legal -------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.turn,)

    def legal_actions(self, seat: int) -> list:
        if self.phase == OVER or seat != self.turn:
            return []
        legal = self._legal
        if legal is None:
            if self.phase == DRAW:
                legal = [DRAW_STOCK, DRAW_PILE] if self.pile else [DRAW_STOCK]
            else:
                hand = self.hands[seat]
                cards = list(dict.fromkeys(hand))
                banned = self.just_taken
                if banned >= 0 and len(cards) > 1:
                    cards.remove(banned)
                legal = [DISCARD_CARD[c] for c in cards]
                if self.gone_out < 0:
                    legal += [GO_OUT_CARD[c] for c in going_out_discards(hand, self.wild)
                              if c in cards]
            self._legal = legal
        return list(legal)

    def default_action(self, seat: int):
        """R10: draw from the stock; go out if the hand can (the referee lays it down, R7),
        discarding the card R10's order picks among the going-out discards; else discard the
        highest card that is not wild (by points, then card code), or the highest wild if
        nothing else may go. A last turn cannot go out (R6): the same discard."""
        if self.phase == OVER or seat != self.turn:
            raise IllegalAction(f"seat {seat} is not to act")
        if self.phase == DRAW:
            return DRAW_STOCK
        legal = self.legal_actions(seat)
        out = [c for kind, c in legal if kind == "go_out"]  # never in a last turn
        if out:
            return GO_OUT_CARD[self._highest_plain(out)]
        return DISCARD_CARD[self._highest_plain([c for kind, c in legal if kind == "discard"])]

    def _highest_plain(self, cards: list[int]) -> int:
        """R10's discard: the highest of ``cards`` that is not wild, by points then card code;
        the highest of them all if every one is wild."""
        wild, jp = self.wild, self.joker_points
        plain = [c for c in cards if c != JOKER and c // 4 + 1 != wild]
        return max(plain or cards, key=lambda c: (card_points(c, jp), c))

    # ----- play ----------------------------------------------------------------------------
    def apply(self, actions: Mapping[int, tuple]) -> list[Event]:
        if self.phase == OVER:
            raise IllegalAction("the game is over")
        seat = self.turn
        if len(actions) != 1 or seat not in actions:
            raise IllegalAction(
                f"seats to act are [{seat}], actions were given for {sorted(actions)}")
        action = actions[seat]
        if action not in (self._legal or self.legal_actions(seat)):
            raise IllegalAction(f"seat {seat}: {action!r} is not a legal action now")
        self._legal = None
        events: list[Event] = []
        kind, what = action
        if kind == "draw":
            self._draw(seat, what, events)
        elif kind == "discard":
            if self.gone_out >= 0:  # R7: a last turn lays down, then its discard ends it
                self._lay_down(seat, what, events)
            self._discard(seat, what, events)
            self._next_turn(events)
        else:
            self._discard(seat, what, events, going_out=True)
            self._go_out(seat, events)
            self._next_turn(events)
        return events

    def _draw(self, seat: int, source: str, events: list[Event]) -> None:
        T = CARD_TEXT
        if source == STOCK:
            card = self.stock.pop()
            self.just_taken = -1
            events.append(Event({"type": "draw", "seat": seat, "source": STOCK,
                                 "card": T[card]}, frozenset((seat,))))
            others = frozenset(s for s in self._seats if s != seat)
            events.append(Event({"type": "draw", "seat": seat, "source": STOCK}, others))
        else:
            card = self.pile.pop()
            self.pile_text.pop()
            self.just_taken = card
            self.taken[seat].append(card)
            events.append(Event({"type": "take", "seat": seat, "card": T[card]}))
        insort(self.hands[seat], card)
        self.phase = DISCARD

    def _discard(self, seat: int, card: int, events: list[Event], going_out: bool = False) -> None:
        self.hands[seat].remove(card)
        taken = self.taken[seat]
        if card in taken:
            taken.remove(card)
        self.pile.append(card)
        self.pile_text.append(CARD_TEXT[card])
        self.discards.append(CARD_TEXT[card])
        self.discarded_by.append(seat)
        self.just_taken = -1
        if not going_out:
            events.append(Event({"type": "discard", "seat": seat, "card": CARD_TEXT[card]}))

    def _go_out(self, seat: int, events: list[Event]) -> None:
        """R6, R7: every card but the discard goes into new melds, laid by the referee."""
        arr = arrange(self.hands[seat], self.wild, (), self.joker_points)
        assert not arr.deadwood, "going out was listed, so the hand melds fully"
        self.hands[seat] = []
        self.taken[seat] = []
        self.melded[seat] = True
        for m in arr.melds:
            self.table.append((m, seat, (seat,) * len(m.cards)))
        self.gone_out = seat
        n = self.players
        self.last_turns = [(seat + k) % n for k in range(1, n)]
        events.append(Event({"type": "go_out", "seat": seat, "card": CARD_TEXT[self.pile[-1]],
                             "melds": [self._meld_json(t) for t in range(len(self.table))]}))

    def _lay_down(self, seat: int, discard: int, events: list[Event]) -> None:
        """R6, R7: a last turn's new melds and lay-offs, the fewest points left, laid before
        its ``discard`` (the rules text: discarding ends the turn)."""
        table = [m for m, _, _ in self.table]
        rest = list(self.hands[seat])
        rest.remove(discard)
        arr = arrange(rest, self.wild, table, self.joker_points)
        laid: list[int] = []
        layoffs = []
        for lo in arr.layoffs:
            m, owner, by = self.table[lo.meld]
            by = (seat,) * len(lo.below) + by + (seat,) * len(lo.above)
            self.table[lo.meld] = (extend(m, lo), owner, by)
            laid.extend(lo.cards)
            layoffs.append({"meld": lo.meld, "cards": [CARD_TEXT[c] for c in lo.cards],
                            "extended": self._meld_json(lo.meld)})
        start = len(self.table)
        for m in arr.melds:
            self.table.append((m, seat, (seat,) * len(m.cards)))
            laid.extend(m.cards)
        hand, taken = self.hands[seat], self.taken[seat]
        for c in laid:
            hand.remove(c)
            if c in taken:
                taken.remove(c)
        self.melded[seat] = True
        self.last_turns.pop(0)
        events.append(Event({"type": "lay_down", "seat": seat,
                             "melds": [self._meld_json(t) for t in range(start, len(self.table))],
                             "layoffs": layoffs, "cards_left": len(hand) - 1}))  # after the discard

    def _next_turn(self, events: list[Event]) -> None:
        """The next seat draws (R6: the next last turn), or the round ends; R9 at the draw, R11
        before a turn past the cap (the last turns after a seat went out are never cut)."""
        if self.gone_out >= 0:
            if not self.last_turns:
                self._end_round("out", events)
                return
            self.turn = self.last_turns[0]
        else:
            if self.round_turns >= self.turn_cap:
                self._end_round("turns", events)
                return
            self.round_turns += 1
            self.turn = (self.turn + 1) % self.players
        self.phase = DRAW
        if not self.stock:
            if self.rebuilds >= MAX_REBUILDS or len(self.pile) < 2:
                self._end_round("cap", events)
                return
            self.rebuilds += 1
            top = self.pile.pop()
            self.stock = self.pile
            self.rng.shuffle(self.stock)
            self.pile = [top]
            self.pile_text = [CARD_TEXT[top]]
            events.append(Event({"type": "rebuild", "rebuild": self.rebuilds,
                                 "cards": len(self.stock)}))

    def _end_round(self, reason: str, events: list[Event]) -> None:
        """R8/R9: every seat scores the cards in its hand; the next round, or the end."""
        jp = self.joker_points
        points = tuple(sum(card_points(c, jp) for c in h) for h in self.hands)
        for s, p in enumerate(points):
            self.totals[s] += p
        self.round_scores.append((self.round, points, reason))
        T = CARD_TEXT
        events.append(Event({"type": "round_end", "round": self.round, "reason": reason,
                             "hands": [{"seat": s, "cards": [T[c] for c in h]}
                                       for s, h in enumerate(self.hands)],
                             "points": list(points), "totals": list(self.totals)}))
        if self.round >= self.options["rounds"]:
            self.phase = OVER
            self.turn = -1
            self.last_turns = []
            self.just_taken = -1
            events.append(Event({"type": "game_end", "totals": list(self.totals),
                                 "places": list(self.result().places)}))
            return
        events.extend(self._deal())

    def is_over(self) -> bool:
        return self.phase == OVER

    def result(self) -> Result:
        """R8: the lowest total wins; ties share a place."""
        return Result.from_scores(self.totals, higher_is_better=False, rounds=self.round)

    # ----- what a seat may know ------------------------------------------------------------
    def _meld_json(self, t: int) -> dict:
        m, owner, by = self.table[t]
        T = CARD_TEXT
        run = m.kind == RUN
        return {"seat": owner, "kind": m.kind, "cards": [T[c] for c in m.cards],
                "laid_by": list(by), "rank": "" if run else rank_text(m.key),
                "suit": SUIT_SYMBOLS[m.key] if run else "",
                "low": m.low if run else 0, "high": m.high if run else 0,
                "naturals": m.naturals, "wilds": m.wilds}

    def view(self, seat: int) -> dict:
        T = CARD_TEXT
        hands, taken, melded, totals = self.hands, self.taken, self.melded, self.totals
        pending = self.last_turns
        mine = self.phase == DISCARD and self.turn == seat and self.just_taken >= 0
        return {
            "seat": seat,
            "players": self.players,
            "decks": self.decks,
            "rounds": self.options["rounds"],
            "joker_points": self.joker_points,
            "round": self.round,
            "wild_rank": rank_text(self.wild),
            "dealer": self.dealer,
            "turn": self.turn,
            "phase": self.phase,
            "hand": [T[c] for c in hands[seat]],
            "taken_card": T[self.just_taken] if mine else "",
            "stock_size": len(self.stock),
            "rebuilds": self.rebuilds,
            "discard_pile": list(self.pile_text),
            "discards": list(self.discards),
            "discarded_by": list(self.discarded_by),
            "seats": [{"seat": s, "hand_size": len(hands[s]), "taken": [T[c] for c in taken[s]],
                       "total": totals[s], "melded": melded[s], "last_turn": s in pending}
                      for s in self._seats],
            "melds": [self._meld_json(t) for t in range(len(self.table))],
            "round_scores": [{"round": r, "points": list(p), "reason": why}
                             for r, p, why in self.round_scores],
            "gone_out": self.gone_out,
            "last_turns": list(pending),
        }

    def spectator_view(self) -> dict:
        """A view without its seat's own keys (``seat``, ``hand``, ``taken_card``): the public
        part, under the same keys. The cards taken from the discard pile stay (``seats[].taken``:
        they lay face up)."""
        v = self.view(0)
        for key in ("seat", "hand", "taken_card"):
            del v[key]
        return v

    def state_json(self) -> dict:
        """The omniscient snapshot (logs, audits, tests); never sent to a bot."""
        T = CARD_TEXT
        return {
            "round": self.round, "dealer": self.dealer, "wild_rank": rank_text(self.wild),
            "turn": self.turn, "phase": self.phase,
            "hands": [[T[c] for c in h] for h in self.hands],
            "stock": [T[c] for c in self.stock],
            "discard_pile": [T[c] for c in self.pile],
            "discards": list(self.discards), "discarded_by": list(self.discarded_by),
            "taken": [[T[c] for c in t] for t in self.taken],
            "just_taken": T[self.just_taken] if self.just_taken >= 0 else "",
            "rebuilds": self.rebuilds, "round_turns": self.round_turns, "gone_out": self.gone_out,
            "last_turns": list(self.last_turns), "melded": list(self.melded),
            "melds": [self._meld_json(t) for t in range(len(self.table))],
            "totals": list(self.totals),
            "round_scores": [{"round": r, "points": list(p), "reason": why}
                             for r, p, why in self.round_scores],
        }

    # ----- copies and determinization ------------------------------------------------------
    def copy(self) -> "ThreeThirteen":
        """An independent copy (cheaper than deepcopy: flat lists of ints, immutable melds)."""
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        new.__dict__ = d
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        d["rng"] = rng
        d["options"] = dict(self.options)
        d["hands"] = [h[:] for h in self.hands]
        d["taken"] = [t[:] for t in self.taken]
        for name in ("stock", "pile", "pile_text", "discards", "discarded_by", "last_turns",
                     "melded", "table", "totals", "round_scores", "_opening"):
            d[name] = list(d[name])
        d["_legal"] = None
        return new

    def resample_hidden(self, seat: int, rng: random.Random) -> "ThreeThirteen":
        """A copy with what ``seat`` cannot know re-dealt: the other hands' cards drawn face down
        (the cards they took from the discard pile stay) and the stock; future shuffles reseeded."""
        new = self.copy()
        others = [s for s in self._seats if s != seat]
        pool = list(new.stock)
        hidden: dict[int, list[int]] = {}
        for s in others:
            rest = list(new.hands[s])
            for c in new.taken[s]:
                rest.remove(c)
            hidden[s] = rest
            pool.extend(rest)
        rng.shuffle(pool)
        k = 0
        for s in others:
            size = len(hidden[s])
            new.hands[s] = sorted(new.taken[s] + pool[k:k + size])
            k += size
        new.stock = pool[k:]
        new.rng = random.Random(rng.getrandbits(64))
        return new

    # ----- words -----------------------------------------------------------------------------
    def action_json(self, action) -> dict:
        kind, what = action
        if kind == "draw":
            return {"draw": what}
        return {kind: CARD_TEXT[what]}

    def action_label(self, action) -> str:
        kind, what = action
        if kind == "draw":
            if what == STOCK:
                return "draw from the stock"
            top = CARD_TEXT[self.pile[-1]] if self.pile else "the top card"
            return f"take {top} from the discard pile"
        if kind == "discard":
            return f"discard {CARD_TEXT[what]}"
        return f"go out, discarding {CARD_TEXT[what]}"

    def event_text(self, data: dict) -> str:
        kind = data.get("type")

        def melds(ms):
            return "; ".join(" ".join(m["cards"]) for m in ms) or "nothing"

        if kind == "deal" and "hand" in data:
            return f"seat {data['seat']} is dealt {' '.join(data['hand'])}"
        if kind == "deal":
            return (f"round {data['round']}: seat {data['dealer']} deals {data['cards_each']} "
                    f"cards each, {data['wild_rank']}s are wild; the upcard is {data['upcard']}")
        if kind == "draw":
            card = f" ({data['card']})" if "card" in data else ""
            return f"seat {data['seat']} draws from the stock{card}"
        if kind == "take":
            return f"seat {data['seat']} takes {data['card']} from the discard pile"
        if kind == "discard":
            return f"seat {data['seat']} discards {data['card']}"
        if kind == "rebuild":
            return f"the stock is rebuilt from the discard pile ({data['cards']} cards)"
        if kind == "go_out":
            return (f"seat {data['seat']} goes out, discarding {data['card']}: "
                    f"{melds(data['melds'])}")
        if kind == "lay_down":
            parts = []
            if data["melds"]:
                parts.append(f"lays down {melds(data['melds'])}")
            if data["layoffs"]:
                parts.append("lays off " + "; ".join(
                    f"{' '.join(x['cards'])} onto meld {x['meld'] + 1}" for x in data["layoffs"]))
            left = data["cards_left"]
            parts.append(f"keeps {left} card{'' if left == 1 else 's'}" if parts
                         else f"melds nothing and keeps {left} card{'' if left == 1 else 's'}")
            return f"seat {data['seat']} " + ", ".join(parts)
        if kind == "round_end":
            why = {"out": "", "cap": " (the stock ran out a third time)",
                   "turns": f" (the cap: {TURNS_PER_SEAT} turns a seat)"}.get(data["reason"], "")
            pts = ", ".join(f"seat {s} {p} ({t})"
                            for s, (p, t) in enumerate(zip(data["points"], data["totals"])))
            return f"round {data['round']} ends{why}; points (totals): {pts}"
        if kind == "game_end":
            pts = ", ".join(f"seat {s} {t} (place {p})"
                            for s, (t, p) in enumerate(zip(data["totals"], data["places"])))
            return f"game over: {pts}"
        return super().event_text(data)


GAME = ThreeThirteen
