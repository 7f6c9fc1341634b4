"""SCOUT: two-valued cards, a hand that is never sorted, and a whole-hand flip before each round.

The rules engine of ``scout``, Oink Games' SCOUT (Kei Kajino) for 3–5 players, rules text
``server/games/rules/scout.en.txt`` (shared/rules/scout.en.txt). The text lost the body of its
section "Show, Scout, or do both"; RULINGS.md rebuilds it (O1–O7), O3 plays shows, strength,
scouting and Scout & Show exactly as Scouting (S2–S6), and the packaged text prints that section
rebuilt from O3, marked so. That play is the core shared with Scouting, in
:mod:`.show_scout`; this module adds the two-valued cards, the deck and the flip.

The game
========
Every card carries two different numbers 1–10, one at each end; a card is written ``"3/7"``: its
active value (the one that counts now) first, the other second. The deck is one card for every
pair of distinct numbers, 45 cards (O1): 3 players remove the 9 cards with a 10 (36 cards, 12
each); 4 players remove the 9/10 card (44, 11 each); 5 players use all 45 (9 each). Each round the
deck is shuffled in order and orientation and dealt one at a time; hands keep the dealt order.

Before the first turn of each round every seat decides, sealed and at the same time, whether to
turn its whole hand round (O2): the values swap on every card, the order of the positions is kept.
Then play as in Scouting (O3, S2–S6):

* **Show** adjacent cards: a set (all equal, any number) or a run (consecutive rising or falling
  as they sit, 4-5-6 or 6-5-4, never 5-4-6; no 10–1 wrap). More cards beat fewer; same count: a set
  beats a run; otherwise the higher lowest value; equal does not beat. The beaten show goes face
  down to the shower (1 point a card); an empty table takes any show.
* **Scout** one card from either end of the active show into any position 0 … len(hand), turned
  round or not as the seat chooses (O3: only the scouted card may turn; older hand cards never
  do); the show's owner gets a Scout chip (1 point). Not on an empty table; scouting the last card
  empties it, and its owner stays owner for the round-end check.
* **Scout & Show**, once per round: two decisions of the same seat in one turn — first a scout
  (only those after which a beating show exists are offered), then a show that beats what remains.

The round ends when a hand is empty after a show, or when play would return to the show's owner
because everybody else only scouted since. Scoring (O4): +1 per captured card, +1 per Scout chip,
−1 per card in hand, except the owner whose show ended the round because everybody else scouted;
negative scores are possible. Rounds = players; round 1 starts at seat 0 and the start moves left
(O5); the highest total wins, ties share a place. Cap (O6): 300 turns in a round (a Scout & Show
is one turn, counted at its show, so the cap never falls between its scout and its show; the
flip is no turn), then the round is scored as it stands without the exemption. Two-player rules
are out of scope (O7): 3–5 players.

Rulings applied
===============
O1 the deck per player count, shuffled order and orientation · O2 the sealed simultaneous flip,
``to_act()`` = every seat · O3 play as S2–S6, a scouted card may be turned before it is inserted ·
O4 scoring and the exemption · O5 rounds, start seat, ties · O6 cap 300 and defaults · O7 3–5
players only. House details (RULINGS is silent): a one-card show has one end, offered as "left";
a scouted card is public with the way up it was inserted, and its position shifts as cards around
it move; who turned their hand is announced after the flip (everybody sees a hand being turned
round). One departure from S8's words, which O6 takes over: on an empty table the default shows
the lowest single, not the leftmost (see Defaults below).

Decisions and actions
=====================
Phase ``flip``: every seat at once, ``(3, 0)`` keep / ``(3, 1)`` turn, wire ``{"flip":
{"turn_hand": false|true}}``, labels ``keep hand`` / ``turn hand``. Phase ``play``: one seat
(``turn``); the wire form is ``ScoutAction`` (proto/cardarena/v1/scout.proto), a oneof:

====================================  ==========================================  ==========================
action (``legal_actions``)            wire (``action_json``)                      label
====================================  ==========================================  ==========================
``(0, start, count, cards)``          ``{"show": {"start", "count", "cards",      ``show 4-5-6 from position
a show that beats the table            "values", "kind"}}``, kind single/set/run  2``, ``show set of 7s (3)
                                                                                  from position 0``
``(1, end, turned, position, card)``  ``{"scout": {"end": "left"|"right",         ``scout left 3/8 to
scout an end card, maybe turned        "card": "3/7", "turned", "value" (its      position 2``, ``scout right
                                       value in the hand), "position"}}``         3/7 turned to 7 at position
                                                                                  0``
``(2, end, turned, position, card)``  ``{"scout_and_show": {...same...}}``        ``Scout & Show: scout left
the scout opening a Scout & Show                                                  5/2 to position 1``
``(3, turn)`` the flip                ``{"flip": {"turn_hand": bool}}``           ``turn hand``/``keep hand``
====================================  ==========================================  ==========================

Canonical order: shows by start then length; scouts by end (left first), unturned before turned,
position 0 … len(hand); then the Scout & Show scouts in the same order. Defaults (O6, as S8): flip
→ keep the hand; a turn → the weakest show that beats the table, of equal ones the first listed
(the second half of a Scout & Show always has one); with none, scout the left end, not turned, to
position 0. On an empty table every show beats it, so the default shows the lowest single (the
leftmost of equal ones), not S8's "leftmost single", with which all-default rounds still circled
to the cap (why: in :mod:`.show_scout`).

The view
========
``view(seat)`` is the JSON of ``ScoutView``: the same keys as ``ScoutingView`` (see
:mod:`.scouting`) plus ``hand_other_values``. In short: seat, players, phase (``"flip"``,
``"play"``, ``"over"``), round, rounds, start_seat, turn (-1 during the flip), hand (``"3/7"``
texts in hand order), hand_values (the active values), hand_other_values (the values after a
turn), table ``{"cards", "values", "owner", "kind"}``, scout_and_show_in_progress, seats (per seat
hand_size, known / known_values: scouted cards at their current positions, "?" / -1 elsewhere,
captured, scout_chips, scout_and_show_used, turned_hand, score, round_scores), shows (this round's
shows), round_actions (turns so far this round; a Scout & Show is one), action_cap (300). During
the flip a seat sees its own hand and the scores; the table is empty and nothing else of this
round is known yet.

Events: as Scouting, plus ``hands_turned`` (public, after the flip: which seats turned) and
``hand`` (private: the seat's hand after turning it).

Options: none.

Version history: 1 — the first complete engine.
"""
from __future__ import annotations

from .show_scout import ShowScoutGame

HAND_SIZES = {3: 12, 4: 11, 5: 9}


def card(active: int, other: int) -> int:
    """The code of a card lying with ``active`` up: active × 16 + other."""
    return active * 16 + other


#: code → active value, code → text "a/o", code → the same card turned round
_CODES = range(11 * 16)
VALUE = tuple(c >> 4 for c in _CODES)
TEXT = tuple(f"{c >> 4}/{c & 15}" for c in _CODES)
TURN = tuple((c & 15) * 16 + (c >> 4) for c in _CODES)


def deck_for(players: int) -> list[int]:
    """O1: one card per pair of distinct numbers 1–10 (lower number up), minus the cards with a 10
    (3 players) or the 9/10 card (4 players)."""
    cards = [card(a, b) for a in range(1, 11) for b in range(a + 1, 11)]
    if players == 3:
        return [c for c in cards if (c & 15) != 10]
    if players == 4:
        return [c for c in cards if c != card(9, 10)]
    return cards


class Scout(ShowScoutGame):
    id = "scout"
    title = "SCOUT"
    summary = ("Two-valued cards in a hand you may never sort: turn your whole hand or not, then "
               "show sets and runs that beat the table, or scout a table card into your hand.")
    rules_texts = {"en": "scout.en.txt"}
    default_policy = ("flip: keep the hand; a turn: the weakest show that beats the table (an empty "
                      "table: the lowest single), else scout the left end, not turned, to position "
                      "0 (O6)")
    proto_module = "scout"
    proto_name = "Scout"

    VALUE = VALUE
    TEXT = TEXT
    TURN = TURN
    TURN_CAP = 300
    HAS_FLIP = True

    def deck(self) -> list[int]:
        return deck_for(self.players)

    def hand_size(self) -> int:
        return HAND_SIZES[self.players]

    def canonical(self, c: int) -> int:
        return c if (c >> 4) < (c & 15) else TURN[c]

    @classmethod
    def card_label(cls, c: int) -> str:
        return TEXT[c]


GAME = Scout
