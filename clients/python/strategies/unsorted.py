"""A heuristic for Unsorted: keep the hand easy to empty, shed cards, save the spares.

It reads only the view and the actions' JSON (proto UnsortedView / UnsortedAction), so it plays
in-process through ``cardarena.server.match.StrategyBot`` and over gRPC alike.

The measure of a hand is its *cost*: the fewest plays that empty it if its cards stayed where
they sit (a left-to-right split into blocks of 1–3 adjacent cards that are combinations, jokers
wild), where a Stop card counts 0.5 of a play (it can always be played and wins the round) and a
Draw card 0.7. Lower is better. Every action is scored by the cost of the hand it leaves, plus:

* taking a spare: a life spent, worth more the fewer spares are left (1.2 with two, 2.5 with the
  last one);
* winning a round in which Draw cards fell means drawing 3 cards each: a play that would be the
  round's highest is charged for that, fully when nobody acts after it, half otherwise; a Stop
  always wins, so it is charged in full;
* playing out (an empty hand) is worth a large bonus, and so is a Stop whose round win lets this
  seat lead a hand it can empty at once;
* leading: a stronger lead is slightly preferred (others must spend spares to pass it), and a
  Draw lead is avoided unless it is the last card (nobody may answer, and then the leader draws).

A drawn card goes where it leaves the cheapest hand.
"""
from __future__ import annotations

from ..cards import parse

STOP_COST = 0.5
DRAW_COST = 0.7
_KINDS = {"single": 1, "two-run": 2, "pair": 3, "three-run": 4, "three of a kind": 5}


def _value(text: str) -> int:
    """1–12 for number cards, 0 for a joker, -1 for a Stop card, -2 for a Draw card."""
    card = parse(text)
    if card.is_joker:
        return 0
    if card.rank == 13:
        return -1 if card.suit in "♠♣" else -2
    return card.rank


def _is_combination(block: list[int]) -> bool:
    """Can these 1–3 adjacent number cards / jokers be played together?"""
    if len(block) == 1:
        return True
    naturals = [v for v in block if v > 0]
    if not naturals:
        return False
    if len(set(naturals)) == 1:
        return True  # pair / three of a kind (jokers fill in)
    if len(set(naturals)) != len(naturals):
        return False
    return max(naturals) - min(naturals) < len(block)  # a run, jokers fill the gaps


def hand_cost(values: list[int]) -> float:
    """The fewest plays that empty the hand as it sits (Stop 0.5, Draw 0.7)."""
    n = len(values)
    best = [0.0] + [1e9] * n
    for i in range(1, n + 1):
        v = values[i - 1]
        if v < 0:
            best[i] = best[i - 1] + (STOP_COST if v == -1 else DRAW_COST)
            continue
        for size in (1, 2, 3):
            if size > i:
                break
            block = values[i - size:i]
            if any(x < 0 for x in block):
                break
            if _is_combination(block):
                c = best[i - size] + 1
                if c < best[i]:
                    best[i] = c
    return best[n]


def _best_insert(values: list[int], v: int) -> float:
    return min(hand_cost(values[:p] + [v] + values[p:]) for p in range(len(values) + 1))


def choose(view: dict, actions: list[dict]) -> int:
    hand = [_value(t) for t in view["hand"]]
    seat = view["seat"]
    me = view["seats"][seat]
    draws = view["draws_played"]
    leading = view["turn"] == view["leader"] and not view["plays"]
    last_to_act = not view["still_to_act"]
    spares_left = len(me["spares"])
    best_score, best_index = None, 0
    for i, a in enumerate(actions):
        if "put_drawn" in a:
            p = a["put_drawn"]
            v = _value(p["card"])
            pos = p["position"]
            score = hand_cost(hand[:pos] + [v] + hand[pos:])
        elif "take_spare" in a:
            t = a["take_spare"]
            pos = t["position"]
            after = hand[:pos] + [_value(t["card"])] + hand[pos:]
            score = hand_cost(after) + (1.2 if spares_left >= 2 else 2.5)
        elif "play" in a:
            p = a["play"]
            pos, size = p["position"], len(p["cards"])
            after = hand[:pos] + hand[pos + size:]
            score = hand_cost(after)
            strength = _KINDS[p["kind"]] * 16 + p["number"]
            if leading:
                score -= strength / 400
            elif draws:
                score += 3 * draws * (0.9 if last_to_act else 0.45)
            if not after and not draws:
                score -= 10
        else:  # stop or draw
            is_stop = "stop" in a
            pos = a["stop" if is_stop else "draw"]["position"]
            after = hand[:pos] + hand[pos + 1:]
            score = hand_cost(after)
            if is_stop:
                score += 3 * draws + 0.3
                if after and hand_cost(after) <= 1 and not draws:
                    score -= 5  # win the round, then lead the rest of the hand
                if not after and not draws:
                    score -= 10
            else:
                if leading:
                    score += 0 if not after else 3
                score += 0.2
        if best_score is None or score < best_score:
            best_score, best_index = score, i
    return best_index
