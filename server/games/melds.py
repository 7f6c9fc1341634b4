"""The meld solver of Three Thirteen: the arrangement of a hand that leaves the fewest points.

Three Thirteen (``three_thirteen.py``, RULINGS R3, R4, R6, R7) lets the referee lay down a
seat's melds: when a seat goes out, and at the end of every other seat's last turn, the referee
lays the arrangement that leaves the seat the fewest points. This module finds it.

Melds (R3, R4)
==============
* a **set** is 3 or more cards of one rank; with several decks, identical cards may share a set;
* a **run** is 3 or more cards of one suit standing for consecutive ranks, ace low only
  (A-2-3 is a run, Q-K-A is not);
* a **wild card** (a joker, or a card of the round's wild rank) may stand for any card, but the
  wild cards of a meld may never outnumber its natural cards. A card of the wild rank that stands
  for itself (a 7 in a set of 7s, or 7♠ in 6♠ 7♠ 8♠ when 7s are wild) counts as natural;
* a card belongs to one meld only.

A card laid off onto a meld on the table (R6) extends it: any card of a set's rank, or a run's
next card at either end (a wild may fill a gap on the way out: 9♠ onto 4♠ 5♠ 6♠ with two
wilds standing for 7♠ 8♠); wild cards may be laid off alone. The extended meld must still obey
the wild limit. Wild cards already on the table keep the place they stand for.

The search
==========
Natural cards (every card but the jokers; cards of the wild rank included, since they may stand
for themselves) are decided lowest code first. The lowest undecided card either stays in hand
(deadwood), is given up to the wild pool (a card of the wild rank only), starts a new set with
some of the other cards of its rank, starts a new run with a subset of the higher cards of its
suit (gaps to be filled with wilds), or is laid off onto a meld on the table (with the cards of
its suit it takes along, for a run). Wilds are assigned last: each meld records how many wilds
it *needs* (gaps, a third card) and how many more it could *absorb* (its slack, up to its
natural count and the 13 ranks of a suit), so the state of the search is the undecided cards
(a bitmask), the wilds needed so far, the wild-rank cards given to the pool, the slack so far
and the extensions of the table's runs. The search is memoised on that state and exact. It
stays small because slack beyond the wilds still free is dropped, a table run that no
undecided card can reach any more is folded into the slack, twin runs on the table (the same
suit and the same state, from several decks) are tried once, and leaving a card is tried last,
so a hand that melds fully stops the search at its first full melding. Going out (:func:`going_out_discards`) first counts the
cards no meld could hold (no card of their rank, none of their suit near enough): with two of
them the hand cannot go out, with one only by discarding it.

Cost: the points left in hand (A = 1 … K = 13, joker ``joker_points``), then the number of
cards left (so that a joker worth 0 points still counts as unmelded); wild cards left over are
the cheapest ones. Ties are broken by the fixed order of the search — the first arrangement
found wins, and lay-offs are tried before new melds, so a card is laid off rather than put
into a new meld of the same worth — and new melds that make one meld together (a run and the
run that continues it, two sets of one rank) are laid as one. So the same hand and table
always give the same melds.

Entry points: :func:`arrange` (the best arrangement, with lay-offs), :func:`deadwood_points`,
:func:`melds_fully` (every card melded, R6), :func:`going_out_discards` (the discards that let
a hand go out) and :func:`extend` (a table meld after a lay-off).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

JOKER = 52
SET, RUN = "set", "run"
_INF = 1 << 40
# the cost of an arrangement: points first, then cards left (a hand holds fewer than 32)
_POINT, _CARD = 32, 1


def card_points(card: int, joker_points: int = 20) -> int:
    """R8: A = 1, 2–10 face value, J 11, Q 12, K 13 (a wild-rank card too), a joker
    ``joker_points``."""
    return joker_points if card == JOKER else card // 4 + 1


def is_wild(card: int, wild_rank: int) -> bool:
    """R2: jokers always, and every card of the round's wild rank."""
    return card == JOKER or card // 4 + 1 == wild_rank


@dataclass(frozen=True)
class Meld:
    """A set or a run. ``cards`` of a run go lowest place first, each wild in the place it
    stands for; a set lists its cards as laid. ``key`` is a set's rank (1–13) or a run's suit
    (0 ♣ … 3 ♠); ``low`` is the rank a run's first card stands for (a set: its rank)."""

    kind: str
    key: int
    low: int
    cards: tuple[int, ...]

    @property
    def high(self) -> int:
        """The rank a run's last card stands for (a set: its rank)."""
        return self.low + len(self.cards) - 1 if self.kind == RUN else self.key

    @property
    def naturals(self) -> int:
        """Cards standing for themselves (a wild-rank card in its own place counts, R4)."""
        if self.kind == SET:
            return sum(1 for c in self.cards if c != JOKER and c // 4 + 1 == self.key)
        want, k = self.low, self.key
        return sum(1 for i, c in enumerate(self.cards) if c == (want + i - 1) * 4 + k)

    @property
    def wilds(self) -> int:
        return len(self.cards) - self.naturals

    def is_valid(self) -> bool:
        """R3/R4 as laid: three or more cards, naturals in place, wilds not outnumbering them
        (the round's wild rank is not needed: a card out of its place is taken for a wild)."""
        if len(self.cards) < 3:
            return False
        if self.kind == RUN and not (1 <= self.low and self.high <= 13):
            return False
        return self.wilds <= self.naturals


@dataclass(frozen=True)
class LayOff:
    """Cards laid off onto the table's meld number ``meld``: ``below`` goes before a run's first
    card (lowest first), ``above`` after its last card, or into a set."""

    meld: int
    below: tuple[int, ...]
    above: tuple[int, ...]

    @property
    def cards(self) -> tuple[int, ...]:
        return self.below + self.above


@dataclass(frozen=True)
class Arrangement:
    """The referee's melding of a hand: new melds, lay-offs, and the cards left in hand."""

    points: int
    melds: tuple[Meld, ...]
    layoffs: tuple[LayOff, ...]
    deadwood: tuple[int, ...]


def extend(meld: Meld, layoff: LayOff) -> Meld:
    """The table's meld after a lay-off."""
    if meld.kind == RUN:
        return Meld(RUN, meld.key, meld.low - len(layoff.below),
                    layoff.below + meld.cards + layoff.above)
    return Meld(SET, meld.key, meld.low, meld.cards + layoff.above)


def arrange(hand: Iterable[int], wild_rank: int, table: Sequence[Meld] = (),
            joker_points: int = 20) -> Arrangement:
    """The arrangement of ``hand`` that leaves the fewest points (then the fewest cards), laying
    off onto the melds in ``table`` (R6, R7)."""
    return _Solver(hand, wild_rank, table, joker_points).arrange()


def deadwood_points(hand: Iterable[int], wild_rank: int, table: Sequence[Meld] = (),
                    joker_points: int = 20) -> int:
    """The points the best arrangement leaves in hand."""
    return arrange(hand, wild_rank, table, joker_points).points


def melds_fully(hand: Iterable[int], wild_rank: int) -> bool:
    """Whether every card of ``hand`` can go into new melds (nothing left over)."""
    s = _Solver(hand, wild_rank, (), 20)
    return s.full(s.all_mask, 0, 0, 0)


def going_out_discards(hand: Iterable[int], wild_rank: int) -> list[int]:
    """The different cards whose discard leaves the rest of ``hand`` fully melded (R6), lowest
    code first. Empty when the hand cannot go out: going out always needs a final discard."""
    cards = sorted(hand)
    if len(cards) < 4:
        return []
    orphans = _orphans(cards, wild_rank)
    if len(orphans) > 1:
        return []
    if orphans:
        rest = list(cards)
        rest.remove(orphans[0])
        s = _Solver(rest, wild_rank, (), 20)
        return orphans if s.full(s.all_mask, 0, 0, 0) else []
    s = _Solver(cards, wild_rank, (), 20)
    return sorted(s.one_off(s.all_mask, 0, 0, 0))


def _orphans(cards: list[int], wild_rank: int) -> list[int]:
    """Natural cards (not of the wild rank) that no meld could hold: no other card of their
    rank, and no card of their suit near enough for the wilds there are. A hand with two of
    them cannot go out; with one, only by discarding it."""
    wilds = 0
    rank_count = [0] * 14
    suit_bits = [0, 0, 0, 0]
    for c in cards:
        if c == JOKER:
            wilds += 1
            continue
        r = c // 4 + 1
        if r == wild_rank:
            wilds += 1
        rank_count[r] += 1
        suit_bits[c % 4] |= 1 << r
    reach = wilds + 1
    window = (1 << (2 * reach + 1)) - 1
    out = []
    for c in cards:
        if c == JOKER:
            continue
        r = c // 4 + 1
        if r == wild_rank or rank_count[r] > 1:
            continue
        near = suit_bits[c % 4] & ~(1 << r)
        near = (near << reach >> r) & window
        if not near:
            out.append(c)
    return out


class _Solver:
    """One hand, one wild rank, one table: the memoised searches."""

    def __init__(self, hand: Iterable[int], wild_rank: int, table: Sequence[Meld],
                 joker_points: int):
        cards = sorted(hand)
        self.jokers = cards.count(JOKER)
        nat = [c for c in cards if c != JOKER]
        self.nat = nat
        self.wild_rank = wild_rank
        self.joker_points = joker_points
        n = len(nat)
        self.rank = rank = [c // 4 + 1 for c in nat]
        self.suit = suit = [c % 4 for c in nat]
        self.isw = isw = [r == wild_rank for r in rank]
        self.cost = [_POINT * r + _CARD for r in rank]
        self.wmask = sum(1 << i for i in range(n) if isw[i])
        self.all_mask = (1 << n) - 1
        #: the most wilds the pool can ever hold: every joker and every wild-rank card
        self.total_w = self.jokers + sum(isw)
        by_code: dict[int, list[int]] = {}
        for i, c in enumerate(nat):
            by_code.setdefault(c, []).append(i)
        self.by_code = by_code
        self._rank_groups: dict[int, list[list[int]]] = {}
        self._suit_above: dict[int, list[tuple[int, list[int]]]] = {}
        self._opt_cache: dict[int, list] = {}
        # the table: sets take any natural of their rank; runs are tracked when the hand holds
        # a card of their suit outside their span
        self.table = list(table)
        self.set_rank: dict[int, int] = {}
        self.runs: list[int] = []          # table indices of the relevant runs
        base_slack = 0
        for t, m in enumerate(self.table):
            if m.kind == SET:
                self.set_rank.setdefault(m.key, t)
                base_slack += m.naturals - m.wilds
            elif any(suit[i] == m.key and not m.low <= rank[i] <= m.high for i in range(n)):
                self.runs.append(t)
            else:
                base_slack += max(0, min(m.naturals - m.wilds, 13 - len(m.cards)))
        self.base_slack = base_slack
        self.run_suit = [self.table[t].key for t in self.runs]
        self.ts0 = tuple((self.table[t].low, self.table[t].high, self.table[t].naturals,
                          self.table[t].wilds, 0) for t in self.runs)
        self.suit_mask = [sum(1 << i for i in range(n) if suit[i] == s) for s in range(4)]
        self.memo: dict = {}

    # ----- the meld options of the lowest undecided card -----------------------------------
    def options(self, mask: int) -> list:
        """(bits, wilds needed, slack, kind, indices) for every new meld the lowest card of
        ``mask`` can start; cached by mask."""
        opts = self._opt_cache.get(mask)
        if opts is not None:
            return opts
        opts = []
        i = (mask & -mask).bit_length() - 1
        total_w = self.total_w
        # sets: the card with any copies of the other cards of its rank
        combos: list[tuple[int, ...]] = [()]
        for idx in self.rank_groups(i):
            av = [j for j in idx if mask >> j & 1]
            if av:
                combos = [c + tuple(av[:k]) for c in combos for k in range(len(av) + 1)]
        for c in combos:
            k = 1 + len(c)
            if k >= 2:
                need = 3 - k if k < 3 else 0
                if need <= total_w:
                    bits = 1 << i
                    for j in c:
                        bits |= 1 << j
                    opts.append((bits, need, k - need, SET, (i,) + c))
        # runs: the card and a subset of the higher cards of its suit, gaps filled with wilds
        avail = self._suit_avail(i, mask)
        if avail:
            p = self.rank[i]
            stack = [(0, p, 0, (i,), 1 << i)]
            while stack:
                start, last, gaps, chosen, bits = stack.pop()
                for t in range(start, len(avail)):
                    r, j = avail[t]
                    g = gaps + r - last - 1
                    if g > total_w:
                        break
                    ch = chosen + (j,)
                    b = bits | 1 << j
                    k = len(ch)
                    span = r - p + 1
                    ext = 3 - span if span < 3 else 0
                    need = g + ext
                    if need <= k and need <= total_w:
                        opts.append((b, need, min(k - need, 13 - span - ext), RUN, ch))
                    stack.append((t + 1, r, g, ch, b))
        self._opt_cache[mask] = opts
        return opts

    def rank_groups(self, i: int) -> list[list[int]]:
        """The later cards of card ``i``'s rank, grouped by code (copies together)."""
        groups = self._rank_groups.get(i)
        if groups is None:
            by_code, nat = self.by_code, self.nat
            groups = []
            for code in range(nat[i], self.rank[i] * 4):
                idx = [j for j in by_code.get(code, ()) if j > i]
                if idx:
                    groups.append(idx)
            self._rank_groups[i] = groups
        return groups

    def suit_above(self, i: int) -> list[tuple[int, list[int]]]:
        """The higher ranks of card ``i``'s suit in the hand, each with its copies."""
        above = self._suit_above.get(i)
        if above is None:
            by_code, s = self.by_code, self.suit[i]
            above = [(r, by_code[(r - 1) * 4 + s])
                     for r in range(self.rank[i] + 1, 14) if (r - 1) * 4 + s in by_code]
            self._suit_above[i] = above
        return above

    def _suit_avail(self, i: int, mask: int) -> list[tuple[int, int]]:
        """The higher ranks of card ``i``'s suit still undecided: (rank, first undecided copy)."""
        out = []
        for r, idx in self.suit_above(i):
            for j in idx:
                if mask >> j & 1:
                    out.append((r, j))
                    break
        return out

    # ----- the best arrangement ------------------------------------------------------------
    def _end_cost(self, need: int, q: int, slack: int, ts: tuple) -> int:
        pool = self.jokers + q
        if need > pool:
            return _INF
        for st in ts:
            if st is not None:
                lo, hi, nt, wd, _ = st
                if wd > nt:
                    return _INF
                slack += min(nt - wd, 13 - (hi - lo + 1))
        room = pool - need
        unused = room - min(room, slack)
        if not unused:
            return 0
        wp, jp = self.wild_rank, self.joker_points
        a, b = (q, self.jokers) if wp <= jp else (self.jokers, q)
        va, vb = (wp, jp) if wp <= jp else (jp, wp)
        first = min(unused, a)
        return _POINT * (first * va + (unused - first) * vb) + _CARD * unused

    def _norm(self, mask: int, need: int, slack: int, ts: tuple):
        """The state's canonical form: slack beyond the wilds still free is never used, and a
        table run no undecided card can reach any more counts only by its slack (None when such
        a run breaks the wild limit)."""
        if ts:
            out = None
            for x, st in enumerate(ts):
                if st is not None and not mask & self.suit_mask[self.run_suit[x]]:
                    lo, hi, nt, wd, _ = st
                    if wd > nt:
                        return None
                    slack += min(nt - wd, 13 - (hi - lo + 1))
                    if out is None:
                        out = list(ts)
                    out[x] = None
            if out is not None:
                ts = tuple(out)
        cap = self.total_w - need
        return (cap if slack > cap else slack), ts

    def solve(self, mask: int, need: int, q: int, slack: int, ts: tuple) -> int:
        norm = self._norm(mask, need, slack, ts)
        if norm is None:
            return _INF
        slack, ts = norm
        key = (mask, need, q, slack, ts)
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0]
        if not mask:
            cost = self._end_cost(need, q, slack, ts)
            self.memo[key] = (cost, None)
            return cost
        if need > self.jokers + q + (mask & self.wmask).bit_count():
            self.memo[key] = (_INF, None)
            return _INF
        i = (mask & -mask).bit_length() - 1
        bit = 1 << i
        cap, total_w = self.total_w, self.total_w
        solve = self.solve
        best, choice = _INF, None
        # lay-offs first (at equal cost a lay-off is kept rather than a new meld), then new
        # melds, and leaving the card last: a full melding ends the search early
        if self.rank[i] in self.set_rank:  # lay off onto the table's set
            best = solve(mask ^ bit, need, q, min(cap, slack + 1), ts)
            choice = ("layset", self.set_rank[self.rank[i]])
        if best and ts:
            best, choice = self._table_runs(i, mask, need, q, slack, ts, best, choice)
        if best:
            for bits, nm, sm, kind, idx in self.options(mask):
                nn = need + nm
                if nn > total_w:
                    continue
                c = solve(mask ^ bits, nn, q, min(cap, slack + sm), ts)
                if c < best:
                    best, choice = c, (kind, idx)
                    if not best:
                        break
        if best:
            if self.isw[i]:  # a wild-rank card not standing for itself joins the wild pool
                c, leave = solve(mask ^ bit, need, q + 1, slack, ts), ("release",)
            else:
                c, leave = self.cost[i] + solve(mask ^ bit, need, q, slack, ts), ("dead",)
            if c < best:
                best, choice = c, leave
        self.memo[key] = (best, choice)
        return best

    def _table_runs(self, i, mask, need, q, slack, ts, best, choice):
        """Lay the card off onto a run on the table, at its low end (with the cards of the suit
        up to the run) or its high end (with any higher cards of the suit), gaps wild."""
        s, p = self.suit[i], self.rank[i]
        total_w = self.total_w
        suits = self.run_suit
        for x, st in enumerate(ts):
            if st is None or suits[x] != s:
                continue
            if any(ts[y] == st and suits[y] == s for y in range(x)):  # a twin run: the first
                continue
            lo, hi, nt, wd, up = st
            if lo <= p <= hi or (p > hi and up):
                continue
            avail = self._suit_avail(i, mask)
            if p < lo:
                for chosen in _fillers([a for a in avail if a[0] < lo], lo - p - 1,
                                       total_w - need):
                    k = 1 + len(chosen)
                    gaps = (lo - p) - k
                    if need + gaps > total_w:
                        continue
                    bits = 1 << i
                    for _, j in chosen:
                        bits |= 1 << j
                    nts = ts[:x] + ((p, hi, nt + k, wd + gaps, up),) + ts[x + 1:]
                    c = self.solve(mask ^ bits, need + gaps, q, slack, nts)
                    if c < best:
                        best, choice = c, ("down", x, (i,) + tuple(j for _, j in chosen))
                        if not best:
                            return best, choice
            else:
                start_gap = p - hi - 1
                if need + start_gap > total_w:
                    continue
                for chosen in _subsets(avail, total_w - need - start_gap, first=p):
                    k = 1 + len(chosen)
                    top = chosen[-1][0] if chosen else p
                    gaps = (top - hi) - k
                    if need + gaps > total_w:
                        continue
                    bits = 1 << i
                    for _, j in chosen:
                        bits |= 1 << j
                    nts = ts[:x] + ((lo, top, nt + k, wd + gaps, 1),) + ts[x + 1:]
                    c = self.solve(mask ^ bits, need + gaps, q, slack, nts)
                    if c < best:
                        best, choice = c, ("up", x, (i,) + tuple(j for _, j in chosen))
                        if not best:
                            return best, choice
        return best, choice

    def arrange(self) -> Arrangement:
        cap = self.total_w
        root = (self.all_mask, 0, 0, min(cap, self.base_slack), self.ts0)
        self.solve(*root)
        nat, rank = self.nat, self.rank
        mask, need, q, slack, ts = root
        new: list[tuple[str, tuple[int, ...], int]] = []   # kind, indices, wilds needed
        set_adds: dict[int, list[int]] = {}
        ext: dict[int, list] = {}                            # relevant run x -> [down, up]
        dead: list[int] = []
        released: list[int] = []
        while mask:
            slack, ts = self._norm(mask, need, slack, ts)
            _, choice = self.memo[(mask, need, q, slack, ts)]
            i = (mask & -mask).bit_length() - 1
            kind = choice[0]
            if kind == "dead":
                dead.append(nat[i])
                mask ^= 1 << i
            elif kind == "release":
                released.append(nat[i])
                mask ^= 1 << i
                q += 1
            elif kind in (SET, RUN):
                idx = choice[1]
                for bits, nm, sm, k2, idx2 in self.options(mask):
                    if idx2 == idx and k2 == kind:
                        break
                new.append((kind, idx, nm))
                mask ^= bits
                need += nm
                slack = min(cap, slack + sm)
            elif kind == "layset":
                set_adds.setdefault(choice[1], []).append(nat[i])
                mask ^= 1 << i
                slack = min(cap, slack + 1)
            else:  # down / up onto a table run
                x, idx = choice[1], choice[2]
                lo, hi, nt, wd, up = ts[x]
                k = len(idx)
                if kind == "down":
                    gaps = (lo - rank[i]) - k
                    state = (rank[i], hi, nt + k, wd + gaps, up)
                else:
                    top = rank[idx[-1]]
                    gaps = (top - hi) - k
                    state = (lo, top, nt + k, wd + gaps, 1)
                ext.setdefault(x, [None, None])[0 if kind == "down" else 1] = idx
                ts = ts[:x] + (state,) + ts[x + 1:]
                for j in idx:
                    mask ^= 1 << j
                need += gaps
        return self._build(new, set_adds, ext, dead, released, need)

    def _build(self, new, set_adds, ext, dead, released, need) -> Arrangement:
        """Lay the chosen melds: assign the wilds (the dearest ones used), place them, score."""
        nat, rank, jp = self.nat, self.rank, self.joker_points
        pool = [JOKER] * self.jokers + released
        pool.sort(key=lambda c: (-card_points(c, jp), c))
        # the slack of every meld once its needs are met, in the order extras are given
        table = self.table
        run_final = {}
        for x, t in enumerate(self.runs):
            m = table[t]
            down, up = ext.get(x, (None, None))
            lo = rank[down[0]] if down else m.low
            hi = rank[up[-1]] if up else m.high
            k = len(down or ()) + len(up or ())
            run_final[t] = (lo, hi, m.naturals + k, m.wilds + (hi - lo + 1 - len(m.cards)) - k)
        new_slack = []
        for kind, idx, nm in new:
            k = len(idx)
            if kind == SET:
                new_slack.append(k - nm)
            else:
                span = rank[idx[-1]] - rank[idx[0]] + 1
                e = 3 - span if span < 3 else 0
                new_slack.append(min(k - nm, 13 - span - e))
        table_slack = []
        for t, m in enumerate(table):
            if m.kind == SET:
                table_slack.append(m.naturals + len(set_adds.get(t, ())) - m.wilds)
            elif t in run_final:
                lo, hi, nt, wd = run_final[t]
                table_slack.append(min(nt - wd, 13 - (hi - lo + 1)))
            else:
                table_slack.append(max(0, min(m.naturals - m.wilds, 13 - len(m.cards))))
        room = len(pool) - need
        extra = min(room, sum(new_slack) + sum(table_slack))
        used = pool[:need + extra]
        leftover = pool[need + extra:]
        wild_iter = iter(used)
        # needs first, in the order the melds were chosen, then the extras
        melds = []
        for (kind, idx, nm), sl in zip(new, new_slack):
            give = min(extra, sl)
            extra -= give
            if kind == SET:
                cards = tuple(nat[j] for j in idx) + tuple(next(wild_iter)
                                                           for _ in range(nm + give))
                melds.append(Meld(SET, rank[idx[0]], rank[idx[0]], cards))
            else:
                place = {rank[j]: nat[j] for j in idx}
                lo, hi = rank[idx[0]], rank[idx[-1]]
                seq = [place[r] if r in place else next(wild_iter) for r in range(lo, hi + 1)]
                pad = nm - (hi - lo + 1 - len(idx)) + give
                lo = _pad_run(seq, lo, hi, pad, wild_iter)
                melds.append(Meld(RUN, self.suit[idx[0]], lo, tuple(seq)))
        layoffs = []
        run_x = {t: x for x, t in enumerate(self.runs)}
        for t, m in enumerate(table):
            give = min(extra, table_slack[t])
            extra -= give
            if m.kind == SET:
                adds = tuple(set_adds.get(t, ())) + tuple(next(wild_iter) for _ in range(give))
                if adds:
                    layoffs.append(LayOff(t, (), adds))
                continue
            down, up = ext.get(run_x.get(t, -1), (None, None))
            below: list[int] = []
            above: list[int] = []
            if down:
                place = {rank[j]: nat[j] for j in down}
                below = [place[r] if r in place else next(wild_iter)
                         for r in range(rank[down[0]], m.low)]
            if up:
                place = {rank[j]: nat[j] for j in up}
                above = [place[r] if r in place else next(wild_iter)
                         for r in range(m.high + 1, rank[up[-1]] + 1)]
            lo = m.low - len(below)
            hi = m.high + len(above)
            for _ in range(give):
                if hi < 13:
                    above.append(next(wild_iter))
                    hi += 1
                else:
                    below.insert(0, next(wild_iter))
                    lo -= 1
            if below or above:
                layoffs.append(LayOff(t, tuple(below), tuple(above)))
        deadwood = tuple(sorted(dead + leftover))
        points = sum(card_points(c, jp) for c in deadwood)
        return Arrangement(points, tuple(_joined(melds)), tuple(layoffs), deadwood)

    # ----- going out: every card melded ----------------------------------------------------
    def full(self, mask: int, need: int, q: int, slack: int) -> bool:
        """Whether the cards of ``mask`` and the jokers all go into new melds."""
        if not mask:
            pool = self.jokers + q
            return need <= pool <= need + slack
        if slack > self.total_w - need:
            slack = self.total_w - need
        key = (mask, need, q, slack)
        memo = self.memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        res = False
        if need <= self.jokers + q + (mask & self.wmask).bit_count():
            i = (mask & -mask).bit_length() - 1
            cap = self.total_w
            if self.isw[i] and self.full(mask ^ (1 << i), need, q + 1, slack):
                res = True
            else:
                for bits, nm, sm, _, _ in self.options(mask):
                    if need + nm <= cap and self.full(mask ^ bits, need + nm, q,
                                                      min(cap, slack + sm)):
                        res = True
                        break
        memo[key] = res
        return res

    def one_off(self, mask: int, need: int, q: int, slack: int) -> frozenset:
        """The cards whose discard lets every other card (jokers too) go into new melds."""
        if slack > self.total_w - need:
            slack = self.total_w - need
        key = ("one", mask, need, q, slack)
        memo = self.memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        if not mask:
            pool = self.jokers + q
            res = frozenset((JOKER,)) if self.jokers and need <= pool - 1 <= need + slack \
                else frozenset()
            memo[key] = res
            return res
        res = set()
        if need <= self.jokers + q + (mask & self.wmask).bit_count():
            i = (mask & -mask).bit_length() - 1
            bit = 1 << i
            cap = self.total_w
            if self.full(mask ^ bit, need, q, slack):  # discard this card
                res.add(self.nat[i])
            if self.isw[i]:
                res |= self.one_off(mask ^ bit, need, q + 1, slack)
            for bits, nm, sm, _, _ in self.options(mask):
                if need + nm <= cap:
                    res |= self.one_off(mask ^ bits, need + nm, q, min(cap, slack + sm))
        out = frozenset(res)
        memo[key] = out
        return out


def _fillers(avail: list[tuple[int, int]], places: int, budget: int):
    """For a low-end lay-off: the subsets of ``avail`` (the cards between the laid card and the
    run) that leave at most ``budget`` of the ``places`` between them to wilds."""
    spare = budget - (places - len(avail))  # how many available cards may be left out
    if spare < 0:
        return
    for k in range(min(spare, len(avail)) + 1):
        for skip in combinations(range(len(avail)), k):
            yield tuple(a for t, a in enumerate(avail) if t not in skip)


def _subsets(avail: list[tuple[int, int]], budget: int, first: int):
    """For a high-end lay-off or a new run: the subsets of ``avail`` ((rank, index), ascending
    ranks) above the card of rank ``first``, gaps within ``budget``."""
    out = [()]
    stack = [(0, first, 0, ())]
    while stack:
        start, last, gaps, chosen = stack.pop()
        for t in range(start, len(avail)):
            r = avail[t][0]
            g = gaps + r - last - 1
            if g > budget:
                break
            ch = chosen + (avail[t],)
            out.append(ch)
            stack.append((t + 1, r, g, ch))
    return out


def _joined(melds: list[Meld]) -> list[Meld]:
    """New melds that make one meld together, joined: two sets of one rank, or a run and the
    run that starts right above it in the same suit (each valid, so the union is: its wilds
    cannot outnumber its naturals, and it stays within A–K)."""
    out = list(melds)
    joined = True
    while joined:
        joined = False
        for a in range(len(out)):
            for b in range(len(out)):
                x, y = out[a], out[b]
                if a == b or x.kind != y.kind or x.key != y.key:
                    continue
                if x.kind == SET and a < b:
                    merged = Meld(SET, x.key, x.low, x.cards + y.cards)
                elif x.kind == RUN and x.high + 1 == y.low:
                    merged = Meld(RUN, x.key, x.low, x.cards + y.cards)
                else:
                    continue
                out[min(a, b)] = merged
                del out[max(a, b)]
                joined = True
                break
            if joined:
                break
    return out


def _pad_run(seq: list[int], lo: int, hi: int, pad: int, wild_iter) -> int:
    """Add ``pad`` wilds to a run: above its top while there is room (up to K), else below.
    Returns the run's new low rank."""
    for _ in range(pad):
        if hi < 13:
            seq.append(next(wild_iter))
            hi += 1
        else:
            seq.insert(0, next(wild_iter))
            lo -= 1
    return lo
