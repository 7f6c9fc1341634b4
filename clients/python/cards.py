"""Reading the cards in a view: every card is sent as text, "Q♠", "10♦", "A♣" or "Jo" (joker).

>>> parse("10♦")
Card(rank=10, suit='♦')
>>> parse("Q♠").rank, parse("Jo").is_joker
(12, True)
"""
from __future__ import annotations

from typing import NamedTuple

SUITS = "♣♦♥♠"  # lowest to highest in Sixth Card's ladder
_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


class Card(NamedTuple):
    rank: int  # 1 (Ace) … 13 (King); 0 for a joker
    suit: str  # one of ♣ ♦ ♥ ♠; "" for a joker

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def ladder(self) -> int:
        """Sixth Card's ladder number: A♣ = 1 … K♠ = 52 (0 for a joker)."""
        return 0 if self.rank == 0 else (self.rank - 1) * 4 + SUITS.index(self.suit) + 1

    def __str__(self) -> str:
        if self.rank == 0:
            return "Jo"
        return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(self.rank, str(self.rank)) + self.suit


def parse(text: str) -> Card:
    """The rank and suit of a card's text form."""
    if text == "Jo":
        return Card(0, "")
    rank, suit = text[:-1], text[-1]
    if suit not in SUITS or not (rank in _RANKS or rank.isdigit()):
        raise ValueError(f"not a card: {text!r}")
    return Card(_RANKS.get(rank) or int(rank), suit)
