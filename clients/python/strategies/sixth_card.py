"""A heuristic for Sixth Card: play the card least likely to become a row's sixth card.

It reads only the view and the actions' JSON (proto SixthCardView / SixthCardAction), so it
plays in-process through ``cardarena.server.match.StrategyBot`` and over gRPC alike.

The card choice: every card not in this hand, not in a row and not in a penalty pile is
*unseen* (with ``exact_cards`` there are no unused cards, so this count is exact). Each other
seat plays one card a turn; as far as this seat knows, it is a random unseen card. For every
card in hand the strategy finds the row it would join (the rules' target row), and counts the
unseen cards that would land in that row before it (those between the row's end and the card).
With those odds it computes the expected penalty: the chance that the row holds five cards
when the card arrives, times the points it would hold then. A card below every row costs the
cheapest row. The card with the least expected penalty is played; among near-equals, the one
that fits most snugly.

The row choice (too low, or twin rows): the row with the fewest penalty points, then the
fewest cards, then the lowest index — taking the cheapest row is what the tips advise.
"""
from __future__ import annotations

from math import comb

from ..cards import parse

ROW_LIMIT = 5
_MEAN_POINTS = 79 / 52  # a card's penalty points on average (C1: 79 a deck)


def _code(text: str) -> int:
    """The ladder as 0 … 51 (A♣ = 0, K♠ = 51)."""
    return parse(text).ladder - 1


def choose(view: dict, actions: list[dict]) -> int:
    if "row" in actions[0]:
        return _choose_row(view, actions)
    return _choose_card(view, actions)


def _choose_row(view: dict, actions: list[dict]) -> int:
    rows = view["rows"]
    return min(range(len(actions)),
               key=lambda k: (rows[actions[k]["row"]]["points"],
                              len(rows[actions[k]["row"]]["cards"]), actions[k]["row"]))


def _choose_card(view: dict, actions: list[dict]) -> int:
    rows = [[_code(c) for c in row["cards"]] for row in view["rows"]]
    row_points = [row["points"] for row in view["rows"]]
    hand = [_code(c) for c in view["hand"]]

    # unseen cards: the deck less this hand, the rows and the penalty piles
    if view["exact_cards"]:  # the lowest 10 × players + 4 cards, once each
        used = 10 * view["players"] + 4
        unseen = [1 if c < used else 0 for c in range(52)]
    else:
        unseen = [view["decks"]] * 52
    for c in hand:
        unseen[c] -= 1
    for row in rows:
        for c in row:
            unseen[c] -= 1
    for seat in view["seats"]:
        for t in seat["pile"]:
            unseen[_code(t)] -= 1
    total_unseen = max(1, sum(unseen))
    opponents = view["players"] - 1
    cheapest = min(row_points)

    best, best_cost = 0, None
    for k, action in enumerate(actions):
        card = _code(action["play"])
        ends = [row[-1] for row in rows]
        below = [i for i, e in enumerate(ends) if e <= card]
        if not below:
            cost = cheapest + 0.5  # too low: the cheapest row, and a card that starts low
            gap = 0
        else:
            top = max(ends[i] for i in below)
            candidates = [i for i in below if ends[i] == top]
            target = min(candidates, key=lambda i: len(rows[i]))
            gap = card - top
            between = sum(unseen[top:card])  # a twin of the row's end lands first too
            cost = _expected_take(len(rows[target]), row_points[target],
                                  opponents, between / total_unseen)
        cost += 0.001 * gap
        if best_cost is None or cost < best_cost:
            best, best_cost = k, cost
    return best


def _expected_take(length: int, points: float, opponents: int, q: float) -> float:
    """Expected points taken by a card joining a row of ``length`` cards when each opponent's
    card lands there first with probability ``q``: binomial over how many do."""
    cost = 0.0
    for landed in range(opponents + 1):
        p = comb(opponents, landed) * q ** landed * (1 - q) ** (opponents - landed)
        if p < 1e-9:
            continue
        n, pts = length, float(points)
        for _ in range(landed):  # others' cards land one by one; a sixth one resets the row
            if n == ROW_LIMIT:
                n, pts = 1, _MEAN_POINTS
            else:
                n, pts = n + 1, pts + _MEAN_POINTS
        if n == ROW_LIMIT:
            cost += p * pts
    return cost
