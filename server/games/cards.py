"""Card primitives shared by the games that use a standard deck.

A card is a small int, its *code*, so that hands, rows and decks are plain lists of ints and the
engines stay fast:

* standard cards: ``code = (rank - 1) * 4 + suit``, rank 1 (Ace) … 13 (King), suit 0 ♣, 1 ♦,
  2 ♥, 3 ♠. The codes therefore follow Sixth Card's ladder (A♣ = 0 … K♠ = 51): rank first, then
  ♣ < ♦ < ♥ < ♠.
* the joker: ``JOKER = 52``.

Several decks shuffled together give identical codes for identical cards (Sixth Card's twins).
Text form, used in every view, event and label: ``"A♣"``, ``"10♦"``, ``"Q♠"``, ``"Jo"``;
:func:`parse_card` also takes ASCII (``"QS"``, ``"10C"``, ``"TD"``, ``"joker"``).

All chance comes from one ``random.Random`` seeded by the match (:func:`new_rng`); no global
``random`` is used anywhere in the rules.
"""
from __future__ import annotations

import random

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
JOKER = 52

_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}


def make_card(rank: int, suit: int) -> int:
    """The code of a standard card: rank 1–13, suit 0–3 (♣ ♦ ♥ ♠)."""
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise ValueError(f"no such card: rank {rank}, suit {suit}")
    return (rank - 1) * 4 + suit


def rank_of(card: int) -> int:
    """1 (Ace) … 13 (King); 0 for the joker."""
    return 0 if card == JOKER else card // 4 + 1


def suit_of(card: int) -> int:
    """0 ♣, 1 ♦, 2 ♥, 3 ♠; -1 for the joker."""
    return -1 if card == JOKER else card % 4


def rank_text(rank: int) -> str:
    return _RANK_TEXT.get(rank, str(rank))


CARD_TEXT: tuple[str, ...] = tuple(
    [rank_text(c // 4 + 1) + SUIT_SYMBOLS[c % 4] for c in range(52)] + ["Jo"]
)


def card_text(card: int) -> str:
    return CARD_TEXT[card]


def cards_text(cards) -> list[str]:
    """The text form of a sequence of card codes, as a new list."""
    t = CARD_TEXT
    return [t[c] for c in cards]


_SUIT_PARSE = {s: i for i, s in enumerate(SUITS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}
_RANK_PARSE = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10} | {str(n): n for n in range(1, 14)}


def parse_card(text: str) -> int:
    """Parse ``"Q♠"``, ``"QS"``, ``"10♣"``, ``"TC"`` or ``"Jo"``/``"joker"`` into a card code."""
    t = text.strip()
    if t.lower() in ("jo", "joker", "jk"):
        return JOKER
    if len(t) >= 2 and t[-1].upper() in _SUIT_PARSE and t[:-1].upper() in _RANK_PARSE:
        return make_card(_RANK_PARSE[t[:-1].upper()], _SUIT_PARSE[t[-1].upper()])
    raise ValueError(f"not a card: {text!r} (write it like Q♠, QS, 10♣ or Jo)")


def parse_cards(text: str) -> list[int]:
    """Parse a space-separated list of cards."""
    return [parse_card(t) for t in text.split()]


def standard_deck(decks: int = 1, jokers_per_deck: int = 0) -> list[int]:
    """``decks`` 52-card decks (each with ``jokers_per_deck`` jokers), in code order."""
    one = list(range(52)) + [JOKER] * jokers_per_deck
    return one * decks


def new_rng(seed: int) -> random.Random:
    """The one generator of a match; everything random in a game is drawn from it."""
    return random.Random(seed)
