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
  for itself (a 7 in a set of 7s, or 7♠ in 6♠ 7♠ 8♠ when 7s are wild) counts as natural: three
  3s in round 1 are a set, and so is 3♣ 3♦ 3♥ Jo Jo Jo; Jo Jo 3♣ is not (two wild, one natural);
* a card belongs to one meld only.

A card laid off onto a meld on the table (R6) extends it: any card of a set's rank, or a run's
next card at either end (a wild may fill a gap on the way out: 9♠ onto 4♠ 5♠ 6♠ with two
wilds standing for 7♠ 8♠); wild cards may be laid off alone. The extended meld must still obey
the wild limit. Wild cards already on the table keep the place they stand for.

The search
==========
Natural cards (every card but the jokers; cards of the wild rank included, since they may stand
for themselves) are decided lowest code first. The choices for the lowest undecided card, in
their canonical order: lay it off onto the table's set of its rank; lay it off onto a run on
the table, at its low end with some of the cards of its suit up to the run, or at its high end
with some of the higher cards of its suit (gaps filled with wilds); start a new set with some
of the other cards of its rank (not if the table has a set of its rank: each card laid off
there needs no wild and absorbs one, so a new set is never better); start a new run with some
of the higher cards of its suit; and last give it up to the wild pool (a card of the wild rank)
or leave it in hand. Wilds are assigned at the end: each meld records how many wilds it *needs*
(gaps, a third card) and how many more it could *absorb* (its slack, up to its natural count
and the 13 ranks of a suit), so a state of the search is the undecided cards (a bitmask), the
wilds needed so far, the wild-rank cards given to the pool, the slack so far, and the table's
runs that undecided cards can still reach (each as its low and high ranks and its margin,
naturals less wilds).

The cost of a state is found by a depth-first branch and bound. A choice is searched only with
the budget of beating the best choice so far, and not at all when a lower bound says it cannot:
the cards no meld can take any more (nothing of their rank, or only one other when no wild is to
come, nothing of their suit near enough for the wilds still to come, no table meld within reach:
a table run is out of reach of a card when no way of extending it to the card keeps its wilds
no more than its naturals, every place the hand's cards of its suit can fill filled: Q♦ up to
Jo Jo 6♦ 7♦ 8♦, the hand's 6♦ and 7♦ within it; 7♥ down to Jo J♥ Q♥ Jo, 8♥ 9♥ wild and the
hand's 3♥ three wild places further; the search does not track a run no card reaches) stay in
hand; a small group of undecided cards that
can share no meld with any other undecided card (J♦ Q♦ Q♦ beside hearts runs; 7♣ 9♣ 9♠ when
Queens are wild, with a clubs run on the table; 9♠ 9♠ 10♠ beside hearts runs once the 4♠ that
joined them to the 4♥ is decided; solved so once its cards are met again, the first time only if
it is part of a group of the whole hand and four runs or more lie on the table, since it costs
more than it saves in most hands; the groups that are not the whole hand's only from three
cards, against six runs or more, and if they leave anything with every wild) leaves at least
what it leaves solved alone (one solver serving the parts of a group) with the table's runs of
its suits as they stand, the wild-rank cards of its suits (Q♠, which may stand for itself there)
and the other wilds still to come (its points, and a card for every 13 of them); and the cards
that need wilds to go into any meld (each counted once with the fewest any meld holding it
takes: Q♥ two up to 4♥…9♥ on the table, 9♠ one beside 7♠) leave at least the cheapest of them
the wilds to come cannot serve, among cards of different suits and ranks, which no meld holds
together and so no wild serves twice (two copies of a card, the only cards of its rank, each
going into a meld without wilds alone but no two such melds holding one each, count so as one
card wanting one wild: 10♦ 10♦ beside a single 9♦, both melded only as 10♦ 10♦ and a wild, since
a run takes one copy of a card); against four table runs or more, up to five such cards
are also parted into melds every way (all of one rank, or of one suit and different ranks,
each taking at least what each of its cards takes without the others, and a run at least a
wild for each place between its lowest and highest that no other card of the hand fills, nor
a table run lying between them), and leave at least the cheapest of them whose leaving lets
the others meld with the wilds to come (J♣ Q♣ Q♣ with two Kings: Q♣ Q♣ K and J♣ Q♣ K take one
each, but then J♣ alone takes two, Q♣ alone no meld: the J♣ stays; 8♣ J♣ Q♣ with one King
beside 4♣…9♣ and 10♣…K♣ on the table: 8♣ goes below 10♣ with a wild for 9♣, J♣ Q♣ above 9♣
with one for 10♣, each wanting one, but they compete for it, and a run holding all three takes
two, for 9♣ and 10♣: the 8♣ stays), beside such copies of other ranks, and of other suits or
too far from the cards of theirs for a run to hold both (8♣ 8♣ beside Q♣ with one wild to come,
no 9♣ 10♣ J♣ in hand nor a clubs run between them on the table), each either left in hand or
taking a wild of their own; and with no wild to come, against four table runs or more, a card
that melds only in a set of its rank, the only three of it, takes the other two, so it or a
card with no meld without them stays (9♥ beside 9♦ 9♦ 10♦ and a diamonds run up to 8♦). The
whole hand is searched first with the budget of its lower bound (an arrangement meeting it is
the best, and the bounds make that search short), for a few states at most (``_QUICK``: when the
bound is far off, that search and the next within a higher bound searched the same states again
and again), then with no budget, the bounds and states found kept. A state searched within its
budget is memoised with its exact cost and its first choice that reaches it; one that cannot
stay within its budget, with the lower bound the search proved; and a state that offers no more
than one searched before (the same undecided cards, wilds needed and wild pool, no more slack,
and no table run that one lacks or has with a greater margin: a lay-off onto a run only takes it
away) costs at least what that one was found to cost at least. States are kept canonical so that
the memo knows them again: slack and margins beyond the wilds still free are dropped; a table
run that no undecided card can reach any more is folded into the slack (with its wild limit
checked), and one extended upwards at once (lower cards come first); a run laid off below with
more wilds than it gains naturals is lost (no arrangement) as soon as the cards of its suit
still within its reach cannot make up for them (at most the naturals less wilds that laying
them gains at either end: K♦ K♦ K♦ gain nothing above Jo 9♦ Jo J♦, Q♦ K♦ two); twin runs (the
same suit and state) are tried once; the room below a run that no card can reach from below
counts only up to the wilds still free, and not at all once the slack is full, and so does the
room above one that no card can ever reach from above (none of its suit near enough), whose
high rank then does not count (8♣ 9♣ 10♣ and Jo 9♣ K♦ J♣, each taking only a 7♣ below with no
wild to come, are twins); and cards that
can only stay in hand or go into a set of their rank are counted by rank, not named. A memo key
is small numbers: the cards, the wilds needed, the pool and the slack packed into one, and each
table run named by a number (:class:`_Runs`), so that a key is quick to hash and compare. The
choices of a state are offered one at a time, each only if its lower bound can beat the best so
far (:meth:`_Solver._promising`; the next state's table runs are made only for those searched).

The arrangement is then read from the start: at each state, the first choice in the canonical
order whose cost is the state's cost. The bounds change how fast the search is, never what it
finds: the first arrangement in the canonical order among those that leave the fewest points.

Going out (:func:`going_out_discards`) first counts the cards no meld could hold (no card of
their rank, none of their suit near enough): with two of them the hand cannot go out, with one
only by discarding it. Otherwise the cards that must stay (no meld takes them, or they want
more wilds than there are) say which discards to try: two leave none, one only itself, and
cards of different suits and ranks that want more wilds together than there are only one of
them; else a joker and one card of each group (copies, or cards the search counts rather than
names), a wild-rank card only if the joker's discard lets the hand go out (a wild-rank card
kept does all a joker kept does, R4). Each discard is then tried by the search for a full
melding, one memo serving them all (:meth:`_Solver.each_discard`: most of the states of one are
met again by the next, and each search stops at the first full melding it finds; one search
collecting every discard at once, :meth:`_Solver.one_off`, searched twice as long on the
slowest hands and is kept as the tests' second opinion). The bounds of the arrangement serve
here too: a state whose cards must all go into melds is not searched if they leave anything.
Going out is a yes-or-no question, so the wild-rank cards are decided there only as naturals in
runs or as wilds: a set of the wild rank holds wild-rank cards and jokers only (each wild-rank
card in it natural, R4), so which of them it takes does not matter, and it is made at the end
from the wild pool, as a count (3 or more cards, no more jokers than wild-rank cards). Nor does
the order of the new melds matter there: a state tries only those taking at most the wilds
still free (the wilds they need and their wild-rank cards standing for themselves), fewest
first, built from bits and cached by the cards of the lowest card's rank and higher suit; and
its slack counts only up to those wilds (no more can be left over).

Cost: the points left in hand (A = 1 … K = 13, joker ``joker_points``), then the number of
cards left (so that a joker worth 0 points still counts as unmelded); wild cards left over are
the cheapest ones. Ties are broken by the canonical order of the choices — lay-offs before new
melds, so a card is laid off rather than put into a new meld of the same worth — and new melds
that make one meld together (a run and the run that continues it, two sets of one rank) are
laid as one. So the same hand and table always give the same melds. Where the wilds go once
the melds are chosen (the dearest ones used, in the order the melds were chosen, a run's extra
wilds above it while there is room) is written with R7 in ``three_thirteen.py``.

Speed: ``make setup`` compiles this module with mypyc (``compile_melds.py``), the same code;
when it is imported, it takes the compiled build if that was built from this very source
(:func:`_compiled`; ``COMPILED`` says which runs), else it runs as Python, which takes about
three and a half times the CPU on the slowest hands (``CARDARENA_SOLVER=python`` asks for Python).
The code is written for the build as well: its containers are typed, its memo keys are numbers
or tuples of numbers, and its methods are called as methods (mypyc calls a bound method kept in
a variable as a Python object, through its wrapper).

Entry points: :func:`arrange` (the best arrangement, with lay-offs), :func:`deadwood_points`,
:func:`melds_fully` (every card melded, R6), :func:`going_out_discards` (the discards that let
a hand go out) and :func:`extend` (a table meld after a lay-off).
"""
from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations, combinations_with_replacement

JOKER = 52
SET, RUN = "set", "run"
_INF = 1 << 40
#: the bits set in each number below 2**16 (:func:`_ones`)
_POP16 = [0] * 0x10000
for _x in range(1, 0x10000):
    _POP16[_x] = _POP16[_x >> 1] + (_x & 1)


def _ones(x: int) -> int:
    """``x.bit_count()`` (x >= 0), by a list item where the search spends its time: compiled
    code calls ``bit_count`` by its name."""
    return _POP16[x] if x < 0x10000 else x.bit_count()


# the cost of an arrangement: points first, then cards left (a hand holds fewer than 32)
_POINT, _CARD = 32, 1
#: a choice of the search: (points it leaves, the next state's undecided cards, wilds needed,
#: pool and slack, the place of the table run it changes (-1: none) and that run's new state,
#: what it lays); the next state's table runs are made only if it is searched (:func:`_put`)
_Move = tuple[int, int, int, int, int, int, int, tuple]
#: a new meld the lowest undecided card can start: (bits, wilds needed, slack, kind, indices)
_Option = tuple[int, int, int, str, tuple[int, ...]]
#: the bounds' view with some wilds to come (:meth:`_Solver._level`): the stuck cards found (by
#: undecided cards), the cards that may have to stay, their partners and pairs
_Level = tuple[dict[int, tuple[int, int]], int, list[int], list[int] | None]
#: the most states the search of a whole hand within its lower bound searches (an arrangement
#: meeting the bound is found in a few, or the bound is far off: then the search with no budget,
#: a third faster on the slowest hands known, bench/engine.py's KNOWN_SLOW and hunts)
_QUICK = 20
#: the most cards of a group apart from the table that the lower bound solves alone
_APART = 5
#: the most cards wanting wilds whose melds the lower bound parts every way (:meth:`_cover`): 5,
#: not 4, halves the searches of a hand against fifteen table runs (bench/engine.py's
#: KNOWN_SLOW), the played games' calls as fast as with 4
_COVER = 5


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

    @cached_property
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

    def __reduce__(self):  # (pickled and copied by its fields: compiled too, see :func:`_compiled`)
        return Meld, (self.kind, self.key, self.low, self.cards)


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

    def __reduce__(self):
        return LayOff, (self.meld, self.below, self.above)


@dataclass(frozen=True)
class Arrangement:
    """The referee's melding of a hand: new melds, lay-offs, and the cards left in hand."""

    points: int
    melds: tuple[Meld, ...]
    layoffs: tuple[LayOff, ...]
    deadwood: tuple[int, ...]

    def __reduce__(self):
        return Arrangement, (self.points, self.melds, self.layoffs, self.deadwood)


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
    s = _Solver(cards, wild_rank, (), 20)
    if orphans:
        return orphans if s.full_without(orphans[0]) else []
    found = s.each_discard()
    return [c for c in dict.fromkeys(cards) if s.group_bit(c) & found] if found else []


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
                 joker_points: int, apart: bool = True, runs: _Runs | None = None):
        cards = sorted(hand)
        #: the table runs' states, each named by a number (:class:`_Runs`): shared with the
        #: solvers of the groups apart, which take the runs of their suits as they stand
        self.rs = rs = runs if runs is not None else _Runs()
        self.jokers = jokers = cards.count(JOKER)
        self.nat = nat = cards[:len(cards) - jokers]  # (the jokers sort last)
        self.wild_rank = wild_rank
        self.joker_points = joker_points
        n = len(nat)
        self.rank = rank = [c // 4 + 1 for c in nat]
        self.suit = suit = [c % 4 for c in nat]
        self.isw = isw = [r == wild_rank for r in rank]
        self.cost = [_POINT * r + _CARD for r in rank]
        self.all_mask = all_mask = (1 << n) - 1
        self.wmask = wmask = 0
        self.suit_mask = suit_mask = [0, 0, 0, 0]
        rank_mask = [0] * 14
        by_code: dict[int, list[int]] = {}
        for i, c in enumerate(nat):
            bit = 1 << i
            suit_mask[suit[i]] |= bit
            rank_mask[rank[i]] |= bit
            if isw[i]:
                wmask |= bit
            by_code.setdefault(c, []).append(i)
        self.wmask = wmask
        self.by_code = by_code
        #: the cards above each rank (bitmasks; the cards go rank by rank)
        self.above = above = [all_mask] * 15
        below = 0
        for r in range(1, 14):
            below |= rank_mask[r]
            above[r] = all_mask ^ below
        above[14] = 0
        #: the most wilds the pool can ever hold: every joker and every wild-rank card
        self.total_w = total_w = jokers + wmask.bit_count()
        self._rank_groups: dict[int, list[list[int]]] = {}
        self._suit_above: dict[int, list[tuple[int, list[int]]]] = {}
        self._opt_cache: dict[int, list[_Option]] = {}
        self._out_cache: dict[tuple, tuple] = {}  # going out (:meth:`out_options`)
        self._out_runs: dict[tuple, list] = {}  # the same, its runs
        self._down_cache: dict[int, list[tuple[int, int, int, tuple[int, ...]]]] = {}
        self._up_cache: dict[int, list[tuple[int, int, int, int, tuple[int, ...]]]] = {}
        self._run_states: dict[int, int] = {}  # a table run's canonical form (:meth:`_run_state`)
        # the table: sets take any natural of their rank; runs are tracked when a card of the
        # hand can reach them (:func:`_reaches`); the thresholds of the dearer bounds (eager,
        # alone) count the runs with a card of their suit in hand outside their span
        self.table = list(table)
        self.set_rank: dict[int, int] = {}
        self.runs: list[int] = []          # table indices of the relevant runs
        base_slack = 0
        busy = 0  # (the table's runs with cards of their suit beyond them in hand)
        gap = [_INF] * n  # the fewest wilds that lay a card off onto a run on the table
        for t, m in enumerate(self.table):
            if m.kind == SET:
                self.set_rank.setdefault(m.key, t)
                base_slack += m.naturals - m.wilds
                continue
            lo, hi, margin = m.low, m.high, m.naturals - m.wilds
            # (its wilds never outnumber its naturals: a card reaches it only if some way of
            # extending it to the card, every place the hand's cards of its suit can fill
            # filled, keeps them so, :func:`_reaches`; a run no card reaches takes wilds only)
            beyond = suit_mask[m.key] & ~(above[lo - 1] & ~above[hi])
            ranks = 0
            bits = beyond
            while bits:
                low = bits & -bits
                bits ^= low
                ranks |= 1 << rank[low.bit_length() - 1]
            bits, reached = beyond, 0
            while bits:
                low = bits & -bits
                bits ^= low
                j = low.bit_length() - 1
                r = rank[j]
                if _reaches(ranks, lo, hi, margin, r):
                    reached |= low
                    w = lo - r - 1 if r < lo else r - hi - 1
                    if w < gap[j]:
                        gap[j] = w
            if reached:
                self.runs.append(t)
            else:
                base_slack += max(0, min(margin, 13 - len(m.cards)))
            if beyond:
                busy += 1
        self.base_slack = base_slack
        self.ts0: tuple[int, ...] = tuple(
            rs.name(self.table[t].key, self.table[t].low, self.table[t].high,
                    self.table[t].naturals - self.table[t].wilds) for t in self.runs)
        #: the widths of a state's numbers in its memo key (:meth:`_state`): the cards, then
        #: the wilds needed, the pool and the slack (each at most ``total_w``)
        self._wb = total_w.bit_length() + 1
        # for the lower bounds of the states (:meth:`floor`): what a card needs to go into a
        # meld is another card of its rank, a card of its suit with the wilds between them, or
        # the wilds up to a run on the table to lay it off onto
        self._gap = gap
        self._rank_mask = rank_mask
        self._levels: dict[int, _Level] = {}  # by the wilds still free
        #: the table's runs of each suit (:meth:`_want`, :meth:`_copy_pairs`), each as its low
        #: and high ranks, its margin (naturals less wilds) and the cards of its suit beyond it
        self._suit_runs: list[list[tuple[int, int, int, int]]] = [[], [], [], []]
        for t in self.runs:
            m = self.table[t]
            self._suit_runs[m.key].append((m.low, m.high, m.naturals - m.wilds,
                                           ~(above[m.low - 1] & ~above[m.high])))
        self._suit_ranks: dict[int, tuple[int, int]] = {}  # (:meth:`_ranks`)
        #: the fewest wilds any meld holding each card needs, and the cards needing some
        self.wants = wants = self._wants()
        self.wanting = sum(1 << j for j in range(n) if wants[j])
        self._demand_memo: dict = {}  # by the undecided cards wanting wilds and the wilds to come
        self._short_memo: dict = {}  # the same (:meth:`_short`)
        self._parts_memo: dict = {}  # by the cards wanting wilds kept and left to part
        self._wants_memo: dict = {}  # by a card and the cards of its rank and suit absent
        self._meets_memo: dict = {}  # (:meth:`_meets`)
        self._span_memo: dict = {}  # (:meth:`_between`)
        #: the cards of each card's rank or suit (what :meth:`_want` looks at)
        self._kin = [rank_mask[rank[j]] | suit_mask[suit[j]] for j in range(n)]
        #: the copies that meld together only with a wild to come (:meth:`_copy_pairs`), each
        #: as a bit of its own above the cards and the bits of both copies; for :meth:`_short`
        #: and :meth:`_demand`, the wants, costs, suits and ranks of the cards and then of these
        copies = self._copy_pairs() if n > len(by_code) else []
        self.pairs: list[tuple[int, int]] = []
        self._xwants, self._xcost, self._xsuit, self._xrank = wants, self.cost, suit, rank
        if copies:
            last = [b for _, b in copies]
            self.pairs = [(1 << (n + t), (1 << a) | (1 << b)) for t, (a, b) in enumerate(copies)]
            self._xwants = wants + [1] * len(last)
            self._xcost = self.cost + [self.cost[j] for j in last]
            self._xsuit = suit + [suit[j] for j in last]
            self._xrank = rank + [rank[j] for j in last]
        # cards that can only stay, or go into a set of their rank: which of them a state
        # holds does not matter, only how many of each rank (the memo counts them)
        codes: dict[int, list] = {}
        for c, idx in by_code.items():
            codes.setdefault(c // 4, []).append(idx)
        self.counted = []
        for idxs in codes.values():
            if len(idxs) > 1:  # (cards of different suits)
                idxs = [idx for idx in idxs
                        if gap[idx[0]] > total_w and not self._run_mates(idx[0], total_w)]
            if len(idxs) > 1:
                g = sum(1 << j for idx in idxs for j in idx)
                self.counted.append((g, [_lowest(g, k) for k in range(g.bit_count() + 1)]))
        self.counted_all = sum(g for g, _ in self.counted)
        self.memo: dict[object, tuple[int, tuple | None]] = {}
        self.bounds: dict[object, int] = {}
        self._quick = -1  # the states the search within the lower bound may still search
        #: the states searched with table runs, by the rest of their key but the slack: (their
        #: slack, their table runs, what they cost at least); a state offering no more (no more
        #: slack, no run they lack or with a greater margin) costs at least as much
        self._dom: dict[int, list[tuple[int, tuple[int, ...], int]]] = {}
        #: the lower bounds but the groups apart, by the cards and the wilds to come as one
        #: number (the cards, then the wilds to come plus ``total_w``: they are fewer than none
        #: when more are needed than can come)
        self._floors: dict[int, int] = {}
        self._fb = (2 * total_w).bit_length() + 1
        self.out_memo: dict = {}  # going out
        self.out_jokers = jokers  # the jokers that must go into melds
        #: for going out: each card's counted group, or minus one less its code (:meth:`group_of`)
        self.group = group = [-1 - c for c in nat]
        for g, _ in self.counted:
            for j in range(n):
                if g >> j & 1:
                    group[j] = g
        #: the same as bits: the cards of each card's group (its counted group, or its copies),
        #: and a bit above the cards for the joker (:meth:`discards`)
        self.group_bits = [g if g >= 0 else sum(1 << k for k in by_code[nat[j]])
                           for j, g in enumerate(group)]
        self.joker_bit = 1 << n if jokers else 0
        #: with runs on the table, the small groups of cards apart from the other cards
        #: (:meth:`_apart_groups`): the lower bound solves each alone (:meth:`_apart_cost`)
        self.apart = apart and bool(self.runs)
        self._link = self._links() if self.apart else []
        self._groups: dict = {}  # by the undecided cards but the wild-rank ones
        self._group_info: dict = {}  # by a group's cards
        self._roots: list = []  # the groups with a solver of their own
        self._whole: tuple = ()  # the groups of the whole hand (:meth:`_whole_groups`)
        self._met: set = set()  # the undecided cards met once (:meth:`solve`)
        #: whether the groups of the whole hand bound a state the first time its cards are met
        self.eager = busy >= 4
        #: the groups that bound a state met again (:meth:`floor`): those of its cards against
        #: six table runs or more, else those of the whole hand
        self.alone = 2 if busy >= 6 else 1
        self._apart_memo: dict = {}  # by the undecided cards apart, the wilds to come, the runs
        self._alone: dict = {}  # by one group's undecided cards, the wilds to come, its runs
        self._alone_solvers: dict = {}  # by group
        #: with no wild to come and four table runs or more, the cards that meld only in a set
        #: of their rank (:meth:`_claims`: found when first needed), their bits (all until
        #: then), its bounds
        self._claimants: list[int] | None = None
        self._claiming = -1 if self.eager else 0
        self._claims_memo: dict = {}
        self._rivals: dict = {}  # by the two cards a claimant takes (:meth:`_rivals_of`)
        self.wild_points = wild_rank  # what a wild-rank card left in hand counts

    # ----- the meld options of the lowest undecided card -----------------------------------
    def options(self, mask: int) -> list[_Option]:
        """(bits, wilds needed, slack, kind, indices) for every new meld the lowest card of
        ``mask`` can start; cached by mask. No new set of a rank the table has a set of: each
        of its cards laid off there needs no wild and absorbs one, and the lay-off comes
        first in the canonical order."""
        hit = self._opt_cache.get(mask)
        if hit is not None:
            return hit
        i = (mask & -mask).bit_length() - 1
        total_w = self.total_w
        opts: list[_Option] = [] if self.rank[i] in self.set_rank else self._set_options(i, mask)
        # runs: the card and a subset of the higher cards of its suit, gaps filled with wilds
        avail = self._suit_avail(i, mask)
        if avail:
            p = self.rank[i]
            stack: list[tuple[int, int, int, tuple[int, ...], int]] = [(0, p, 0, (i,), 1 << i)]
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

    def out_options(self, mask: int, free: int) -> tuple[list, list]:
        """For going out, the new melds the lowest card of ``mask`` can start (as
        :meth:`options`), each as (wilds it takes from those to come, bits, wilds needed,
        slack), fewest wilds first (going out is a yes-or-no question: the order does not
        matter), and only those taking at most the ``free`` wilds still to come: the runs
        alone, and every meld. The wilds a meld takes are those it needs and its wild-rank
        cards standing for themselves. Cached by the cards of its rank and the higher cards
        of its suit, and ``free`` (the runs by the higher cards of its suit alone)."""
        i = (mask & -mask).bit_length() - 1
        p = self.rank[i]
        higher = mask & self.suit_mask[self.suit[i]] & self.above[p]
        key = (i, mask & self._rank_mask[p] | higher, free)
        out = self._out_cache.get(key)
        if out is not None:
            return out
        runs = self._out_runs.get((i, higher, free))
        if runs is None:
            runs = self._out_runs[i, higher, free] = self._new_runs(i, mask, free)
        melds = runs
        if not self.isw[i]:
            sets = [(nm, bits, nm, sm) for bits, nm, sm, kind, _ in self._set_options(i, mask)
                    if nm <= free]
            if sets:
                melds = sorted(sets + runs, key=_first)
        out = self._out_cache[key] = (runs, melds)
        return out

    def _new_runs(self, i: int, mask: int, free: int) -> list:
        """The runs of :meth:`out_options`: card ``i`` and higher cards of its suit in
        ``mask``, gaps wild, built from bits (no tuples of indices)."""
        p = self.rank[i]
        runs = []
        avail = self._suit_avail(i, mask)
        if avail:
            isw = self.isw
            stack: list[tuple[int, int, int, int, int, int]] = [(0, p, 0, 1, 1 << i, int(isw[i]))]
            while stack:
                start, last, gaps, k, bits, own = stack.pop()
                for t in range(start, len(avail)):
                    r, j = avail[t]
                    g = gaps + r - last - 1
                    if g + own > free:
                        break
                    o = own + isw[j]
                    if g + o > free:  # (nor with any higher card)
                        continue
                    b = bits | 1 << j
                    span = r - p + 1
                    ext = 3 - span if span < 3 else 0
                    need = g + ext
                    if need <= k + 1 and need + o <= free:
                        runs.append((need + o, b, need, min(k + 1 - need, 13 - span - ext)))
                    stack.append((t + 1, r, g, k + 1, b, o))
        runs.sort(key=_first)
        return runs

    def _set_options(self, i: int, mask: int) -> list[_Option]:
        """The sets of :meth:`options`: card ``i`` with any copies of the other cards of its
        rank in ``mask``."""
        opts: list[_Option] = []
        combos: list[tuple[int, ...]] = [()]
        for idx in self.rank_groups(i):
            av = [j for j in idx if mask >> j & 1]
            if av:
                combos = [c + tuple(av[:k]) for c in combos for k in range(len(av) + 1)]
        for c in combos:
            k = 1 + len(c)
            if k >= 2:
                need = 3 - k if k < 3 else 0
                if need <= self.total_w:
                    bits = 1 << i
                    for j in c:
                        bits |= 1 << j
                    opts.append((bits, need, k - need, SET, (i,) + c))
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
    def _end_cost(self, need: int, q: int, slack: int) -> int:
        """The cost of the wilds once every card is decided: the unused ones stay in hand,
        the cheapest first."""
        pool = self.jokers + q
        if need > pool:
            return _INF
        room = pool - need
        unused = room - min(room, slack)
        if not unused:
            return 0
        wp, jp = self.wild_points, self.joker_points
        a, b = (q, self.jokers) if wp <= jp else (self.jokers, q)
        va, vb = (wp, jp) if wp <= jp else (jp, wp)
        first = min(unused, a)
        return _POINT * (first * va + (unused - first) * vb) + _CARD * unused

    def _state(self, mask: int, need: int, q: int, slack: int,
               ts: tuple[int, ...]) -> tuple[int, tuple[int, ...], int, object] | None:
        """The state's canonical form: (slack, table runs, the cards, wilds needed and pool as
        one number, memo key), or None when no arrangement follows. A table run is ``(suit,
        low, high, margin)``, its margin its naturals less its wilds, named by its number
        (:class:`_Runs`; 0: laid off onto or folded into the slack); the memo key is the cards,
        wilds needed, pool and slack as one number, and the table runs if the table has any
        that cards of the hand reach. Slack beyond the wilds still free is never used, nor a margin
        beyond them. A run that no undecided card can reach any more (none of its suit within
        as many ranks of either end as wilds are free, or its margin too small to pay for the
        wilds up to the nearest one above) counts only by its slack, and there is no
        arrangement if its wilds outnumber its naturals. Once no card can reach a run from
        below, its low rank is replaced by minus the room it leaves for wilds below it (at most
        the wilds still free), and by 0 once the slack is full."""
        cap = self.total_w - need
        if slack > cap:
            slack = cap
        counted = self._counted(mask) if self.counted else mask
        wb = self._wb
        dom = (counted << wb | need) << wb | q
        if not ts:
            return slack, ts, dom, dom << wb | slack
        out: list[int] | None = None
        suit_mask, runs, suit = self.suit_mask, self._run_states, self.rs.suit
        full = 1 if slack == cap else 0
        for x, st in enumerate(ts):
            if not st:
                continue
            k = (((mask & suit_mask[suit[st]]) << wb | cap) << 1 | full) << 24 | st
            now = runs.get(k)
            if now is None:
                now = runs[k] = self._run_state(st, mask & suit_mask[suit[st]], cap, full == 1)
            if now == st:
                continue
            if out is None:
                out = list(ts)
            if now < 0:  # out of reach: its slack (-2 less it), or -1 if it breaks the limit
                if now == -1:
                    return None
                slack += -2 - now
                if slack > cap:
                    slack = cap
                out[x] = 0
            else:
                out[x] = now
        if out is not None:
            ts = tuple(out)
        return slack, ts, dom, (dom << wb | slack, ts)

    def _run_state(self, st: int, left: int, cap: int, full: bool) -> int:
        """One table run of :meth:`_state` (``left``: the undecided cards of its suit, ``full``:
        whether the slack is full): the run in its canonical form (``st`` itself if unchanged),
        or, once no card can reach it, -2 less the slack it adds (-1: its wilds outnumber its
        naturals). Once no card can reach it from below, its low rank is minus the room below
        it (at most the wilds still free; 0 once the slack is full), and once none can ever
        reach it from above (none of its suit above it within as many ranks as wilds are
        free), its high rank is 14 and the room above it (the same), so that runs that can
        take the same cards are twins (8♣ 9♣ 10♣ and 8♣ 9♣ 10♣ J♣, with 7♣ and no wild to
        come)."""
        rs = self.rs
        s, lo, hi, m = rs.suit[st], rs.low[st], rs.high[st], rs.margin[st]
        above, rank = self.above, self.rank
        down = up = False
        gone = True  # (out of reach from above for good: no card of its suit near enough)
        if lo > 1:  # a card of the suit at most as many ranks below as wilds are free
            b = left & ~above[lo - 1]
            if b:
                down = lo - 1 - rank[b.bit_length() - 1] <= cap
        if hi < 13:  # one above, and a margin that can pay for the wilds up to it
            b = left & above[hi]
            if b:
                g = rank[(b & -b).bit_length() - 1] - hi - 1
                gone = g > cap
                up = not gone and m + _ones(b) >= g
        if m < 0 and (down or up):  # (its wilds outnumber its naturals: only if lay-offs of the
            # cards within reach can still make up for it, :func:`_further`)
            present = self._ranks(left)[0]
            if m + (_further(present, lo, -1) if down else 0) \
                    + (_further(present, hi, 1) if up else 0) < 0:
                return -1
        if down or up:
            if m > cap:
                m = cap
            if not down:  # out of reach from below: minus the room below it
                if full:
                    lo = 0
                elif lo > 0:
                    lo = 1 - lo if lo <= cap else -cap
                elif lo < -cap:
                    lo = -cap
            if gone:  # out of reach from above: 14 and the room above it
                if full:
                    hi = 14
                elif hi <= 13:
                    hi = 27 - hi if 13 - hi <= cap else 14 + cap
                elif hi > 14 + cap:
                    hi = 14 + cap
            return rs.name(s, lo, hi, m)
        if m < 0:
            return -1
        room = (lo - 1 if lo > 0 else -lo) + (13 - hi if hi <= 13 else hi - 14)
        return -2 - (m if m < room else room)

    def _counted(self, mask: int) -> int:
        """``mask`` with the cards whose suit cannot matter counted, not named: of each rank,
        the first ones of that many."""
        c = mask & ~self.counted_all
        for g, first in self.counted:
            c |= first[_ones(mask & g)]
        return c

    def floor(self, mask: int, free: int, ts: tuple[int, ...] | None = None,
              alone: int = 2) -> int:
        """A lower bound of the cost of the undecided cards ``mask`` with ``free`` wilds still
        to come at most: the cards that no meld can take any more stay in hand; each group of
        cards apart from the table leaves at least what it leaves alone, and the other cards
        that need wilds leave at least what the wilds cannot serve (:meth:`_demand`; or all
        of them, the groups apart included, if that says more; two copies of
        :meth:`_copy_pairs` both undecided want a wild together). ``ts``: the table's runs
        (:meth:`_state`; at the start if not given); ``alone``: which groups apart to solve
        alone (the dearest part of the bound): 2 the groups of the undecided cards (of fewer
        than three cards only as parts of the whole hand's), 1 only the parts of the whole
        hand's groups, 0 none."""
        if free > self.total_w:
            free = self.total_w
        elif free < 0:  # (more wilds needed than can come: no arrangement)
            return _INF
        level = self._levels.get(free) or self._level(free)
        apart = 0
        if alone and self.apart:
            whole = self._whole or self._whole_groups()  # (the first groups with solvers)
            left = mask & ~self.wmask
            if alone > 1:
                apart, groups = self._groups.get(left) or self._apart_groups(mask)
            else:  # (the parts of the whole hand's groups)
                apart = left & whole[0]
                groups = [(g, left & g[0]) for g, _ in whole[1] if left & g[0]]
        if apart:
            mask ^= apart
            if ts is None:
                ts = self.ts0
            wild = mask & self.wmask
            key = (apart, wild, free, ts, alone)
            lb = self._apart_memo.get(key)
            if lb is None:
                lb = self._apart_memo[key] = sum(
                    self._apart_cost(g, bits, wild & g[1], free, ts) for g, bits in groups)
        else:
            lb = 0
        stuck = 0
        if mask & level[1]:
            stuck_cost, stuck = level[0].get(mask) or self._stuck(mask, level)
        else:
            stuck_cost = 0
        wanting = mask & self.wanting & ~stuck
        far = 0
        for bit, both in self.pairs:  # (copies that meld together only with a wild)
            if mask & both == both and not stuck & both:
                wanting |= bit
            elif apart & both == both:
                far |= bit
        if wanting:
            lb += self._demand(wanting, free)
        if apart & self.wanting or far:
            lb = max(lb, self._demand(wanting | apart & self.wanting | far, free))
        if not free and mask & self._claiming:  # (the cards above are none of these)
            lb += self._claims(mask, stuck)
        return stuck_cost + lb

    def _claims(self, mask: int, stuck: int) -> int:
        """With no wild to come, a lower bound of what the cards of ``mask`` leave, but the
        ``stuck`` ones, those wanting wilds and the copies of :meth:`_copy_pairs`: a card that
        melds only in a set of its rank, the only three of it in ``mask``, takes the other two,
        and a card that then has no meld stays if it does not (one of each such pair stays,
        the pairs apart). 9♥ beside 9♦ 9♦ 10♦, no other heart, no wild, a diamonds run up to
        8♦ on the table: 10♦ goes onto it only with a 9♦, so 9♥ or 10♦ stays. Memoised by
        ``mask`` (``stuck`` follows from it)."""
        hit = self._claims_memo.get(mask)
        if hit is not None:
            return hit
        rank, rank_mask, cost = self.rank, self._rank_mask, self.cost
        claimants = self._claimants
        if claimants is None:
            loose = (self._levels.get(0) or self._level(0))[1]  # (no wild-rank card, no set
            claimants = self._claimants = [  # of its rank nor run within reach on the table)
                j for j in range(len(rank)) if loose >> j & 1
                and rank_mask[rank[j]].bit_count() >= 3
                and self._want(j, rank_mask[rank[j]] ^ 1 << j)]
            self._claiming = sum(1 << j for j in claimants)
            if not mask & self._claiming:
                return 0
        loose = mask & ~stuck & ~self.wanting
        for _, both in self.pairs:
            loose &= ~both
        out = 0
        for j in claimants:
            if not loose >> j & 1:
                continue
            same = mask & rank_mask[rank[j]]
            if same.bit_count() != 3:
                continue
            mates = same ^ 1 << j
            rivals = self._rivals.get(mates)
            if rivals is None:
                rivals = self._rivals[mates] = self._rivals_of(mates)
            best = bit = 0
            for c, low in rivals:  # (the dearest first)
                if loose & low:
                    best, bit = c, low
                    break
            if bit:
                out += min(cost[j], best)
                loose &= ~bit & ~(1 << j)
        self._claims_memo[mask] = out
        return out

    def _rivals_of(self, mates: int) -> list[tuple[int, int]]:
        """The cards of other ranks that no meld without the cards ``mates`` takes with no
        wild to come, though one with them does (:meth:`_claims`), each as (cost, bit), the
        dearest first."""
        rank, kin, out = self.rank, self._kin, []
        p = rank[mates.bit_length() - 1]
        for k in range(len(rank)):
            if rank[k] != p and mates & kin[k] and not self.wants[k] \
                    and self._want(k, mates & kin[k]):
                out.append((self.cost[k], 1 << k))
        out.sort(reverse=True)
        return out

    def _wants(self) -> list[int]:
        """For each card, the fewest wilds that any meld holding it takes from the wilds to
        come, whatever the other cards do (:meth:`_want`)."""
        return [self._want(j) for j in range(len(self.nat))]

    def _want(self, j: int, absent: int = 0) -> int:
        """The fewest wilds that any meld holding card ``j`` takes from the wilds to come,
        whatever the other cards do (0 for a wild-rank card: it may join the pool): none onto
        the table's set of its rank or with 2 more of its rank (1 with one more); in a new run,
        or with the cards of its suit up to a run on the table, one a rank that no natural card
        but of the wild rank fills (a wild-rank card standing for itself is one of the wilds to
        come too). ``absent``: cards no such meld holds (a bitmask; :meth:`_parts`)."""
        rank, suit, isw = self.rank, self.suit, self.isw
        p, s = rank[j], suit[j]
        if isw[j] or p in self.set_rank:
            return 0
        count = (self._rank_mask[p] & ~absent).bit_count()
        if count >= 3:
            return 0
        best = 1 if count == 2 else _INF
        mine = self.suit_mask[s] & ~absent
        present, natural = self._ranks(mine)
        w = _run_wants(present, natural)[p]
        if w < best:
            best = w
        for lo, hi, margin, beyond in self._suit_runs[s]:  # up to a run on the table (the
            if not lo <= p <= hi:  # cards between laid too)
                a, b = (p, lo) if p < lo else (hi, p)
                w = b - a - 1 - (natural >> (a + 1) & ((1 << (b - a - 1)) - 1)).bit_count()
                # (R4 on the run: the naturals it could gain, the cards of its suit beyond it)
                if w < best and _reaches(present & ~((2 << hi) - (1 << lo)), lo, hi, margin, p):
                    best = w
        return best

    def _ranks(self, cards: int) -> tuple[int, int]:
        """The ranks of the ``cards`` (bits r), and the same but the wild rank. Memoised."""
        out = self._suit_ranks.get(cards)
        if out is None:
            rank, isw = self.rank, self.isw
            present = natural = 0
            bits = cards
            while bits:
                low = bits & -bits
                bits ^= low
                x = low.bit_length() - 1
                present |= 1 << rank[x]
                if not isw[x]:
                    natural |= 1 << rank[x]
            out = self._suit_ranks[cards] = present, natural
        return out

    def _copy_pairs(self) -> list[tuple[int, int]]:
        """The two copies of a card, the only cards of its rank (not the wild rank, no set of
        it on the table), each going into a meld without wilds alone, but no two such melds
        holding one copy each: each meld without wilds to come holds three of a run's places
        around the copy, its naturals of the suit but the wild rank, or them up to a run on the
        table; two such melds share none of its naturals (a run takes one copy of a card) and
        not a run on the table (a copy at one end only). Both copies then meld only with a wild
        to come: 10♦ 10♦ beside 9♦ alone of the diamonds near, with diamonds runs up to 8♦ and
        7♦ on the table. Each pair as the indices of its copies, the lower first."""
        rank, suit, isw = self.rank, self.suit, self.isw
        pairs = []
        for idx in self.by_code.values():
            j = idx[0]
            p, s = rank[j], suit[j]
            if len(idx) != 2 or isw[j] or p in self.set_rank or self.wants[j] \
                    or self._rank_mask[p].bit_count() != 2:
                continue
            count = [0] * 15
            for x in range(len(rank)):
                if suit[x] == s and not isw[x]:
                    count[rank[x]] += 1
            ways: list[tuple[int | None, tuple[int, ...]]] = [
                (None, (p - 2, p - 1)), (None, (p - 1, p + 1)), (None, (p + 1, p + 2))]
            for t, (lo, hi, _, _) in enumerate(self._suit_runs[s]):
                if p < lo:
                    ways.append((t, tuple(range(p + 1, lo))))
                elif p > hi:
                    ways.append((t, tuple(range(hi + 1, p))))
            ways = [w for w in ways if all(1 <= r <= 13 and count[r] for r in w[1])]
            if not any((a is None or a != b) and all(count[r] >= (ra + rb).count(r) for r in ra)
                       for (a, ra), (b, rb) in combinations_with_replacement(ways, 2)):
                pairs.append((idx[0], idx[1]))
        return pairs

    def _demand(self, wanting: int, free: int) -> int:
        """A lower bound of what the cards ``wanting`` leave for want of wilds, ``free`` of them
        to come (:meth:`_short`): each card that needs more stays, and of the cards of
        different suits and ranks that want more together than there are, the cheapest that
        leave the others enough; or, against four table runs or more, what they leave parted
        into melds every way (:meth:`_cover`), if that says more. Memoised."""
        hit = self._demand_memo.get((wanting, free))
        if hit is not None:
            return hit
        wants, cost = self._xwants, self._xcost
        forced, short = self._short(wanting, free)
        out = must = sum(cost[j] for j in range(forced.bit_length()) if forced >> j & 1)
        if short:
            chosen = [(wants[j], cost[j]) for j in range(short.bit_length()) if short >> j & 1]
            least = _INF
            for stay in range(1, 1 << len(chosen)):
                w = c = 0
                for t, (wt, ct) in enumerate(chosen):
                    if stay >> t & 1:
                        c += ct
                    else:
                        w += wt
                if w <= free and c < least:
                    least = c
            out += least
        rest = wanting & ~forced & self.all_mask  # (against four table runs or more,
        # :meth:`_cover`; the cards alone, and the copies of :meth:`_copy_pairs` beside them)
        if self.eager and 1 < rest.bit_count() <= _COVER:
            copies = wanting & ~forced & ~self.all_mask
            out = max(out, must + (self._cover_copies(rest, copies, free) if copies
                                   else self._cover(rest, free)))
        self._demand_memo[wanting, free] = out
        return out

    def _cover_copies(self, wanting: int, copies: int, free: int) -> int:
        """:meth:`_cover` of the cards ``wanting`` beside the ``copies`` of :meth:`_copy_pairs`
        (their bits above the cards) that share no rank with them nor with each other, nor a
        suit unless no run can hold both with the wilds to come (:meth:`_meets`), so no meld
        holds a copy and another of these cards, and no wild serves both: each such pair
        either leaves a copy in hand or takes a wild the others do not get, the cheapest way.
        9♦ 9♦ beside a single 8♦ with J♣ Q♣ Q♣ and two wilds to come: the 9♦s take one wild
        together, and then one of J♣ Q♣ Q♣ stays (they take two), or a 9♦ stays; 8♣ 8♣ beside
        Q♣ and 9♦ with one wild to come, no 9♣ 10♣ J♣: two of an 8♣, Q♣ and 9♦ stay."""
        suit, rank, cost = self._xsuit, self._xrank, self._xcost
        ranks = 0
        near = [0, 0, 0, 0]  # the ranks of each suit among them (bit r)
        m = wanting
        while m:
            j = (m & -m).bit_length() - 1
            m &= m - 1
            near[suit[j]] |= 1 << rank[j]
            ranks |= 1 << rank[j]
        apart = []
        m = copies
        while m:
            j = m.bit_length() - 1
            m ^= 1 << j
            s, p = suit[j], rank[j]
            if not ranks >> p & 1 and not (near[s] and self._meets(s, p, near[s], free)):
                near[s] |= 1 << p
                ranks |= 1 << p
                apart.append(cost[j])
        best = _INF
        for stay in range(1 << len(apart)):
            melded = len(apart) - stay.bit_count()
            if melded <= free:
                c = sum(ct for t, ct in enumerate(apart) if stay >> t & 1)
                if c < best:
                    c += self._cover(wanting, free - melded)
                    if c < best:
                        best = c
        return best

    def _meets(self, s: int, p: int, others: int, free: int) -> bool:
        """Whether a run of suit ``s`` can hold rank ``p`` and one of the ranks ``others``
        (bits) with ``free`` wilds to come: the places between them that no natural card of
        the hand fills (of the suit, not of the wild rank), nor one run on the table lying
        between them, are wild. Q♣ and 8♣, no 9♣ 10♣ J♣ in hand nor on the table between
        them, one wild to come: no run holds both."""
        key = (s, p, others, free)
        hit = self._meets_memo.get(key)
        if hit is None:
            natural = self._ranks(self.suit_mask[s])[1]
            hit = False
            for r in range(1, 14):
                if others >> r & 1 and (self._between(s, p, r, natural) if p < r
                                        else self._between(s, r, p, natural)) <= free:
                    hit = True
                    break
            self._meets_memo[key] = hit
        return hit

    def _cover(self, wanting: int, free: int) -> int:
        """A lower bound of what the cards ``wanting`` leave for want of wilds, ``free`` of them
        to come (none of them wanting more): the cheapest of them to leave such that the others
        go into melds wanting no more wilds together than there are (:meth:`_parts`). 9♣ 9♠ 8♠
        with two wilds to come (no other 9 nor spade near): 9♣ 9♠ take one, 8♠ 9♠ one, but
        then 8♠ alone takes two, 9♣ alone no meld: one of them stays."""
        if self._parts(wanting) <= free:  # (the common case: they all meld)
            return 0
        cost, cards = self.cost, []
        m = wanting
        while m:
            low = m & -m
            m ^= low
            cards.append((cost[low.bit_length() - 1], low))
        left = [(0, 0)]  # (what they leave, the cards left): every subset, the cheapest first
        for c, bit in cards:
            left += [(c + lc, bit | lb) for lc, lb in left]
        left.sort()
        for c, bits in left[1:]:
            if self._parts(wanting ^ bits) <= free:
                return c
        return _INF

    def _parts(self, keep: int, rest: int | None = None) -> int:
        """The fewest wilds to come that the cards ``keep`` (each wanting some) take in melds:
        each meld holds some of them (all of one rank, or of one suit and different ranks) and
        takes at least what each of these takes in any meld without the other cards of ``keep``
        (:meth:`_want`), and a run at least the wilds between its lowest and highest of them
        (:meth:`_span`: 8♣ J♣ Q♣ two, for 9♣ 10♣, though each takes one alone). ``rest``: the
        cards of ``keep`` still to part; if not given, all of them, as many parts as they have
        (cards of no rank nor suit in common share no meld, and what a card takes depends only
        on the cards of its rank and suit). Memoised."""
        if rest is None:
            total = 0
            while keep:
                part = _linked(keep, self._kin)
                keep ^= part
                total += self._parts(part, part)
            return total
        hit = self._parts_memo.get((keep, rest))
        if hit is not None:
            return hit
        if not rest:
            return 0
        rank, suit, memo = self.rank, self.suit, self._wants_memo
        j = (rest & -rest).bit_length() - 1
        mates = rest & (self._rank_mask[rank[j]] | self.suit_mask[suit[j]]) & ~(1 << j)
        best = _INF
        sub = mates
        while True:  # (the lowest card with every subset of its mates)
            group = sub | 1 << j
            ok = True
            ranks = 0
            if sub & ~self._rank_mask[rank[j]]:  # a run: one suit, different ranks
                m = group
                while m:
                    low = m & -m
                    m ^= low
                    x = low.bit_length() - 1
                    if suit[x] != suit[j] or ranks >> rank[x] & 1:
                        ok = False
                        break
                    ranks |= 1 << rank[x]
            if ok:
                absent = keep ^ group
                w, m = 0, group
                while m:
                    low = m & -m
                    m ^= low
                    x = low.bit_length() - 1
                    k = (x, absent & self._kin[x])
                    want = memo.get(k)
                    if want is None:
                        want = memo[k] = self._want(*k)
                    if want > w:
                        w = want
                if ranks & (ranks - 1):  # (a run: the places between its cards)
                    span = self._span(suit[j], ranks, absent)
                    if span > w:
                        w = span
                if w < best:
                    w += self._parts(keep, rest ^ group)
                    if w < best:
                        best = w
            if not sub:
                break
            sub = (sub - 1) & mates
        self._parts_memo[keep, rest] = best
        return best

    def _span(self, s: int, ranks: int, absent: int) -> int:
        """The fewest wilds to come that a run of suit ``s`` holding the ranks ``ranks`` (bits,
        two or more) takes between its lowest and highest: the places there that no natural
        card of the hand but the ``absent`` ones fills (of the suit, not of the wild rank),
        nor one run on the table lying between them (both ends laid onto it): :meth:`_between`."""
        natural = self._ranks(self.suit_mask[s] & ~absent)[1]
        return self._between(s, (ranks & -ranks).bit_length() - 1, ranks.bit_length() - 1,
                             natural)

    def _between(self, s: int, a: int, b: int, natural: int) -> int:
        """The fewest wilds a run of suit ``s`` holding ranks ``a`` < ``b`` takes between them:
        the places there that none of the ranks ``natural`` (bits) fills, nor one run on the
        table lying between them (both ends laid onto it). Memoised."""
        key = (s, a, b, natural)
        hit = self._span_memo.get(key)
        if hit is None:
            inner = (1 << b) - (2 << a)  # (the ranks between, as bits)
            hit = b - a - 1 - (natural & inner).bit_count()
            for lo, hi, _, _ in self._suit_runs[s]:
                if a < lo and hi < b:
                    w = b - a - 1 - (hi - lo + 1) - (natural & inner & ~((2 << hi) - (1 << lo))
                                                     ).bit_count()
                    if w < hit:
                        hit = w
            self._span_memo[key] = hit
        return hit

    def _short(self, wanting: int, free: int) -> tuple[int, int]:
        """Of the cards ``wanting`` wilds, ``free`` of them to come: the cards that need more
        (they stay), and cards of different suits and ranks (never in one meld, so never
        served by one wild: the dearest first, one a suit and a rank) that want more wilds
        together than there are, one of which at least stays, or 0 (bitmasks)."""
        key = (wanting, free)
        hit = self._short_memo.get(key)
        if hit is not None:
            return hit
        wants, suit, rank = self._xwants, self._xsuit, self._xrank
        forced = short = total = suits = ranks = 0
        m = wanting
        while m:
            j = m.bit_length() - 1
            m ^= 1 << j
            w = wants[j]
            if w > free:
                forced |= 1 << j
            elif not (suits >> suit[j] & 1 or ranks >> rank[j] & 1):
                suits |= 1 << suit[j]
                ranks |= 1 << rank[j]
                short |= 1 << j
                total += w
        out = self._short_memo[key] = (forced, short if total > free else 0)
        return out

    def _links(self) -> list[int]:
        """For each card not of the wild rank, the other such cards it may share a meld with
        (bitmasks): those of its rank, and those of its suit within as many ranks as wilds
        could fill (all of a suit with a run on the table)."""
        rank, suit, isw, n = self.rank, self.suit, self.isw, len(self.nat)
        reach = self.total_w + 1
        run_suits = {self.table[t].key for t in self.runs}
        links = [0] * n
        for a in range(n):
            for b in range(a + 1, n):
                if not (isw[a] or isw[b]) and (rank[a] == rank[b] or suit[a] == suit[b] and (
                        rank[b] - rank[a] <= reach or suit[a] in run_suits)):
                    links[a] |= 1 << b
                    links[b] |= 1 << a
        return links

    def _whole_groups(self) -> tuple[int, list[tuple]]:
        """The groups of the whole hand (:meth:`_apart_groups`, of any size), found once: the
        first groups with a solver of their own."""
        self._whole = self._apart_groups(self.all_mask, 1)
        return self._whole

    def _apart_groups(self, mask: int, least: int = 3) -> tuple[int, list[tuple]]:
        """The groups of the undecided cards ``mask`` that can share no meld with any other
        group's cards (:meth:`_links`; cards decided already join nothing); only groups of
        at most ``_APART`` cards with the wild-rank cards of their suits, at most two table
        runs, and, if they take table runs or such cards, fewer than half the hand's, with
        four runs or more on the table (a larger group, or a smaller table, costs as much to
        solve alone as it saves). Their cards (a bitmask), and each as (its cards, the
        wild-rank cards of its suits, which may stand for themselves among them, the table
        runs of its suits by their places in the runs of :meth:`_state`, and the table melds
        of its suits and ranks). A group inside one found before is solved by its solver (its
        memo serves every part of it); a new one has its own from ``least`` cards on (fewer:
        the other bounds say about as much), and, if not of the whole hand, only if it leaves
        something with every wild and the table's runs as laid. Cached by the cards."""
        left = mask & ~self.wmask
        hit = self._groups.get(left)
        if hit is not None:
            return hit
        links, info, apart, out = self._link, self._group_info, 0, []
        rest = left
        while rest:
            g = _linked(rest, links)
            rest ^= g
            group = info.get(g)
            if group is None:  # (part of a group met before: its solver serves)
                group = next((x for x in self._roots if not g & ~x[0]), None)
                if group is None and g.bit_count() >= least:
                    group = self._apart_group(g)
                    if group and least > 1 and not self._apart_cost(
                            group, g, group[1], self.total_w, self.ts0):
                        group = None  # (it leaves nothing even with every wild, as laid)
                    if group:
                        self._roots.append(group)
                info[g] = group
            if group:
                apart |= g
                out.append((group, g))
        hit = self._groups[left] = (apart, out)
        return hit

    def _apart_group(self, g: int) -> tuple | None:
        """One group of :meth:`_apart_groups`, or None if it is not solved alone."""
        if g.bit_count() > _APART:
            return None
        suits = ranks = 0
        m = g
        while m:
            j = (m & -m).bit_length() - 1
            m &= m - 1
            suits |= 1 << self.suit[j]
            ranks |= 1 << self.rank[j]
        wild = sum(self.wmask & self.suit_mask[s] for s in range(4) if suits >> s & 1)
        xs = tuple(x for x, t in enumerate(self.runs) if suits >> self.table[t].key & 1)
        if (g | wild).bit_count() > _APART or len(xs) > 2 or (wild or xs) and (
                2 * (g | wild).bit_count() >= len(self.nat) or not self.eager):
            return None
        melds = [self.table[self.runs[x]] for x in xs] + [
            m for m in self.table if m.kind == SET and ranks >> m.key & 1]
        return g, wild, xs, melds

    def _apart_cost(self, group: tuple, bits: int, wild: int, free: int,
                    ts: tuple[int, ...]) -> int:
        """A lower bound of what the undecided cards ``bits`` of one group apart leave
        (``wild``: the undecided wild-rank cards of its suits, ``ts``: the table's runs): what
        the group alone leaves with those wild-rank cards (one left over counts nothing) and
        every other wild still to come as jokers (with no run on the table, at most one a card
        of the group: the wilds of a new meld never outnumber its naturals), the table's runs
        of its suits as they stand and the sets of its ranks; less the wilds left over (they
        count a card each there, not here), or else its points alone and a card for every 13
        of them; and never less than its cards that no meld can take (:meth:`_stuck`)."""
        g, wilds, xs, melds = group
        mine = tuple(ts[x] for x in xs)
        key = (bits, wild, free, mine)
        out = self._alone.get(key)
        if out is None:
            most = self.total_w if xs else g.bit_count() + wilds.bit_count()
            k = min(most, max(0, free - wild.bit_count()))  # (those are wilds to come too)
            sub = self._alone_solvers.get(g)
            if sub is None:  # (one solver for the group: its memo serves every part of it, the
                # jokers beyond k taken as needed already)
                cards = [c for j, c in enumerate(self.nat) if (g | wilds) >> j & 1]
                sub = self._alone_solvers[g] = _Solver(
                    cards + [JOKER] * most, self.wild_rank, melds, 0, apart=False, runs=self.rs)
                sub.wild_points = 0
            part, t = 0, 0
            undecided = bits | wild
            for j in range(len(self.nat)):
                if (g | wilds) >> j & 1:
                    part |= (undecided >> j & 1) << t
                    t += 1
            runs = tuple(mine[x] for x in sub.runs) if xs else ()
            cost = sub.solve(part, most - k, 0, 0, runs)  # (each wild left over: a card)
            level = self._levels.get(free) or self._level(free)
            points = cost // _POINT  # (and a card for every 13 points at least)
            out = self._alone[key] = max(
                points * _POINT - (-points // 13) * _CARD, cost - (k + wilds.bit_count()) * _CARD,
                self._stuck(bits | wild, level)[0])
        return out

    def stuck(self, mask: int) -> int:
        """The cards of ``mask`` that no meld can take, whatever the wilds (a bitmask)."""
        level = self._levels.get(self.total_w) or self._level(self.total_w)
        if not mask & level[1]:
            return 0
        hit = level[0].get(mask)
        return (hit or self._stuck(mask, level))[1]

    def _stuck(self, mask: int, level: _Level) -> tuple[int, int]:
        """(their cost, their bits) for the cards of ``mask`` stuck at this ``level``."""
        lb = bits = 0
        partners, pairs, cost = level[2], level[3], self.cost
        m = mask & level[1]
        while m:
            low = m & -m
            m ^= low
            j = low.bit_length() - 1
            if not mask & partners[j] and (pairs is None or (mask & pairs[j]).bit_count() < 2):
                lb += cost[j]
                bits |= low
        out = level[0][mask] = (lb, bits)
        return out

    def _level(self, free: int) -> _Level:
        """With ``free`` wilds to come: the lower bounds found so far (by undecided cards), the
        cards that may have to stay (not of the wild rank, no set of their rank and no run
        within reach on the table), and the cards each of them needs one of to go into a
        meld: another of its rank, or a run mate. With no wild to come, a set needs two more
        of its rank: then the others of its rank are listed apart (it needs two of them)."""
        loose, partners = 0, [0] * len(self.nat)
        pairs = [0] * len(self.nat) if free == 0 else None
        rank_mask, set_rank, gap, isw = self._rank_mask, self.set_rank, self._gap, self.isw
        for j, r in enumerate(self.rank):
            if not (isw[j] or r in set_rank or gap[j] <= free):
                loose |= 1 << j
                partners[j] = self._run_mates(j, free)
                if pairs is None:
                    partners[j] |= rank_mask[r] ^ (1 << j)
                else:
                    pairs[j] = rank_mask[r] ^ (1 << j)
        level: _Level = ({}, loose, partners, pairs)
        self._levels[free] = level
        return level

    def _run_mates(self, j: int, free: int) -> int:
        """The cards of card ``j``'s suit it could make a run with, the ranks between them
        wild (a wild-rank card standing for itself is one wild less)."""
        r = self.rank[j]
        reach = free + 1 - self.isw[j]
        if reach < 1:
            return 0
        above = self.above
        mates = self.suit_mask[self.suit[j]] & above[r - reach - 1 if r > reach else 0] \
            & ~above[r + reach if r + reach < 14 else 14] & ~self._rank_mask[r]
        if -reach < self.wild_rank - r < reach:
            return mates
        return mates & ~self.wmask

    def _free(self, mask: int, need: int, q: int) -> int:
        """The most wilds that can still be placed: the pool and the undecided wild-rank
        cards, less those needed already."""
        return self.jokers + q + _ones(mask & self.wmask) - need

    def solve(self, mask: int, need: int, q: int, slack: int, ts: tuple[int, ...],
              budget: int = _INF) -> int:
        """The least cost of the undecided cards ``mask`` and the wilds if it is at most
        ``budget``; else a lower bound of it above ``budget``. The memo keeps, for each
        canonical state searched to the end, its cost and the first choice in the canonical
        order that reaches it (the points it leaves, the next state, and the undecided cards
        it was found for); ``bounds`` keeps what is known of the others."""
        state = self._state(mask, need, q, slack, ts)
        if state is None:
            return _INF
        slack, ts, dom, key = state
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0]
        bound = self.bounds.get(key, 0)
        if bound > budget:
            return bound
        if ts:  # (a state offering as much costs no more: what it costs at least)
            for more, other, lb in self._dom.get(dom, ()):
                if lb > budget and more >= slack and self.rs.covers(other, ts):
                    self.bounds[key] = lb
                    return lb
        if self._quick >= 0:  # (the search within the lower bound: a few states at most)
            self._quick -= 1
            if not self._quick:
                raise _Enough
        if not mask:
            cost = self._end_cost(need, q, slack)
            self.memo[key] = (cost, None)
            return cost
        free = self._free(mask, need, q)
        if free < 0:
            self.memo[key] = (_INF, None)
            return _INF
        left = mask & ~self.wmask  # (the groups apart solved alone once these cards are met
        alone = self.alone  # again; the first time only the whole hand's, against four runs
        if left not in self._met:  # or more)
            self._met.add(left)
            alone = 1 if self.eager else 0
        # (a choice costing the lower bound wins; without the groups apart, the bound known)
        if alone and self.apart:
            least = self.floor(mask, free, ts, alone)
        else:
            least = self._known_floor(mask, free)
        if least > budget:
            self.bounds[key] = least
            if ts:
                self._dom.setdefault(dom, []).append((slack, ts, least))
            return least
        best = budget + 1 if budget < _INF else _INF
        bound = _INF  # the least of what the choices not taken are known to cost at least
        choice = None
        # (the best so far, and the least lower bound of the choices not searched since no
        # better than it: :meth:`_moves` does not offer those, :meth:`_promising`)
        cell = [best, _INF]
        for extra, m, nn, nq, ns, x, st, move in self._moves(mask, need, q, slack, ts, cell):
            nts = ts if x < 0 else _put(ts, x, st)
            c = extra + self.solve(m, nn, nq, ns, nts, best - 1 - extra)
            if c < best:
                best, choice = c, (extra, (m, nn, nq, ns, nts), move, mask)
                cell[0] = best
                if best <= least:
                    break
            elif c < bound:
                bound = c
        if cell[1] < bound:
            bound = cell[1]
        if best > budget:  # nothing within the budget
            self.bounds[key] = bound
            if ts:
                self._dom.setdefault(dom, []).append((slack, ts, bound))
            return bound
        self.memo[key] = (best, choice)
        if ts:
            self._dom.setdefault(dom, []).append((slack, ts, best))
        return best

    def _moves(self, mask: int, need: int, q: int, slack: int, ts: tuple[int, ...],
               cell: list[int]) -> Iterator[_Move]:
        """The choices for the lowest undecided card, in the canonical order (:data:`_Move`),
        but those that cannot beat the best so far (``cell``, :meth:`_promising`). Lay-offs
        first (at equal cost a lay-off is kept rather than a new meld), then new melds, and
        leaving the card last."""
        i = (mask & -mask).bit_length() - 1
        bit = 1 << i
        cap = total_w = self.total_w
        t = self.set_rank.get(self.rank[i])
        if t is not None and self._promising(cell, 0, mask ^ bit, need, q):  # the table's set
            yield 0, mask ^ bit, need, q, min(cap, slack + 1), -1, 0, ("layset", t)
        if ts:
            yield from self._table_runs(i, mask, need, q, slack, ts, cell)
        for bits, nm, sm, kind, idx in self.options(mask):
            nn = need + nm
            if nn <= total_w and self._promising(cell, 0, mask ^ bits, nn, q):
                yield 0, mask ^ bits, nn, q, min(cap, slack + sm), -1, 0, (kind, idx, nm)
        if self.isw[i]:  # a wild-rank card not standing for itself joins the wild pool
            if self._promising(cell, 0, mask ^ bit, need, q + 1):
                yield 0, mask ^ bit, need, q + 1, slack, -1, 0, _RELEASE
        elif self._promising(cell, self.cost[i], mask ^ bit, need, q):
            yield self.cost[i], mask ^ bit, need, q, slack, -1, 0, _DEAD

    def _promising(self, cell: list[int], extra: int, m: int, nn: int, nq: int) -> bool:
        """Whether a choice leaving ``extra`` points, and the undecided cards ``m`` with ``nn``
        wilds needed and ``nq`` in the pool, may beat the best so far (``cell[0]``, if any):
        its points and the lower bound of the cards it leaves (the groups apart aside, once
        found: :meth:`_known_floor`) below it. If not, it is not searched, and that bound is kept in
        ``cell[1]`` (the least of them: what the state costs at least, if nothing beats it)."""
        best = cell[0]
        if best >= _INF:
            return True
        c = extra + self._known_floor(m, self._free(m, nn, nq))
        if c < best:
            return True
        if c < cell[1]:
            cell[1] = c
        return False

    def _known_floor(self, mask: int, free: int) -> int:
        """:meth:`floor` without the groups apart (they bound a state once it is met, in
        :meth:`solve`), memoised by the cards and the wilds to come (``_floors``)."""
        k = mask << self._fb | free + self.total_w
        c = self._floors.get(k)
        if c is None:
            c = self._floors[k] = self.floor(mask, free, None, 0)
        return c

    def _table_runs(self, i: int, mask: int, need: int, q: int, slack: int,
                    ts: tuple[int, ...], cell: list[int]) -> Iterator[_Move]:
        """Lay the card off onto a run on the table, at its low end (with the cards of the suit
        up to the run) or its high end (with any higher cards of the suit), gaps wild. A run
        extended upwards can take nothing more (lower cards are decided first), so it is
        folded into the slack at once."""
        s, p = self.suit[i], self.rank[i]
        free = self.total_w - need
        rs = self.rs
        for x, st in enumerate(ts):
            if not st or rs.suit[st] != s:
                continue
            lo, hi, m = rs.low[st], rs.high[st], rs.margin[st]
            if lo <= p <= hi or _twin(ts, x):  # (a twin run, the same suit and state: the first)
                continue
            if p < lo:
                for gaps, k, bits, idx in self._downs(mask, lo):
                    if gaps <= free and self._promising(cell, 0, mask ^ bits, need + gaps, q):
                        yield 0, mask ^ bits, need + gaps, q, slack, x, \
                            rs.name(s, p, hi, m + k - gaps), ("down", x, idx)
            else:
                start = p - hi - 1
                below = lo - 1 if lo > 0 else -lo
                for inner, top, k, bits, idx in self._ups(mask):
                    gaps = start + inner
                    margin = m + k - gaps
                    if gaps <= free and margin >= 0 and \
                            self._promising(cell, 0, mask ^ bits, need + gaps, q):
                        room = below + 13 - top
                        yield 0, mask ^ bits, need + gaps, q, \
                            slack + (margin if margin < room else room), x, 0, ("up", x, idx)

    def _downs(self, mask: int, lo: int) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """The ways to lay the lowest card of ``mask`` off below a run that starts at rank
        ``lo``: (wilds for the gaps, cards laid, their bits, their indices), taking along any
        of the cards of its suit between them, in the canonical order."""
        key = mask << 4 | lo  # (a rank above the card's: 2 to 13)
        out = self._down_cache.get(key)
        if out is None:
            i = (mask & -mask).bit_length() - 1
            p = self.rank[i]
            avail = [a for a in self._suit_avail(i, mask) if a[0] < lo]
            out = []
            for chosen in _fillers(avail, lo - p - 1, self.total_w):
                k = 1 + len(chosen)
                idx = (i,) + tuple(j for _, j in chosen)
                out.append(((lo - p) - k, k, sum(1 << j for j in idx), idx))
            self._down_cache[key] = out
        return out

    def _ups(self, mask: int) -> list[tuple[int, int, int, int, tuple[int, ...]]]:
        """The ways to lay the lowest card of ``mask`` off above a run, with any of the higher
        cards of its suit: (wilds for the gaps above the card, the top rank, cards laid, their
        bits, their indices), in the canonical order."""
        out = self._up_cache.get(mask)
        if out is None:
            i = (mask & -mask).bit_length() - 1
            p = self.rank[i]
            out = []
            for chosen in _subsets(self._suit_avail(i, mask), self.total_w, first=p):
                k = 1 + len(chosen)
                top = chosen[-1][0] if chosen else p
                idx = (i,) + tuple(j for _, j in chosen)
                out.append((top - p + 1 - k, top, k, sum(1 << j for j in idx), idx))
            self._up_cache[mask] = out
        return out

    def arrange(self) -> Arrangement:
        """Follow the best arrangement from the start: at each state the first choice whose
        cost is the state's cost (the cost searched within the lower bound first, for
        ``_QUICK`` states at most, then with no budget)."""
        state = (self.all_mask, 0, 0, self.base_slack, self.ts0)
        least = self.floor(self.all_mask, self._free(*state[:3]), None, 0)
        self._quick = _QUICK  # (an arrangement meeting the lower bound, in a few states; then
        try:  # any)
            cost = self.solve(*state, least)
        except _Enough:
            cost = _INF
        self._quick = -1
        if cost > least:
            cost = self.solve(*state)
        nat = self.nat
        new: list[tuple[str, tuple[int, ...], int]] = []   # kind, indices, wilds needed
        set_adds: dict[int, list[int]] = {}
        ext: dict[int, list] = {}                            # relevant run x -> [down, up]
        dead: list[int] = []
        released: list[int] = []
        while state[0]:
            mask, need, q, slack, ts = state
            canon = self._state(mask, need, q, slack, ts)
            assert canon is not None  # (the state was searched)
            slack, ts, _, key = canon
            i = (mask & -mask).bit_length() - 1
            choice = self.memo[key][1]
            if choice is not None and choice[3] == mask:  # (the key counts some cards: the
                extra, args, move, _ = choice            # choice is kept for these ones)
            else:
                for extra, m, nn, nq, ns, x, st, move in self._moves(mask, need, q, slack, ts,
                                                                     [_INF, _INF]):
                    args = (m, nn, nq, ns, ts if x < 0 else _put(ts, x, st))
                    if extra + self.floor(args[0], self._free(*args[:3]), args[4]) <= cost and \
                            extra + self.solve(*args, cost - extra) == cost:
                        break
                else:
                    raise AssertionError("no choice reaches the state's cost")
            cost -= extra
            state = args
            kind = move[0]
            if kind == "dead":
                dead.append(nat[i])
            elif kind == "release":
                released.append(nat[i])
            elif kind in (SET, RUN):
                new.append(move)
            elif kind == "layset":
                set_adds.setdefault(move[1], []).append(nat[i])
            else:  # down / up onto a table run
                ext.setdefault(move[1], [None, None])[0 if kind == "down" else 1] = move[2]
        return self._build(new, set_adds, ext, dead, released, state[1])

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
        """Whether the cards of ``mask`` and the jokers (``out_jokers`` of them) all go into
        new melds (``q``: the wild-rank cards given to the wild pool so far). The wild-rank
        cards are decided only as naturals in runs or as wilds: a set of the wild rank is made
        at the end from the pool (:meth:`pool_fits`), since which of them it takes does not
        matter. More slack never hurts, so the memo keeps, for the rest of a state, the most
        slack known too little and the least known enough."""
        if not mask:
            return self.pool_fits(need, q, slack, self.out_jokers)
        jokers = self.out_jokers
        free = jokers + q + (mask & self.wmask).bit_count() - need
        if free < 0:  # (too few wilds)
            return False
        if slack > free:  # (more slack than wilds can be left over)
            slack = free
        key = (self._counted(mask) if self.counted else mask, need, q, jokers)
        memo = self.out_memo
        hit = memo.get(key)  # (the most slack known too little, the least known enough)
        if hit is not None:
            if slack <= hit[0]:
                return False
            if slack >= hit[1]:
                return True
        else:
            hit = memo[key] = [-1, _INF]
        res = False
        if not self._stays(mask, free):
            runs, melds = self.out_options(mask, free)
            i = (mask & -mask).bit_length() - 1
            if self.isw[i] and self.full(mask ^ (1 << i), need, q + 1, slack):
                res = True
            else:
                for _, bits, nm, sm in runs if self.isw[i] else melds:
                    if self.full(mask ^ bits, need + nm, q, slack + sm):
                        res = True
                        break
        if res:
            hit[1] = slack
        else:
            hit[0] = slack
        return res

    def _stays(self, mask: int, free: int) -> bool:
        """Whether a card of ``mask`` stays with ``free`` wilds to come (0 to the wilds there
        are): whether :meth:`floor` is above 0 (a card no meld can take, or the cards wanting
        wilds leaving one), found without its sums."""
        if self.apart:
            return self.floor(mask, free) > 0
        level = self._levels.get(free) or self._level(free)
        if mask & level[1] and (level[0].get(mask) or self._stuck(mask, level))[1]:
            return True
        wanting = mask & self.wanting
        for bit, both in self.pairs:  # (copies that meld together only with a wild)
            if mask & both == both:
                wanting |= bit
        return bool(wanting) and self._demand(wanting, free) > 0

    def pool_fits(self, need: int, q: int, slack: int, jokers: int) -> bool:
        """Whether the wild pool (``q`` wild-rank cards and ``jokers``) fills the
        ``need`` of the melds with the rest within their ``slack`` or in a set of the wild rank
        (R4: its wild-rank cards stand for themselves, so it holds 3 or more cards, no more
        jokers than wild-rank cards)."""
        left = jokers + q - need
        if left < 0:
            return False
        if left <= slack:
            return True
        if q < 2 or q == 2 and not jokers:  # (no set of the wild rank)
            return False
        return max(3, left - slack) <= min(left, q + min(q, jokers))

    def group_of(self, card: int) -> int:
        """The counted group (a bitmask) of ``card``, or minus one less its code if none."""
        return -1 - card if card == JOKER else self.group[self.by_code[card][0]]

    def full_without(self, card: int) -> bool:
        """Whether the hand less one ``card`` goes into new melds entirely."""
        if card == JOKER:
            self.out_jokers -= 1
            try:
                return self.full(self.all_mask, 0, 0, 0)
            finally:
                self.out_jokers += 1
        return self.full(self.all_mask ^ 1 << self.by_code[card][-1], 0, 0, 0)

    def group_bit(self, card: int) -> int:
        """The bits of ``card``'s group in :meth:`discards` (the joker's bit for a joker)."""
        return self.joker_bit if card == JOKER else self.group_bits[self.by_code[card][0]]

    def each_discard(self) -> int:
        """The cards of the hand whose discard lets every other card go into new melds, as
        :meth:`discards` gives them, found one discard at a time (:meth:`full_without`, its
        memo shared by all): among the cards that must stay if any (two: none, one: only it),
        or else among those of the cards wanting more wilds together than there are, or else
        a joker and one card of each group (a wild-rank card only if the joker's discard lets
        the hand go out: a wild-rank card left in hand does all a joker does, R4)."""
        mask, n = self.all_mask, len(self.nat)
        free = self.total_w
        level = self._levels.get(free) or self._level(free)
        stuck = self._stuck(mask, level)[1] if mask & level[1] else 0
        if stuck & (stuck - 1):
            return 0
        if not stuck:
            forced, short = self._short(mask & self.wanting, free)
            stuck = forced or short
            if forced & (forced - 1):
                return 0
        if stuck:
            tries = [j for j in range(n) if stuck >> j & 1]
        else:
            tries = list({g: j for j, g in reversed(list(enumerate(self.group)))}.values())
        found = 0
        joker = self.jokers and not stuck  # (a joker first: a wild-rank card kept does all a
        if joker and self.full_without(JOKER):  # joker does, so if the joker's discard
            found |= self.joker_bit  # fails, so does a wild-rank card's)
            joker = False
        isw = self.isw
        for j in tries:
            if not (found & 1 << j or joker and isw[j]) and self.full(mask ^ 1 << j, 0, 0, 0):
                found |= self.group_bits[j]
        return found

    def one_off(self, mask: int, need: int, q: int, slack: int) -> frozenset:
        """The cards of :meth:`discards`, each as its :meth:`group_of`."""
        found = self.discards(mask, need, q, slack)
        out = {self.group[j] for j in range(len(self.group)) if found >> j & 1}
        if found & self.joker_bit:
            out.add(-1 - JOKER)
        return frozenset(out)

    def discards(self, mask: int, need: int, q: int, slack: int) -> int:
        """The cards whose discard lets every other card (jokers too) go into new melds, as
        bits: the bits of each one's group (a card of a counted group answers for all of them,
        a card for its copies), and :attr:`joker_bit` for a joker; the wild-rank cards decided
        as in :meth:`full`. The search of a state stops once every card it holds is found, and
        skips a choice after which no card is left that is not found yet."""
        free = self.jokers + q + (mask & self.wmask).bit_count() - need
        if slack > free:  # (more slack than wilds can be left over)
            slack = free if free > 0 else 0
        key = ("one", self._counted(mask) if self.counted else mask, need, q, slack)
        memo = self.out_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        if not mask:
            res = self.joker_bit if self.jokers and \
                self.pool_fits(need, q, slack, self.jokers - 1) else 0
            memo[key] = res
            return res
        res = 0
        short = 0
        if free < 0:
            stuck = -1  # (too few wilds)
        else:  # the cards that must stay: no meld can take them, or they want too many wilds
            level = self._levels.get(free) or self._level(free)
            stuck = (level[0].get(mask) or self._stuck(mask, level))[1] if mask & level[1] \
                else 0
            if not stuck & (stuck - 1):
                forced, short = self._short(mask & self.wanting & ~stuck, free)
                stuck |= forced
        if stuck & (stuck - 1):  # two that must stay (or no wilds): none
            pass
        elif stuck:  # one: only it can be the discard
            if self.full(mask ^ stuck, need, q, slack):
                res = self.group_bits[stuck.bit_length() - 1]
        elif short:  # one of these at least stays: the discard is one of them
            for j in range(short.bit_length()):
                if short >> j & 1 and self.full(mask ^ 1 << j, need, q, slack):
                    res |= self.group_bits[j]
        else:
            i = (mask & -mask).bit_length() - 1
            bit = 1 << i
            if self.full(mask ^ bit, need, q, slack):  # discard this card
                res = self.group_bits[i]
            isw = self.isw[i]
            if isw:
                res |= self.discards(mask ^ bit, need, q + 1, slack)
            runs, melds = self.out_options(mask, free)
            jb = self.joker_bit
            for _, bits, nm, sm in runs if isw else melds:
                if not (res and not (mask ^ bits | jb) & ~res):  # (nothing new there)
                    res |= self.discards(mask ^ bits, need + nm, q, slack + sm)
                    if res and not (mask | jb) & ~res:  # (every card it holds found)
                        break
        memo[key] = res
        return res


@lru_cache(maxsize=1 << 12)
def _run_wants(have: int, nat: int) -> tuple[int, ...]:
    """For each rank p of a suit (bit p of ``have``, the ranks of the suit in the hand; ``nat``
    the same but the wild rank), the fewest wilds to come that a new run holding p takes: one
    a place that no natural card but of the wild rank fills, its naturals at least as many as
    its wilds (R4). A best run is 3 long or ends at cards of the hand at both ends (a place
    at an end that no card fills can go)."""
    ranks = [r for r in range(1, 14) if have >> r & 1]
    best = [_INF] * 14
    windows = [(lo, lo + 2) for lo in range(1, 12)] + [
        (lo, hi) for lo in ranks for hi in ranks if hi - lo >= 3]
    for lo, hi in windows:
        span = (1 << (hi - lo + 1)) - 1
        k = (have >> lo & span).bit_count()
        if hi - lo + 1 - k <= k:
            w = hi - lo + 1 - (nat >> lo & span).bit_count()
            for p in ranks:
                if lo <= p <= hi and w < best[p]:
                    best[p] = w
    return tuple(best)


def _reaches(ranks: int, lo: int, hi: int, margin: int, p: int) -> bool:
    """Whether a run on the table from ``lo`` to ``hi`` whose naturals outnumber its wilds by
    ``margin`` can be extended to rank ``p`` (outside it) keeping its wilds no more than its
    naturals (R4), with the hand's cards of its suit at the ranks ``ranks`` (bits, none within
    it): each place it gains is a natural where the hand has the card, else a wild; it gains
    every place between it and ``p``, and at either end any further places that gain it more
    naturals than wilds. 7♥ does not reach Jo J♥ Q♥ Jo (10 to K, two naturals, two wilds): 8♥
    and 9♥ would be wild, and the hand's 3♥ beyond gains nothing (three wild places to it)."""
    a, b = (p, lo) if p < lo else (hi, p)
    inner = (ranks >> (a + 1) & ((1 << (b - a - 1)) - 1)).bit_count()
    gain = 1 + 2 * inner - (b - a - 1)  # (p natural, the places between filled or wild)
    if p < lo:
        gain += _further(ranks, p, -1) + _further(ranks, hi, 1)
    else:
        gain += _further(ranks, lo, -1) + _further(ranks, p, 1)
    return margin + gain >= 0


def _further(ranks: int, x: int, step: int) -> int:
    """The most naturals less wilds a run gains past rank ``x`` (``step`` -1: below it, 1:
    above it), with the cards at the ranks ``ranks`` (bits): none if it gains nothing."""
    best = net = 0
    x += step
    while 1 <= x <= 13:
        net += 1 if ranks >> x & 1 else -1
        if net > best:
            best = net
        x += step
    return best


class _Runs:
    """The states of the table runs met by one search (and the searches of its groups apart),
    each ``(suit, low, high, margin)`` named by a number from 1 on, so that a state's runs are
    a tuple of small numbers (0: a run laid off onto or folded into the slack), quick to hash
    and compare."""

    def __init__(self) -> None:
        self.names: dict[int, int] = {}
        self.suit: list[int] = [0]
        self.low: list[int] = [0]
        self.high: list[int] = [0]
        self.margin: list[int] = [0]
        self.span: list[int] = [0]  # the number of its suit, low and high (a margin aside)
        self._spans: dict[int, int] = {}

    def name(self, s: int, lo: int, hi: int, m: int) -> int:
        """The number of the run ``(s, lo, hi, m)``."""
        k = ((s << 8 | lo + 128) << 8 | hi) << 10 | m + 512
        n = self.names.get(k)
        if n is None:
            n = self.names[k] = len(self.suit)
            self.suit.append(s)
            self.low.append(lo)
            self.high.append(hi)
            self.margin.append(m)
            self.span.append(self._spans.setdefault(k >> 10, len(self._spans) + 1))
        return n

    def covers(self, ts: tuple[int, ...], other: tuple[int, ...]) -> bool:
        """Whether the table runs ``ts`` offer all that ``other`` do: each run of ``other`` is
        in ``ts``, with a margin no smaller (a run offers what it did before a lay-off took
        it)."""
        span, margin = self.span, self.margin
        for x in range(len(other)):
            b = other[x]
            if b:
                a = ts[x]
                if a != b and (not a or span[a] != span[b] or margin[a] < margin[b]):
                    return False
        return True


_RELEASE, _DEAD = ("release",), ("dead",)  # (what a choice lays: see :meth:`_Solver.arrange`)


def _twin(ts: tuple[int, ...], x: int) -> bool:
    """Whether a table run before the ``x``-th is in the same state (a twin: the first is tried)."""
    st = ts[x]
    for y in range(x):
        if ts[y] == st:
            return True
    return False


def _put(ts: tuple[int, ...], x: int, st: int) -> tuple[int, ...]:
    """The table runs ``ts`` with the ``x``-th now ``st``."""
    out = list(ts)
    out[x] = st
    return tuple(out)


class _Enough(Exception):
    """The search within the lower bound has searched its :data:`_QUICK` states."""


def _linked(cards: int, links: list[int]) -> int:
    """The cards of ``cards`` linked to the lowest of them, directly or through others
    (``links``: each card's links, bitmasks)."""
    group = front = cards & -cards
    while front:  # (the cards joined to the group, until no new one)
        near = 0
        while front:
            low = front & -front
            front ^= low
            near |= links[low.bit_length() - 1]
        front = near & cards & ~group
        group |= front
    return group


def _first(option: tuple) -> int:
    """An option's first field (its sort key)."""
    return option[0]


def _lowest(bits: int, count: int) -> int:
    """The lowest ``count`` set bits of ``bits``."""
    out = 0
    for _ in range(count):
        low = bits & -bits
        out |= low
        bits ^= low
    return out


def _below(lo: int) -> int:
    """The room for wilds below a table run: its low rank less one, or, once no card can reach
    it from below, that room (capped) as a number not above 0."""
    return lo - 1 if lo > 0 else -lo


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
    out: list[tuple[tuple[int, int], ...]] = [()]
    stack: list[tuple[int, int, int, tuple[tuple[int, int], ...]]] = [(0, first, 0, ())]
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


def _compiled():
    """The build of this module that ``compile_melds.py`` compiled with mypyc, if it is there
    and was built from this source as it is now (its ``_SOURCE``: the source's hash), and
    ``CARDARENA_SOLVER`` is not ``python``; else None: a stale build is never taken."""
    package = __name__.rpartition(".")[0]
    if __name__.endswith("_melds_fast") or not package \
            or os.environ.get("CARDARENA_SOLVER") == "python":
        return None  # (the compiled build runs this too; a module loaded from its file alone)
    try:
        fast = importlib.import_module(package + "._melds_fast")
    except ImportError:
        return None
    with open(__file__, "rb") as f:
        source = hashlib.sha256(f.read()).hexdigest()
    return fast if getattr(fast, "_SOURCE", None) == source else None


_FAST = _compiled()
#: whether the solver runs compiled (mypyc) or as Python
COMPILED = _FAST is not None
if _FAST is not None:  # (every name of the module, its classes included, from the build)
    globals().update({k: v for k, v in vars(_FAST).items() if not k.startswith("__")
                      and k not in ("_SOURCE", "_FAST", "COMPILED", "_compiled")})
