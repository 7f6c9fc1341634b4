"""Scouting: SCOUT on a standard deck A–Q, with a hand that is never sorted.

The rules engine of ``scouting``, the "Scouting (after SCOUT)" variant at the end of the Unsorted
rules text (``server/games/rules/unsorted.en.txt``, in German ``unsorted.de.txt``; the originals
in shared/rules/); :meth:`Scouting.rules_text` gives the variant alone, in either language, for
``cardarena rules scouting``. Where the text is silent the rulings S1–S8 of shared/RULINGS.md
decide. The play itself (shows, strength, scouting, Scout & Show, round ends, scoring, the cap)
is the core shared with SCOUT, in :mod:`.show_scout`; this module adds the cards and the deal.

The game
========
3–5 players. Each round 48 cards A–Q are shuffled and dealt one at a time, 12 / 11 / 9 to each
of 3 / 4 / 5 seats; the rest stays out unseen (S1: values A = 1 … J = 11, Q = 12; suits do not
matter). A hand is held in the order dealt and never sorted. Seat 0 starts round 1, the start
moves left each round, and there are as many rounds as players (S7). On a turn a seat does one of:

* **Show** adjacent cards of its hand: any number of equal cards (a set) or consecutive cards
  rising or falling as they sit (a run: 4-5-6 or 6-5-4, never 5-4-6; no Q–A wrap) (S2). It must
  beat the active show: more cards win; with the same count a set beats a run; otherwise the
  higher lowest card wins; equal does not beat (S3). The beaten show goes face down to the
  shower, 1 point a card, and the new show is the active show; an empty table takes any show (S4).
* **Scout** one card from either end of the active show into any position of its hand (0 …
  len(hand)); the show's owner gets a Scout chip, 1 point. Not possible on an empty table.
  Scouting the last card empties the table; its owner stays owner for the round-end check (S4).
* **Scout & Show**, once per round: a scout and then, in the same turn, a show that beats what
  remains of the active show (S5). It is two decisions of the same seat: the first offers only
  the scouts after which a beating show exists, the second only the beating shows.

The round ends when a hand is empty after a show, or when play would return to the show's owner
because everybody else only scouted since (S6). Each seat then scores +1 per captured card, +1
per Scout chip, −1 per card left in its hand — except that owner in the second case. The active
show scores nobody. Highest total after the last round wins; ties share a place (S7). Cap (S8):
after 200 turns in a round (a Scout & Show is one turn, counted at its show, so the cap never
falls between its scout and its show) the round is scored as it stands, without the owner's
exemption.

Rulings applied
===============
S1 the deck and the deal, the rest out unseen · S2 what a show is · S3 strength ·
S4 show and scout, scouting the last card · S5 Scout & Show as two decisions · S6 the round end
and its exemption · S7 rounds, starting seat, ties · S8 the cap and the defaults.
House details (RULINGS is silent): a one-card show has one end, offered as "left"; scouted cards
are public (their face and their position in the new hand, shifting as cards around them move).
One departure from S8's words: on an empty table the default shows the lowest single, not the
leftmost (see Defaults below).

Decisions and actions
=====================
One seat acts at a time (``turn``). Actions are tuples; the wire form is ``ScoutingAction``
(proto/cardarena/v1/scout.proto), a oneof:

==================================  ==========================================  ============================
action (``legal_actions``)          wire (``action_json``)                      label
==================================  ==========================================  ============================
``(0, start, count, cards)``        ``{"show": {"start", "count", "cards",      ``show 4-5-6 from position 2``,
a show that beats the table          "values", "kind"}}``, kind single/set/run  ``show set of 7s (3) from
                                                                                position 0``, ``show 9 from
                                                                                position 4``
``(1, end, False, position, card)``  ``{"scout": {"end": "left"|"right",        ``scout left 8 to position 2``
scout an end card                    "card", "turned": false, "value",
                                     "position"}}``
``(2, end, False, position, card)``  ``{"scout_and_show": {...same...}}``       ``Scout & Show: scout left 5
the scout opening a Scout & Show                                                to position 1``
==================================  ==========================================  ============================

Canonical order: shows by start position then length (only those that beat the table), then
scouts (left end first, positions 0 … len(hand)), then the Scout & Show scouts in the same order.
During the second half of a Scout & Show only shows are listed. Labels show card values (suits do
not matter) and the show's start position, so labels are unique within a decision.

Defaults (S8): the weakest show that beats the table, of equal ones the first listed (the second
half of a Scout & Show always has one); with none, scout the left end to position 0. On an empty
table every show beats it, so the default shows the lowest single (the leftmost of equal ones),
not S8's "leftmost single", with which all-default rounds still circled to the cap (why: in
:mod:`.show_scout`).

The view
========
``view(seat)`` is the JSON of ``ScoutingView``:

==========================  =========================================================================
key                         value
==========================  =========================================================================
seat, players               this seat; the number of seats
phase                       ``"play"`` or ``"over"``
round, rounds, start_seat   the round (from 1), how many there are, the seat that started this round
turn                        the seat to act (-1 when over)
hand, hand_values           this seat's cards in hand order ("Q♠") and their values (Q = 12)
table                       the active show ``{"cards", "values", "owner", "kind"}``; owner -1 before
                            the first show; after its last card was scouted: no cards, owner kept
scout_and_show_in_progress  true between the two halves of a Scout & Show
seats                       per seat: hand_size; known (the hand, "?" where the face is not public:
                            scouted cards at their current positions) and known_values (-1 unknown);
                            captured (cards), scout_chips, scout_and_show_used, turned_hand (always
                            false here), score (total of finished rounds), round_scores
shows                       every show of this round in order ``{"seat", "cards", "values",
                            "scout_and_show"}``
round_actions, action_cap   turns so far this round (a Scout & Show is one) and the cap (200)
==========================  =========================================================================

Events (``data["type"]``): ``round_start`` (round, start_seat, hand_sizes), ``deal`` (private: the
seat's hand), ``show`` (seat, start, count, cards, values, kind, beaten, scout_and_show),
``scout`` (seat, end, card, turned, value, position, owner, table_left, scout_and_show),
``round_end`` (round, reason ``out`` / ``scouted`` / ``cap``, exempt seat or -1, hand_sizes,
captured, chips, round_scores, totals), ``game_over`` (totals, places).

Options: none.

Version history: 1 — the first complete engine.
"""
from __future__ import annotations

from .cards import CARD_TEXT
from .show_scout import ShowScoutGame

#: S1: the 48 cards A–Q are codes 0…47 (rank first); the value is the rank.
DECK = tuple(range(48))
HAND_SIZES = {3: 12, 4: 11, 5: 9}
#: per language: the heading printed above the variant, and the words its bullet starts with
VARIANT = {
    "en": ("Scouting (the variant at the end of the Unsorted rules)", "• Scouting (after SCOUT):"),
    "de": ("Scouting (die Variante am Ende der Regeln von „Unsortiert“)", "• Scouting (nach Scout):"),
}


class Scouting(ShowScoutGame):
    id = "scouting"
    title = "Scouting"
    summary = ("SCOUT on a standard deck A–Q: never sort your hand; show adjacent sets or runs "
               "that beat the table, or scout a card from the table into your hand.")
    rules_texts = {"en": "unsorted.en.txt", "de": "unsorted.de.txt"}
    default_policy = ("the weakest show that beats the table (an empty table: the lowest single), "
                      "else scout the left end to position 0 (S8)")
    proto_module = "scout"
    proto_name = "Scouting"

    VALUE = tuple(c // 4 + 1 for c in range(52))
    TEXT = CARD_TEXT
    TURN = None
    TURN_CAP = 200

    def deck(self) -> list[int]:
        return list(DECK)

    def hand_size(self) -> int:
        return HAND_SIZES[self.players]

    @classmethod
    def rules_text(cls, lang: str = "en") -> str:
        """Only the Scouting variant: the end of the Unsorted text, from its own bullet on."""
        text = super().rules_text(lang)
        title, start = VARIANT[lang]
        return f"{title}\n\n{text[text.index(start):]}"


GAME = Scouting
