"""Unsorted: a climbing game in which you may never sort your hand.

Rules text: ``rules/unsorted.en.txt`` (German: ``rules/unsorted.de.txt``, the same rules but
for one sentence, read as the English text says: U8a), an adaptation of Krass Kariert for a
standard deck with two jokers, for 3–5 players. You play only cards that sit side by side in
your hand: one, two or three. In each round the leader plays, then every other seat still
holding cards acts once, clockwise: beat the highest combination so far, play a Stop or Draw
card, or take one of its two face-up spare cards into any position of its hand. The last seat
holding cards loses the deal and hands in a chip; a seat that must hand in a chip and has none
loses the game, and everybody else wins together.

Rulings applied (shared/RULINGS.md, Unsorted):

* U1 cards: A = 1, 2–10, J = 11, Q = 12, four of each; K♠ K♣ are Stop cards, K♥ K♦ are Draw
  cards; 2 jokers are wild 1–12. 54 cards.
* U2 kinds, weakest first: single < two-run < pair < three-run < three of a kind.
* U3 a combination is 1–3 adjacent cards; the order inside the block does not matter (10-8-9 is a
  three-run); no Q–A wrap. Within a kind the higher number wins (runs: their highest card); equal
  does not beat.
* U4 a joker's number (1–12) is declared in the action. A block of two jokers must hold a natural
  card; a lone joker is a legal single.
* U5 Kings never join a combination; Stop and Draw may always be played, beating nothing.
* U6 the leader must play (a combination, Stop or Draw). Every other seat in the deal then acts
  once, clockwise: beat the highest combination, Stop, Draw, or take one spare into any position
  0…len(hand) (allowed even when it could beat).
* U7 a seat to act with no spare, no beating combination and no Stop/Draw loses the deal at
  once; the deal ends there (no decision is asked of it).
* U8 a Draw card never raises the bar: the next seat must beat the last real combination; after
  a Draw lead anything may be played. Both Draw cards may fall in one round.
* U8a after a Draw lead the leader wins only if nobody answers with a combination; a second Draw
  card changes nothing (the English text; the German sentence could be read as "the leader wins
  as soon as anyone plays the second Draw", which we do not follow).
* U9 Stop may lead: the round ends and the leader wins it.
* U10 the round's winner: the Stop player if a Stop was played; else the seat with the highest
  combination; else (a Draw lead that nobody answered with a combination) the leader.
* U11 the winner draws 3 cards per Draw card played that round, one card at a time: each drawn
  card is a decision of the winner, who sees that card (only that card) and chooses its position
  before the next one is turned. This holds even when the winner has just played out (they are
  back in the deal). An empty draw pile gives what is left; the discard pile is never reshuffled.
* U12 end of a round, in this order: (1) if every seat that held cards at the round's start
  played its last card in it, all of them except the winner lose the deal, and nobody draws;
  (2) the winner draws; (3) seats with no cards are out for the deal; (4) if one seat still holds
  cards, it loses the deal.
* U13 next leader: the winner if they hold cards; else the seat with the highest other
  combination of the round that still holds cards (when a Stop card won, the highest
  combination of the round); else the nearest seat to the winner's right (seat − 1, − 2, …)
  that still holds cards.
* U14 the dealer is seat 0 every deal. The deck is shuffled and dealt one card at a time,
  clockwise from the dealer's left, 10 cards each (7 with five players); the first card a seat
  receives is its leftmost (index 0). Then 2 face-up spares each, dealt the same way; the rest is
  the draw pile. The first leader is the dealer's left (seat 1); in later deals the loser of the
  last deal leads, or the dealer's left if several lost.
* U15 chips: 3 each (2 with five players; option ``long_game``: 3). Each loser of a deal hands
  in one; a seat that must hand one in and has none loses the game and all others win together;
  several such seats at once all lose.
* U16 result: winners share first place (score 1), losers share the last place (score 0).
* U16a cap: option ``max_deals`` (0 = none); after that many deals the game ends, scored by the
  chips left (score = chips, more is better, ties share a place).
* U17 defaults (a fault or a late answer): leader → the leftmost card alone (a number card as a
  single, a joker as a single 12, a Stop or Draw king played as such); follower → take the first
  spare to position 0, else the weakest beating combination (leftmost on a tie), else the
  leftmost Draw card, else the leftmost Stop card. Decided here, where RULINGS is silent: a drawn
  card's default position is 0 (the leftmost), like a spare's.

Termination and the cap (U16a): a deal always ends (every round the leader removes at least one
card from the hands, and cards enter hands only from the 2 spares per seat and the finite draw
pile), and every deal has at least one loser who hands in a chip or ends the game, so a game
lasts at most (total chips + 1) deals. The option ``max_deals`` ends it earlier.

What a seat may know (the view): its own hand in order; for every seat the hand as positions,
showing the cards whose identity is public (spares taken, at their current position, moving as
cards around them leave or arrive) and "" for the rest (dealt cards, and cards a round's winner
drew: only the winner sees those); every seat's spares, chips, hand size and whether it is out of
the deal; the plays of the current round (seat, kind, number, cards, the hand position they left,
declared jokers) and which is the highest, until the next round starts (while the winner draws
they are still this round's, not yet on the discard pile); every earlier round of this deal:
its plays the same way, Stop and Draw cards included, its winner and how many cards the winner
drew; the discard pile of this deal (the cards of those earlier rounds); the draw pile's size;
the leader, whose turn it is and who still acts this round; while a winner draws, the number of
cards still to draw and, for that winner only, the card being placed. Earlier deals leave only
the chips and the last deal's losers: every deal reshuffles all the cards.

View (``UnsortedView`` in proto/cardarena/v1/unsorted.proto):

==================  ================================================================
seat, players       this seat; seats at the table
hand                this seat's hand, index 0 leftmost
seats               per seat: seat, chips, spares, known (its hand position by position: public cards, "" unknown),
                    hand_size, out (out of the deal), acted (has acted this round)
dealer, deal        always 0; the deal being played, from 1
max_deals           the option (0: no cap)
round               the round of this deal, from 1
leader, turn        the round's leader; the seat to act (-1 when over)
phase               "play", "draw" (the winner places drawn cards), "over"
plays               this round's plays: seat, kind ("single", "two-run", "pair",
                    "three-run", "three of a kind", "stop", "draw"), number (a run's
                    highest card, 0 for Stop/Draw), cards, position, jokers
highest             index in plays of the highest combination, -1 if none
still_to_act        seats that act after the current one this round, in order
discard             cards played in earlier rounds of this deal, oldest first (never this
                    round's, also while the winner draws)
draw_pile_size      cards left in the draw pile
draws_played        Draw cards played this round
drawer              phase "draw": the round's winner who draws; else -1
cards_to_draw       phase "draw": cards still to draw, the one being placed included
drawn_card          phase "draw", the drawer's own view only: the card to place; else ""
last_deal_losers    the seats that lost the previous deal (empty in the first)
earlier_rounds      the earlier rounds of this deal, oldest first: round, plays (as above),
                    winner, drawn (cards the winner drew; 0 if none)
==================  ================================================================

``spectator_view()`` is the same without ``seat``, ``hand`` and ``drawn_card`` (what a spectator of
a live match is shown).

Actions (tuples of ints; ``UnsortedAction`` is a oneof):

=======================================  ===========================  ==========================
tuple                                    JSON                         label
=======================================  ===========================  ==========================
(PLAY, start, cards, kind, number,       play {position, cards,       "single 8♥", "pair of 4s:
 jokers, flag)                            kind, number, jokers}        4♥ 4♣", "joker as 7 with
                                                                      6♣: two-run 6–7"
(STOP, position, card, flag)             stop {position, card}        "Stop"
(DRAW, position, card, flag)             draw {position, card}        "Draw"
(SPARE, spare, card, position)           take_spare {spare, card,     "take spare 8♠ to
                                          position}                    position 3"
(PLACE, card, position)                  put_drawn {card, position}   "put drawn 5♦ at position 2"
=======================================  ===========================  ==========================

``cards`` are card codes in hand order, ``jokers`` the declared numbers of the block's jokers in
hand order. ``flag`` is 1 when the seat's hand could make two actions read alike (two jokers, or
both Stop or both Draw cards): the label then names the position or the king.

Options: ``long_game`` (bool, 3 chips each with five players), ``max_deals`` (int, 0 = no cap).
"""
from __future__ import annotations

import random
from collections.abc import Mapping

from .base import Event, Game, IllegalAction, Option, Result
from .cards import CARD_TEXT, JOKER, make_card, new_rng, rank_text

# ----- cards (U1) --------------------------------------------------------------------------
#: 1–12 for number cards, 0 for a joker, 13 for a King (Stop or Draw).
RANK: tuple[int, ...] = tuple([c // 4 + 1 for c in range(52)] + [0])
STOP_CARDS = frozenset({make_card(13, 0), make_card(13, 3)})   # K♣ K♠
DRAW_CARDS = frozenset({make_card(13, 1), make_card(13, 2)})   # K♦ K♥
DECK: tuple[int, ...] = tuple(range(52)) + (JOKER, JOKER)

# ----- kinds (U2) ------------------------------------------------------------------------
SINGLE, TWO_RUN, PAIR, THREE_RUN, THREE_OF_A_KIND, STOP_KIND, DRAW_KIND = 1, 2, 3, 4, 5, 6, 7
KIND_NAME = {1: "single", 2: "two-run", 3: "pair", 4: "three-run", 5: "three of a kind",
             6: "stop", 7: "draw"}
KIND_OF_NAME = {v: k for k, v in KIND_NAME.items()}

# ----- actions ---------------------------------------------------------------------------
PLAY, STOP, DRAW, SPARE, PLACE = 0, 1, 2, 3, 4

PHASE_PLAY, PHASE_DRAW, PHASE_OVER = "play", "draw", "over"


def strength(kind: int, number: int) -> int:
    """One int ordering combinations: kind first (U2), then number (U3)."""
    return kind * 16 + number


def _runs_covering(values: list[int], jokers: int, size: int) -> list[tuple[int, int, tuple]]:
    """Runs of ``size`` cards (highest card h) holding the distinct natural ``values``."""
    kind = TWO_RUN if size == 2 else THREE_RUN
    out = []
    for h in range(size, 13):
        span = set(range(h - size + 1, h + 1))
        if all(v in span for v in values) and len(set(values)) == len(values):
            missing = sorted(span - set(values))
            if len(missing) == jokers:
                out.append((kind, h, tuple(missing)))
    return out


_COMBOS: dict[tuple[int, ...], tuple[tuple[int, int, tuple], ...]] = {}


def combos_of(ranks: tuple[int, ...]) -> tuple[tuple[int, int, tuple], ...]:
    """Every combination a block can be (U2–U4): (kind, number, declared jokers), weakest first.

    ``ranks`` are the block's cards in hand order (0 = joker, no Kings). The jokers' declared
    numbers are listed ascending (two jokers are alike).
    """
    got = _COMBOS.get(ranks)
    if got is not None:
        return got
    naturals = [r for r in ranks if r]
    jokers = len(ranks) - len(naturals)
    out: list[tuple[int, int, tuple]] = []
    size = len(ranks)
    if size == 1:
        out = [(SINGLE, naturals[0], ())] if naturals else [(SINGLE, v, (v,)) for v in range(1, 13)]
    elif naturals:  # U4: a block of jokers alone (two or more cards) is no combination
        if len(set(naturals)) == 1:
            out.append((PAIR if size == 2 else THREE_OF_A_KIND, naturals[0], (naturals[0],) * jokers))
        out.extend(_runs_covering(naturals, jokers, size))
    out.sort(key=lambda t: strength(t[0], t[1]))
    result = tuple(out)
    _COMBOS[ranks] = result
    return result


def _plural(n: int) -> str:
    return {1: "aces", 11: "jacks", 12: "queens"}.get(n, f"{n}s")


def combination_words(kind: int, number: int) -> str:
    """"single 8", "two-run 6–7", "pair of 4s", "three-run 8–10", "three of a kind 4s"."""
    if kind == SINGLE:
        return f"single {rank_text(number)}"
    if kind == TWO_RUN:
        return f"two-run {rank_text(number - 1)}–{rank_text(number)}"
    if kind == PAIR:
        return f"pair of {_plural(number)}"
    if kind == THREE_RUN:
        return f"three-run {rank_text(number - 2)}–{rank_text(number)}"
    if kind == THREE_OF_A_KIND:
        return f"three of a kind {_plural(number)}"
    return KIND_NAME[kind].capitalize()


def play_label(cards: tuple[int, ...], kind: int, number: int, jokers: tuple[int, ...],
               start: int, flag: int) -> str:
    """The players' words for a combination: "single 8♥", "pair of 4s: 4♥ 4♣", …"""
    naturals = [CARD_TEXT[c] for c in cards if c != JOKER]
    if not jokers:
        text = f"single {naturals[0]}" if kind == SINGLE else \
            f"{combination_words(kind, number)}: {' '.join(naturals)}"
    elif kind == SINGLE:
        text = f"single joker as {rank_text(number)}"
    else:
        who = "joker as " + rank_text(jokers[0]) if len(jokers) == 1 else \
            "jokers as " + " and ".join(rank_text(j) for j in jokers)
        text = f"{who} with {' '.join(naturals)}: {combination_words(kind, number)}"
    if flag:
        text += f" from position {start}"
    return text


class Unsorted(Game):
    id = "unsorted"
    title = "Unsorted"
    summary = ("Climbing game where you may never sort your hand: play 1–3 adjacent cards, "
               "beat or take a spare; the last with cards loses a chip.")
    min_players = 3
    max_players = 5
    option_specs = (
        Option("long_game", False, "with five players, 3 chips each instead of 2 (the text's "
                                   "variant 'Longer game with 5 players')", bool),
        Option("max_deals", 0, "end the game after this many deals, scored by the chips left "
                               "(0: no cap; the game always ends by itself within "
                               "total chips + 1 deals)", int, minimum=0, maximum=100_000),
    )
    rules_texts = {"en": "unsorted.en.txt", "de": "unsorted.de.txt"}
    default_policy = ("leader: the leftmost card alone (a joker as a single 12, a King as Stop "
                      "or Draw); follower: take the first spare to position 0, else the weakest "
                      "beating combination, else Draw, else Stop; drawn card: position 0")
    proto_module = "unsorted"
    proto_name = "Unsorted"

    def __init__(self, players: int, seed: int, options: Mapping | None = None):
        super().__init__(players, seed, options)
        n = players
        self.rng: random.Random = new_rng(seed)
        self.hand_size = 7 if n == 5 else 10
        self.chips = [3 if n < 5 or self.options["long_game"] else 2] * n
        self.max_deals: int = self.options["max_deals"]
        self.dealer = 0
        self.deal = 0
        self.last_deal_losers: list[int] = []
        self.game_losers: list[int] = []
        self.end_reason = ""          # "chips" (U15) or "cap" (max_deals)
        # deal state
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.public: list[list[bool]] = [[] for _ in range(n)]  # per hand position: face known to all
        self.spares: list[list[int]] = [[] for _ in range(n)]
        self.out: list[bool] = [False] * n
        self.pile: list[int] = []      # the draw pile; its top is the last element
        self.discard: list[int] = []   # the cards of the earlier rounds of this deal
        #: the earlier rounds of this deal as the view lists them (built once; never changed)
        self.earlier_rounds: list[dict] = []
        # round state
        self.round = 0
        self.phase = PHASE_PLAY
        self.leader = 0
        self.participants: tuple[int, ...] = ()
        self.order: list[int] = []     # the round's seats in acting order, leader first
        self.turn_index = 0
        #: this round's plays: (seat, kind, number, cards, position, jokers)
        self.plays: list[tuple] = []
        self.best = -1                 # index in plays of the highest combination
        self.draws_played = 0
        self.stop_seat = -1
        self.drawer = -1
        self.to_draw = 0
        self.drawn = 0                 # cards the round's winner draws (U11)
        self._cache: tuple | None = None
        self._opening = self._start_deal(1 % n)

    # ----- setup (U14) -----------------------------------------------------------------
    def _start_deal(self, leader: int) -> list[Event]:
        n = self.players
        self.deal += 1
        deck = list(DECK)
        self.rng.shuffle(deck)
        order = [(self.dealer + k) % n for k in range(1, n + 1)]
        hands: list[list[int]] = [[] for _ in range(n)]
        spares: list[list[int]] = [[] for _ in range(n)]
        i = 0
        for _ in range(self.hand_size):
            for s in order:
                hands[s].append(deck[i])
                i += 1
        for _ in range(2):
            for s in order:
                spares[s].append(deck[i])
                i += 1
        self.hands, self.spares = hands, spares
        self.public = [[False] * len(h) for h in hands]
        self.pile = deck[i:]
        self.discard = []
        self.earlier_rounds = []
        self.out = [False] * n
        self.round = 0
        events = [Event({"type": "deal", "deal": self.deal, "seat": s, "hand": [CARD_TEXT[c] for c in hands[s]]},
                        frozenset({s})) for s in range(n)]
        events.append(Event({
            "type": "new deal", "deal": self.deal, "dealer": self.dealer, "hand_size": self.hand_size,
            "spares": [{"seat": s, "cards": [CARD_TEXT[c] for c in spares[s]]} for s in range(n)],
            "draw_pile_size": len(self.pile), "chips": list(self.chips), "leader": leader,
        }))
        self._start_round(leader)
        return events

    def _start_round(self, leader: int) -> None:
        n = self.players
        self.round += 1
        self.phase = PHASE_PLAY
        self.leader = leader
        self.order = [s for s in ((leader + k) % n for k in range(n)) if not self.out[s]]
        self.participants = tuple(sorted(self.order))
        self.turn_index = 0
        self.plays = []
        self.best = -1
        self.draws_played = 0
        self.stop_seat = -1
        self.drawer = -1
        self.to_draw = 0
        self.drawn = 0
        self._cache = None

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    # ----- whose turn ------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.phase == PHASE_PLAY:
            return (self.order[self.turn_index],)
        if self.phase == PHASE_DRAW:
            return (self.drawer,)
        return ()

    def is_over(self) -> bool:
        return self.phase == PHASE_OVER

    def bar(self) -> int:
        """The strength a play must exceed: the highest combination so far (U8: Draw adds none)."""
        if self.best < 0:
            return 0
        p = self.plays[self.best]
        return strength(p[1], p[2])

    def _legal(self) -> tuple[int, list, frozenset]:
        c = self._cache
        if c is not None:
            return c
        seats = self.to_act()
        if not seats:
            c = (-1, [], frozenset())
        else:
            seat = seats[0]
            acts = self._compute_legal(seat)
            c = (seat, acts, frozenset(acts))
        self._cache = c
        return c

    def _compute_legal(self, seat: int) -> list:
        hand = self.hands[seat]
        if self.phase == PHASE_DRAW:
            card = self.pile[-1]
            return [(PLACE, card, p) for p in range(len(hand) + 1)]
        leading = self.turn_index == 0
        bar = 0 if leading else self.bar()
        two_jokers = hand.count(JOKER) >= 2
        acts: list = []
        n = len(hand)
        rank = RANK
        ranks_all = [rank[c] for c in hand]
        known = _COMBOS
        for i in range(n):
            for size in (1, 2, 3):
                end = i + size
                if end > n or ranks_all[end - 1] == 13:  # U5: Kings never join a combination
                    break
                ranks = tuple(ranks_all[i:end])
                options = known.get(ranks)
                if options is None:
                    options = combos_of(ranks)
                if not options or options[-1][0] * 16 + options[-1][1] <= bar:
                    continue
                flag = 1 if two_jokers and 0 in ranks else 0
                cards = tuple(hand[i:end])
                for kind, number, jokers in options:
                    if kind * 16 + number > bar:
                        acts.append((PLAY, i, cards, kind, number, jokers, flag))
        both_stops = sum(1 for c in hand if c in STOP_CARDS) == 2
        both_draws = sum(1 for c in hand if c in DRAW_CARDS) == 2
        for i, c in enumerate(hand):
            if c in STOP_CARDS:
                acts.append((STOP, i, c, 1 if both_stops else 0))
        for i, c in enumerate(hand):
            if c in DRAW_CARDS:
                acts.append((DRAW, i, c, 1 if both_draws else 0))
        if not leading:
            spares = self.spares[seat]
            for k, c in enumerate(spares):
                if k and c == spares[0]:
                    continue  # two jokers as spares: taking either is the same move
                for p in range(n + 1):
                    acts.append((SPARE, k, c, p))
        return acts

    def legal_actions(self, seat: int) -> list:
        s, acts, _ = self._legal()
        return list(acts) if s == seat else []

    def default_action(self, seat: int):
        s, acts, _ = self._legal()
        if s != seat or not acts:
            raise IllegalAction(f"seat {seat} is not to act")
        if self.phase == PHASE_DRAW:
            return acts[0]  # position 0
        if self.turn_index == 0:  # U17 leader: the leftmost card alone
            c = self.hands[seat][0]
            for a in acts:
                if a[0] == PLAY and a[1] == 0 and len(a[2]) == 1 and (c != JOKER or a[4] == 12):
                    return a
                if a[0] in (STOP, DRAW) and a[1] == 0:
                    return a
            raise AssertionError("the leftmost card is always playable")
        spare = [a for a in acts if a[0] == SPARE]
        if spare:
            return spare[0]  # the first spare to position 0
        plays = [a for a in acts if a[0] == PLAY]
        if plays:
            return min(plays, key=lambda a: (a[3] * 16 + a[4], a[1]))
        for kind in (DRAW, STOP):
            for a in acts:
                if a[0] == kind:
                    return a
        raise AssertionError("a seat asked to act has a legal action")

    # ----- applying actions ------------------------------------------------------------
    def apply(self, actions: Mapping[int, object]) -> list[Event]:
        seat, _, legal = self._legal()
        if seat < 0 or len(actions) != 1 or seat not in actions:
            raise IllegalAction(f"seats to act are {list(self.to_act())}, actions were given for {sorted(actions)}")
        action = actions[seat]
        try:
            ok = action in legal
        except TypeError:
            ok = False
        if not ok:
            raise IllegalAction(f"seat {seat}: {action!r} is not a legal action now")
        events: list[Event] = []
        self._cache = None
        if self.phase == PHASE_DRAW:
            self._place_drawn(seat, action, events)
        else:
            self._play(seat, action, events)
        # every path above leaves the cache empty or computed for the new state (U7's check)
        return events

    def _play(self, seat: int, a: tuple, ev: list[Event]) -> None:
        hand, pub = self.hands[seat], self.public[seat]
        tag = a[0]
        if tag == PLAY:
            _, start, cards, kind, number, jokers, _flag = a
            del hand[start:start + len(cards)]
            del pub[start:start + len(cards)]
            self.plays.append((seat, kind, number, cards, start, jokers))
            self.best = len(self.plays) - 1
            ev.append(Event({"type": "play", "seat": seat, "kind": KIND_NAME[kind], "number": number,
                             "cards": [CARD_TEXT[c] for c in cards], "position": start,
                             "jokers": list(jokers), "cards_left": len(hand)}))
        elif tag in (STOP, DRAW):
            _, pos, card, _flag = a
            del hand[pos]
            del pub[pos]
            kind = STOP_KIND if tag == STOP else DRAW_KIND
            self.plays.append((seat, kind, 0, (card,), pos, ()))
            ev.append(Event({"type": KIND_NAME[kind], "seat": seat, "card": CARD_TEXT[card],
                             "position": pos, "cards_left": len(hand)}))
            if tag == STOP:  # U5/U9/U10: the round ends at once, won by this seat
                self.stop_seat = seat
                self.turn_index += 1
                self._end_round(ev)
                return
            self.draws_played += 1
        else:  # SPARE (U6)
            _, k, card, pos = a
            del self.spares[seat][k]
            hand.insert(pos, card)
            pub.insert(pos, True)
            ev.append(Event({"type": "take spare", "seat": seat, "card": CARD_TEXT[card],
                             "position": pos, "spares_left": len(self.spares[seat])}))
        self.turn_index += 1
        self._next_turn(ev)

    def _next_turn(self, ev: list[Event]) -> None:
        if self.turn_index >= len(self.order):
            self._end_round(ev)
            return
        seat = self.order[self.turn_index]
        self._cache = None
        if not self._legal()[1]:  # U7: cannot beat, no Stop/Draw, no spare
            ev.append(Event({"type": "cannot act", "seat": seat}))
            self._end_deal([seat], "cannot beat and has no spare", ev)

    def winner(self) -> int:
        """U10: the Stop player; else the highest combination; else the leader."""
        if self.stop_seat >= 0:
            return self.stop_seat
        if self.best >= 0:
            return self.plays[self.best][0]
        return self.leader

    def _end_round(self, ev: list[Event]) -> None:
        win = self.winner()
        ev.append(Event({"type": "round won", "seat": win, "round": self.round,
                         "draws_played": self.draws_played}))
        self.drawer = win
        # U12 (1): everybody who took part played out in this round
        if all(not self.hands[s] for s in self.participants):
            losers = [s for s in self.participants if s != win]
            self._end_deal(losers, "all played out in one round", ev)
            return
        # U12 (2) / U11: the winner draws, one decision per card
        k = min(3 * self.draws_played, len(self.pile))
        if k:
            self.phase = PHASE_DRAW
            self.to_draw = self.drawn = k
            ev.append(Event({"type": "draws", "seat": win, "count": k,
                             "draw_pile_size": len(self.pile)}))
            return
        self._finish_round(ev)

    def _place_drawn(self, seat: int, a: tuple, ev: list[Event]) -> None:
        _, card, pos = a
        self.pile.pop()
        self.hands[seat].insert(pos, card)
        self.public[seat].insert(pos, False)
        self.to_draw -= 1
        ev.append(Event({"type": "put drawn", "seat": seat, "card": CARD_TEXT[card], "position": pos},
                        frozenset({seat})))
        others = frozenset(s for s in range(self.players) if s != seat)
        ev.append(Event({"type": "put drawn", "seat": seat, "card": "", "position": pos}, others))
        if self.to_draw == 0:
            self.phase = PHASE_PLAY
            self._finish_round(ev)

    def _finish_round(self, ev: list[Event]) -> None:
        win = self.drawer
        hands = self.hands
        # U12 (3): seats without cards are out for the deal
        for s in self.participants:
            if not hands[s] and not self.out[s]:
                self.out[s] = True
                ev.append(Event({"type": "out of deal", "seat": s}))
        holding = [s for s in range(self.players) if hands[s]]
        # U12 (4): the last seat holding cards loses the deal
        if len(holding) <= 1:
            self._end_deal(holding, "last seat holding cards", ev)
            return
        leader = self.next_leader(win)
        self._close_round(win)
        self._start_round(leader)
        ev.append(Event({"type": "lead", "seat": self.leader, "round": self.round}))

    def _close_round(self, win: int) -> None:
        """The round's cards go on the discard pile, and the round into the deal's history."""
        for p in self.plays:
            self.discard.extend(p[3])
        self.earlier_rounds.append({"round": self.round, "plays": _plays_json(self.plays),
                                    "winner": win, "drawn": self.drawn})

    def next_leader(self, win: int) -> int:
        """U13: the winner; else the highest other combination still holding cards; else the
        nearest seat to the winner's right holding cards."""
        hands = self.hands
        if hands[win]:
            return win
        for p in reversed(self.plays):  # real combinations rise through the round
            if p[1] <= THREE_OF_A_KIND and p[0] != win and hands[p[0]]:
                return p[0]
        n = self.players
        for d in range(1, n):
            s = (win - d) % n
            if hands[s]:
                return s
        raise AssertionError("next_leader with nobody holding cards")

    def _end_deal(self, losers: list[int], reason: str, ev: list[Event]) -> None:
        losers = sorted(losers)
        self.last_deal_losers = losers
        ev.append(Event({"type": "deal lost", "seats": list(losers), "reason": reason, "deal": self.deal}))
        broke = [s for s in losers if self.chips[s] == 0]
        for s in losers:
            if self.chips[s]:
                self.chips[s] -= 1
                ev.append(Event({"type": "hand in chip", "seat": s, "chips": self.chips[s]}))
        self._cache = None
        if broke:  # U15: must hand one in and has none
            self.game_losers = broke
            self.end_reason = "chips"
            self.phase = PHASE_OVER
            ev.append(Event({"type": "game over", "losers": list(broke),
                             "winners": [s for s in range(self.players) if s not in broke]}))
            return
        if self.max_deals and self.deal >= self.max_deals:
            self.end_reason = "cap"
            self.phase = PHASE_OVER
            ev.append(Event({"type": "game over", "losers": [], "winners": [],
                             "reason": f"deal cap {self.max_deals} reached; scored by chips",
                             "chips": list(self.chips)}))
            return
        leader = losers[0] if len(losers) == 1 else (self.dealer + 1) % self.players
        ev.extend(self._start_deal(leader))

    # ----- result (U16) ----------------------------------------------------------------
    def result(self) -> Result:
        if self.end_reason == "chips":
            scores = [0 if s in self.game_losers else 1 for s in range(self.players)]
        else:
            scores = list(self.chips)
        return Result.from_scores(scores, True, chips=list(self.chips), deals=self.deal,
                                  reason=self.end_reason or "unfinished")

    # ----- what a seat sees ------------------------------------------------------------
    def view(self, seat: int) -> dict:
        t = CARD_TEXT
        acted = set(self.order[:self.turn_index])
        seats = []
        for s in range(self.players):
            hand, pub = self.hands[s], self.public[s]
            seats.append({
                "seat": s,
                "chips": self.chips[s],
                "spares": [t[c] for c in self.spares[s]],
                "known": [t[c] if pub[i] else "" for i, c in enumerate(hand)],
                "hand_size": len(hand),
                "out": self.out[s],
                "acted": s in acted,
            })
        drawing = self.phase == PHASE_DRAW
        to_act = self.to_act()
        return {
            "seat": seat,
            "players": self.players,
            "hand": [t[c] for c in self.hands[seat]],
            "seats": seats,
            "dealer": self.dealer,
            "deal": self.deal,
            "max_deals": self.max_deals,
            "round": self.round,
            "leader": self.leader,
            "turn": to_act[0] if to_act else -1,
            "phase": self.phase,
            "plays": _plays_json(self.plays),
            "highest": self.best,
            "still_to_act": list(self.order[self.turn_index + 1:]) if self.phase == PHASE_PLAY else [],
            "discard": [t[c] for c in self.discard],
            "draw_pile_size": len(self.pile),
            "draws_played": self.draws_played,
            "drawer": self.drawer if drawing else -1,
            "cards_to_draw": self.to_draw if drawing else 0,
            "drawn_card": t[self.pile[-1]] if drawing and seat == self.drawer else "",
            "last_deal_losers": list(self.last_deal_losers),
            "earlier_rounds": list(self.earlier_rounds),
        }

    def spectator_view(self) -> dict:
        """A view without its seat's own keys (``seat``, ``hand``, ``drawn_card``): the public
        part, under the same keys. The spares and the hand cards known to all (``seats[].known``:
        spares taken face up) stay."""
        v = self.view(0)
        for key in ("seat", "hand", "drawn_card"):
            del v[key]
        return v

    def state_json(self) -> dict:
        t = CARD_TEXT
        return {
            "hands": [[t[c] for c in h] for h in self.hands],
            "public": [list(p) for p in self.public],
            "spares": [[t[c] for c in s] for s in self.spares],
            "pile": [t[c] for c in self.pile],
            "discard": [t[c] for c in self.discard],
            "chips": list(self.chips),
            "out": list(self.out),
            "deal": self.deal,
            "round": self.round,
            "phase": self.phase,
            "leader": self.leader,
            "order": list(self.order),
            "turn_index": self.turn_index,
            "plays": [[p[0], KIND_NAME[p[1]], p[2], [t[c] for c in p[3]], p[4], list(p[5])] for p in self.plays],
            "best": self.best,
            "draws_played": self.draws_played,
            "stop_seat": self.stop_seat,
            "drawer": self.drawer,
            "to_draw": self.to_draw,
            "last_deal_losers": list(self.last_deal_losers),
            "game_losers": list(self.game_losers),
            "end_reason": self.end_reason,
        }

    # ----- wire forms and words --------------------------------------------------------
    @staticmethod
    def action_json(action) -> dict:
        """The action's wire form (proto UnsortedAction): a function of the action alone."""
        t = CARD_TEXT
        tag = action[0]
        if tag == PLAY:
            _, start, cards, kind, number, jokers, _f = action
            return {"play": {"position": start, "cards": [t[c] for c in cards],
                             "kind": KIND_NAME[kind], "number": number, "jokers": list(jokers)}}
        if tag == STOP:
            return {"stop": {"position": action[1], "card": t[action[2]]}}
        if tag == DRAW:
            return {"draw": {"position": action[1], "card": t[action[2]]}}
        if tag == SPARE:
            return {"take_spare": {"spare": action[1], "card": t[action[2]], "position": action[3]}}
        return {"put_drawn": {"card": t[action[1]], "position": action[2]}}

    @staticmethod
    def action_label(action) -> str:
        """The action in the players' words: a function of the action alone."""
        tag = action[0]
        if tag == PLAY:
            _, start, cards, kind, number, jokers, flag = action
            return play_label(cards, kind, number, jokers, start, flag)
        if tag in (STOP, DRAW):
            word = "Stop" if tag == STOP else "Draw"
            return f"{word} {CARD_TEXT[action[2]]}" if action[3] else word
        if tag == SPARE:
            return f"take spare {CARD_TEXT[action[2]]} to position {action[3]}"
        return f"put drawn {CARD_TEXT[action[1]]} at position {action[2]}"

    def event_text(self, data: dict) -> str:
        ty = data.get("type")
        s = data.get("seat")
        if ty == "deal":
            return f"deal {data['deal']}: seat {s} gets {' '.join(data['hand'])}"
        if ty == "new deal":
            sp = "; ".join(f"seat {x['seat']} {' '.join(x['cards'])}" for x in data["spares"])
            return (f"deal {data['deal']}: {data['hand_size']} cards each; spares: {sp}; "
                    f"draw pile {data['draw_pile_size']}; seat {data['leader']} leads")
        if ty == "play":
            jok = f" (joker as {', '.join(rank_text(j) for j in data['jokers'])})" if data["jokers"] else ""
            return (f"seat {s} plays {combination_words(KIND_OF_NAME[data['kind']], data['number'])}: "
                    f"{' '.join(data['cards'])}{jok} from position {data['position']}, "
                    f"{_cards_left(data['cards_left'])}")
        if ty in ("stop", "draw"):
            return (f"seat {s} plays {ty.capitalize()} {data['card']} from position {data['position']}, "
                    f"{_cards_left(data['cards_left'])}")
        if ty == "take spare":
            return f"seat {s} takes spare {data['card']} to position {data['position']}"
        if ty == "cannot act":
            return f"seat {s} cannot beat and has no spare"
        if ty == "round won":
            return f"seat {s} wins round {data['round']}"
        if ty == "draws":
            return f"seat {s} draws {data['count']} cards"
        if ty == "put drawn":
            card = data["card"] or "a card"
            return f"seat {s} puts drawn {card} at position {data['position']}"
        if ty == "out of deal":
            return f"seat {s} is out of the deal"
        if ty == "lead":
            return f"seat {s} leads round {data['round']}"
        if ty == "deal lost":
            return f"deal {data['deal']} lost by seat(s) {', '.join(map(str, data['seats']))} ({data['reason']})"
        if ty == "hand in chip":
            return f"seat {s} hands in a chip, {data['chips']} left"
        if ty == "game over":
            if data.get("reason"):
                return f"game over: {data['reason']}"
            return (f"game over: seat(s) {', '.join(map(str, data['losers']))} lose, "
                    f"seat(s) {', '.join(map(str, data['winners']))} win")
        return super().event_text(data)

    # ----- copies and determinization --------------------------------------------------
    def copy(self) -> "Unsorted":
        new = object.__new__(Unsorted)
        d = self.__dict__.copy()
        new.__dict__ = d
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        d["rng"] = rng
        d["options"] = dict(self.options)
        d["chips"] = list(self.chips)
        d["hands"] = [list(h) for h in self.hands]
        d["public"] = [list(p) for p in self.public]
        d["spares"] = [list(s) for s in self.spares]
        d["out"] = list(self.out)
        d["pile"] = list(self.pile)
        d["discard"] = list(self.discard)
        d["earlier_rounds"] = list(self.earlier_rounds)
        d["order"] = list(self.order)
        d["plays"] = list(self.plays)
        d["last_deal_losers"] = list(self.last_deal_losers)
        d["game_losers"] = list(self.game_losers)
        d["_opening"] = list(self._opening)
        d["_cache"] = None
        return new

    def resample_hidden(self, seat: int, rng: random.Random) -> "Unsorted":
        """Re-deal what ``seat`` cannot know: the unknown cards of other hands and the draw pile
        (the card a drawing seat is placing stays, if ``seat`` is that drawer)."""
        g = self.copy()
        keep_top = g.phase == PHASE_DRAW and g.drawer == seat
        pool: list[int] = []
        for s in range(g.players):
            if s == seat:
                continue
            for i, c in enumerate(g.hands[s]):
                if not g.public[s][i]:
                    pool.append(c)
        pile_free = len(g.pile) - (1 if keep_top else 0)
        pool.extend(g.pile[:pile_free])
        rng.shuffle(pool)
        it = iter(pool)
        for s in range(g.players):
            if s == seat:
                continue
            h, pub = g.hands[s], g.public[s]
            for i in range(len(h)):
                if not pub[i]:
                    h[i] = next(it)
        for i in range(pile_free):
            g.pile[i] = next(it)
        # future deals are unknown too
        g.rng = random.Random(rng.getrandbits(64))
        return g


GAME = Unsorted


def _plays_json(plays: list[tuple]) -> list[dict]:
    """A round's plays as the view lists them (proto UnsortedPlay)."""
    t = CARD_TEXT
    return [{"seat": p[0], "kind": KIND_NAME[p[1]], "number": p[2], "cards": [t[c] for c in p[3]],
             "position": p[4], "jokers": list(p[5])} for p in plays]


def _cards_left(n: int) -> str:
    return "no cards left" if n == 0 else f"{n} card left" if n == 1 else f"{n} cards left"
