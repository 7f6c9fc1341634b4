"""A heuristic for SCOUT (``scout``) and Scouting (``scouting``): both send the same action shapes.

It reads only the view and the actions' JSON (the values are sent as numbers, so no card text is
parsed). Every action is scored by what it gains now and by how easily the hand that remains can
be shed, measured as the fewest shows that would cover it (adjacent sets and runs, as dealt):

* a show: the cards it captures, plus a bonus for a long show (hard to beat: the others must scout
  and pay its owner chips), plus the remaining hand's worth; emptying the hand ends the round and
  is taken at once;
* a scout: the remaining hand's worth with the new card in it, less the chip it gives away; if
  play would then return to the show's owner the round ends at once, so only what the hand costs
  now counts;
* the scout of a Scout & Show: the best beating show it makes possible, less the chip and the
  marker it uses up;
* SCOUT's flip: turn the hand if the turned hand is worth more.
"""
from __future__ import annotations

#: weights of a hand's worth: each show still needed, each card still held
SHOW_NEEDED = 0.7
CARD_HELD = 0.5
#: a show of n cards is worth this much more per card beyond the first (hard to beat)
LONG_SHOW = 0.4
CHIP = 0.5          # a Scout chip handed to the show's owner
MARKER = 1.0        # the Scout & Show marker, usable once a round
GO_OUT = 6.0        # emptying the hand ends the round: everybody else pays for their cards


def _is_show(vals) -> bool:
    if len(vals) < 2:
        return len(vals) == 1
    d = vals[1] - vals[0]
    if d not in (-1, 0, 1):
        return False
    return all(vals[i + 1] - vals[i] == d for i in range(len(vals) - 1))


def _key(vals) -> int:
    """Strength: count, then set over run, then the lowest value; 0 for no cards."""
    if not vals:
        return 0
    n = len(vals)
    is_set = n == 1 or vals[0] == vals[1]
    return n * 1000 + (100 if is_set else 0) + min(vals)


def shows_needed(vals) -> int:
    """The fewest adjacent shows that cover the hand (a dynamic programme over positions)."""
    n = len(vals)
    best = [0] + [n + 1] * n
    for j in range(1, n + 1):
        for i in range(j - 1, -1, -1):
            if not _is_show(vals[i:j]):
                break
            if best[i] + 1 < best[j]:
                best[j] = best[i] + 1
    return best[n]


def worth(vals) -> float:
    """How cheaply a hand can be shed (higher is better)."""
    return -SHOW_NEEDED * shows_needed(vals) - CARD_HELD * len(vals)


def _show_value(hand, start, count, captured) -> float:
    rest = hand[:start] + hand[start + count:]
    if not rest:
        return GO_OUT + captured
    return captured + LONG_SHOW * (count - 1) + worth(rest)


def _best_show_after(hand, table_rest) -> float | None:
    """The value of the best show of ``hand`` that beats ``table_rest`` (None if none does)."""
    bar = _key(table_rest)
    best = None
    n = len(hand)
    for i in range(n):
        for j in range(i + 1, n + 1):
            seg = hand[i:j]
            if not _is_show(seg):
                break
            if _key(seg) > bar:
                v = _show_value(hand, i, j - i, len(table_rest))
                if best is None or v > best:
                    best = v
    return best


def choose(view: dict, actions: list[dict]) -> int:
    if view.get("phase") == "flip":
        keep = worth(view["hand_values"])
        turned = worth(view["hand_other_values"])
        want = turned > keep
        for i, a in enumerate(actions):
            if a["flip"]["turn_hand"] == want:
                return i
        return 0
    hand = list(view["hand_values"])
    table = view["table"]
    tvals = list(table["values"])
    players = view["players"]
    ends_round = table["owner"] == (view["seat"] + 1) % players
    best_i, best_v = 0, None
    for i, a in enumerate(actions):
        if "show" in a:
            s = a["show"]
            v = _show_value(hand, s["start"], s["count"], len(tvals))
        else:
            sc = a.get("scout") or a.get("scout_and_show")
            new = hand[:sc["position"]] + [sc["value"]] + hand[sc["position"]:]
            rest = tvals[1:] if sc["end"] == "left" else tvals[:-1]
            if "scout" in a:
                v = (-len(new) if ends_round else worth(new)) - CHIP
            else:
                after = _best_show_after(new, rest)
                if after is None:
                    continue
                v = after - CHIP - MARKER
        if best_v is None or v > best_v:
            best_i, best_v = i, v
    return best_i
