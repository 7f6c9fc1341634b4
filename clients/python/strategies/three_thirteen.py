"""A heuristic for Three Thirteen: keep the hand that leaves the fewest points, go out at once.

It reads only the view and the actions' JSON (proto ThreeThirteenView / ThreeThirteenAction),
so it plays in-process through ``cardarena.server.match.StrategyBot`` and over gRPC alike.

* **Go out** whenever an action offers it (any of them: they all leave 0 points).
* **Discard** the card whose loss leaves the fewest *deadwood* points (the points a hand keeps
  after its best melds), never a wild card if anything else will do; among equals the highest.
* **Draw**: take the discard pile's top card when it is wild, or when taking it and then
  discarding lowers the deadwood; otherwise draw from the stock.

The deadwood is estimated by a small memoised search of its own (the referee's solver is
server code): wild-rank cards and jokers are always treated as wild; the lowest natural card is
left over, put in a set with other cards of its rank (one wild makes a pair a set), or starts a
run upward in its suit, gaps filled by wilds while they do not outnumber the naturals. Leftover
wilds are assumed to find a meld. It is an estimate — it never skips a card inside a run, and
it ignores lay-offs — but it is fast and close.
"""
from __future__ import annotations

from functools import lru_cache

from ..cards import SUITS, parse

JOKER = 52
_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _code(text: str) -> int:
    """A♣ = 0 … K♠ = 51 (rank first, then ♣ ♦ ♥ ♠), the joker 52."""
    card = parse(text)
    return JOKER if card.is_joker else (card.rank - 1) * 4 + SUITS.index(card.suit)


def _wild_rank(view: dict) -> int:
    text = view["wild_rank"]
    return _RANKS.get(text) or int(text)


def _points(code: int, joker_points: int) -> int:
    return joker_points if code == JOKER else code // 4 + 1


def _minus(cards: tuple, gone: list) -> tuple:
    rest = list(cards)
    for c in gone:
        rest.remove(c)
    return tuple(rest)


@lru_cache(maxsize=1 << 17)
def _dead(nat: tuple, wilds: int) -> int:
    """The fewest points the natural cards ``nat`` (sorted codes) leave, with ``wilds`` to use."""
    if not nat:
        return 0
    c, rest = nat[0], nat[1:]
    r, s = c // 4, c % 4
    best = r + 1 + _dead(rest, wilds)
    same = [x for x in rest if x // 4 == r]
    for k in range(1, len(same) + 1):          # a set: with 1 other card it needs a wild
        need = 1 if k == 1 else 0
        if need <= wilds:
            best = min(best, _dead(_minus(rest, same[:k]), wilds - need))
    cur, nats, used, pos = list(rest), 1, 0, r
    while pos < 12 and best:                    # a run upward, gaps and ends filled by wilds
        pos += 1
        nxt = pos * 4 + s
        if nxt in cur:
            cur.remove(nxt)
            nats += 1
        elif used < wilds and used < nats:
            used += 1
        else:
            break
        if nats + used >= 3 and used <= nats:
            best = min(best, _dead(tuple(cur), wilds - used))
    return best


def _deadwood(hand: list[int], wild_rank: int) -> int:
    nat = tuple(sorted(c for c in hand if c != JOKER and c // 4 + 1 != wild_rank))
    return _dead(nat, len(hand) - len(nat))


def choose(view: dict, actions: list[dict]) -> int:
    if "draw" in actions[0]:
        return _choose_draw(view, actions)
    for k, action in enumerate(actions):
        if "go_out" in action:
            return k
    return _choose_discard(view, actions)


def _choose_draw(view: dict, actions: list[dict]) -> int:
    take = next((k for k, a in enumerate(actions) if a.get("draw") == "discard_pile"), None)
    stock = next(k for k, a in enumerate(actions) if a.get("draw") == "stock")
    if take is None:
        return stock
    wild = _wild_rank(view)
    top = _code(view["discard_pile"][-1])
    if top == JOKER or top // 4 + 1 == wild:
        return take
    hand = [_code(t) for t in view["hand"]]
    now = _deadwood(hand, wild)
    after = min((_deadwood(_minus(tuple(hand) + (top,), [x]), wild)
                 for x in set(hand) if x != top), default=now)
    return take if after < now else stock


def _choose_discard(view: dict, actions: list[dict]) -> int:
    wild = _wild_rank(view)
    jp = view["joker_points"]
    hand = tuple(_code(t) for t in view["hand"])

    def cost(k: int):
        x = _code(actions[k]["discard"])
        is_wild = x == JOKER or x // 4 + 1 == wild
        return (_deadwood(list(_minus(hand, [x])), wild), is_wild, -_points(x, jp), -x)

    return min(range(len(actions)), key=cost)
