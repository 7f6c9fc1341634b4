"""Standings inside one league: points, places, seats, head-to-head and duplicate sets.

Ratings (:mod:`cardarena.ratings.rating`) say how strong a bot is across everything it played;
standings say how a league went. They are computed from the league's finished matches
(:meth:`cardarena.ratings.Ledger.league_results`) by :func:`standings`, a pure function, and
shown by ``cardarena league show``; :func:`gauntlet` gives a gauntlet bot's results against each
opponent.

Points: in a match of K seats a bot earns one point for every seat placed below it and half a
point for every other seat sharing its place, so a K-seat match is worth K − 1 points to its
winner. The table is ranked by points per match, then mean place, then name. A mean place comes
with its 95 % interval (Student's t). A seat whose bot was absent (never connected during the
match) counts as the forfeit it is, and the table counts those seats apart (``absent``).

Design notes and measurements: docs/ledger.md (standings).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from .models import FINISHED, SeatResults

# Student's t at 97.5 % (two-sided 95 %) for 1…30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t975(df: int) -> float:
    """Student's t quantile at 97.5 % for ``df`` degrees of freedom (beyond 30: the Cornish–Fisher
    expansion z + (z³ + z) / 4df, within 0.002 of the exact value)."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df)


def mean_interval(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """(mean, low, high) of a 95 % t interval for the mean; low/high None for fewer than 2 values."""
    n = len(values)
    if n == 0:
        return (math.nan, None, None)
    mean = math.fsum(values) / n
    if n < 2:
        return (mean, None, None)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t975(n - 1) * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def match_points(places: Sequence[int], seat: int) -> float:
    """The points of ``seat``: 1 per seat placed below it, ½ per other seat sharing its place."""
    mine = places[seat]
    below = sum(1 for p in places if p > mine)
    tied = sum(1 for p in places if p == mine) - 1
    return below + tied / 2


@dataclass(frozen=True)
class Standing:
    """One bot's line of the league table."""

    rank: int
    bot: str
    matches: int
    points: float
    points_per_match: float
    wins: int  # place 1, shared or not
    mean_place: float | None
    place_low: float | None  # the 95 % interval of the mean place
    place_high: float | None
    mean_score: float | None
    faults: int
    forfeits: int
    seat_matches: list[int]  # by seat
    seat_mean_place: list[float | None]  # by seat
    absent: int = 0  # of its forfeits, the matches it was absent from (never connected: not rated)


@dataclass(frozen=True)
class SeatStanding:
    """One seat of the table, over every bot that sat in it."""

    seat: int
    matches: int
    mean_place: float | None
    mean_score: float | None
    wins: int


@dataclass(frozen=True)
class HeadToHead:
    """Two bots over the matches where both sat: how often ``bot`` placed above ``other``."""

    bot: str
    other: str
    meetings: int
    above: int
    below: int
    tied: int


@dataclass(frozen=True)
class DuplicateSet:
    """One duplicate set: the same deal in every seat rotation of one group."""

    set: int
    seed: int | None  # the set's deal, once every rotation is finished (until then it is secret)
    matches: int
    finished: int
    bots: list[str]
    total_score: list[float]  # by bot of ``bots``, over its finished rotations
    mean_place: list[float | None]
    rank: list[int | None]  # by mean place once the set is complete, else None

    @property
    def complete(self) -> bool:
        return self.finished == self.matches


@dataclass(frozen=True)
class DuplicateStanding:
    """One bot over the complete duplicate sets it played."""

    bot: str
    sets: int
    set_wins: int
    mean_set_rank: float | None
    total_score: float


@dataclass(frozen=True)
class LeagueStandings:
    matches: int
    finished: int
    seats: int
    table: list[Standing]
    by_seat: list[SeatStanding]
    head_to_head: list[HeadToHead]  # both orders of every pair that met
    sets: list[DuplicateSet] = field(default_factory=list)
    duplicate: list[DuplicateStanding] = field(default_factory=list)

    def pair(self, bot: str, other: str) -> HeadToHead:
        for h in self.head_to_head:
            if h.bot == bot and h.other == other:
                return h
        return HeadToHead(bot, other, 0, 0, 0, 0)

    def to_json(self) -> dict:
        d = asdict(self)
        for s, row in zip(d["sets"], self.sets):
            s["complete"] = row.complete
        return d


def _rank_equal(values: Sequence[float]) -> list[int]:
    """Ranks by value (lower is better), equal values sharing the better rank."""
    return [1 + sum(1 for o in values if o < v) for v in values]


def standings(results: Sequence[SeatResults], bots: Sequence[str] | None = None) -> LeagueStandings:
    """The standings of a league from its matches (only finished matches count)."""
    finished = [r for r in results if r.status == FINISHED and all(p is not None for p in r.places)]
    names = list(bots) if bots is not None else []
    for r in results:
        for b in r.bots:
            if b not in names:
                names.append(b)
    seats = max((len(r.bots) for r in results), default=0)

    places: dict[str, list[int]] = {b: [] for b in names}
    scores: dict[str, list[float]] = {b: [] for b in names}
    points = {b: 0.0 for b in names}
    wins = {b: 0 for b in names}
    faults = {b: 0 for b in names}
    forfeits = {b: 0 for b in names}
    absent = {b: 0 for b in names}
    seat_places: dict[str, list[list[int]]] = {b: [[] for _ in range(seats)] for b in names}
    by_seat: list[list[tuple[int, float]]] = [[] for _ in range(seats)]
    h2h: dict[tuple[str, str], list[int]] = {}  # (a, b) → [meetings, a above, b above, tied]

    for r in finished:
        for s, b in enumerate(r.bots):
            p = r.places[s]
            places[b].append(p)
            scores[b].append(r.scores[s])
            points[b] += match_points(r.places, s)
            wins[b] += p == 1
            faults[b] += r.faults[s] or 0
            forfeits[b] += bool(r.forfeited[s])
            absent[b] += bool(r.absent[s]) if r.absent else 0
            seat_places[b][s].append(p)
            by_seat[s].append((p, r.scores[s]))
        for s in range(len(r.bots)):
            for t in range(s + 1, len(r.bots)):
                a, b = r.bots[s], r.bots[t]
                if a == b:
                    continue
                pa, pb = r.places[s], r.places[t]
                for x, y, px, py in ((a, b, pa, pb), (b, a, pb, pa)):
                    row = h2h.setdefault((x, y), [0, 0, 0, 0])
                    row[0] += 1
                    row[1] += px < py
                    row[2] += px > py
                    row[3] += px == py

    def mean(values):
        return math.fsum(values) / len(values) if values else None

    lines = []
    for b in names:
        n = len(places[b])
        m, lo, hi = mean_interval(places[b]) if n else (None, None, None)
        if lo is not None:  # a mean place lies between 1 and the table size
            lo, hi = max(lo, 1.0), min(hi, float(seats))
        lines.append((b, n, m, lo, hi))
    lines.sort(key=lambda x: (-(points[x[0]] / x[1]) if x[1] else math.inf,
                              x[2] if x[2] is not None else math.inf, x[0]))
    table = [Standing(rank, b, n, points[b], points[b] / n if n else 0.0, wins[b], m, lo, hi, mean(scores[b]),
                      faults[b], forfeits[b], [len(sp) for sp in seat_places[b]],
                      [mean(sp) for sp in seat_places[b]], absent[b])
             for rank, (b, n, m, lo, hi) in enumerate(lines, 1)]
    seat_rows = [SeatStanding(s, len(rows), mean([p for p, _ in rows]), mean([sc for _, sc in rows]),
                              sum(1 for p, _ in rows if p == 1)) for s, rows in enumerate(by_seat)]
    order = {b: i for i, b in enumerate(names)}
    head = [HeadToHead(a, b, *v) for (a, b), v in sorted(h2h.items(), key=lambda kv: (order[kv[0][0]], order[kv[0][1]]))]

    sets, duplicate = _duplicate_sets(results, names)
    return LeagueStandings(len(results), len(finished), seats, table, seat_rows, head, sets, duplicate)


def _duplicate_sets(results: Sequence[SeatResults], names: list[str]):
    groups: dict[int, list[SeatResults]] = {}
    for r in results:
        if r.duplicate_set is not None:
            groups.setdefault(r.duplicate_set, []).append(r)
    sets = []
    per_bot = {b: {"sets": 0, "wins": 0, "ranks": [], "score": 0.0} for b in names}
    for set_id in sorted(groups):
        matches = groups[set_id]
        bots: list[str] = []
        for r in matches:
            for b in r.bots:
                if b not in bots:
                    bots.append(b)
        done = [r for r in matches if r.status == FINISHED and all(p is not None for p in r.places)]
        total = {b: 0.0 for b in bots}
        placed: dict[str, list[int]] = {b: [] for b in bots}
        for r in done:
            for s, b in enumerate(r.bots):
                total[b] += r.scores[s]
                placed[b].append(r.places[s])
        means = [math.fsum(placed[b]) / len(placed[b]) if placed[b] else None for b in bots]
        complete = len(done) == len(matches)
        ranks: list[int | None] = _rank_equal(means) if complete else [None] * len(bots)
        if complete:
            for b, rank in zip(bots, ranks):
                st = per_bot.setdefault(b, {"sets": 0, "wins": 0, "ranks": [], "score": 0.0})
                st["sets"] += 1
                st["wins"] += rank == 1
                st["ranks"].append(rank)
                st["score"] += total[b]
        sets.append(DuplicateSet(set_id, matches[0].seed if complete else None, len(matches), len(done), bots,
                                 [total[b] for b in bots], means, ranks))
    duplicate = []
    if sets:
        for b, st in per_bot.items():
            duplicate.append(DuplicateStanding(b, st["sets"], st["wins"],
                                               math.fsum(st["ranks"]) / len(st["ranks"]) if st["ranks"] else None,
                                               st["score"]))
        duplicate.sort(key=lambda d: (d.mean_set_rank if d.mean_set_rank is not None else math.inf, -d.set_wins, d.bot))
    return sets, duplicate


@dataclass(frozen=True)
class GauntletLine:
    """The gauntlet bot against one opponent (or, as ``opponent`` None, against the field)."""

    opponent: str | None
    matches: int          # finished matches both sat in (overall: (match, opponent) pairs)
    above: int            # the gauntlet bot placed above the opponent
    below: int
    tied: int
    mean_place_difference: float | None  # the opponent's place minus the gauntlet bot's


def gauntlet(results: Sequence[SeatResults], bot: str) -> list[GauntletLine]:
    """The gauntlet report of ``bot`` (module docstring): a line per opponent, in the order they
    first sat with it, then the overall line."""
    diffs: dict[str, list[int]] = {}
    for r in results:
        if r.status != FINISHED or any(p is None for p in r.places) or bot not in r.bots:
            continue
        mine = r.places[r.bots.index(bot)]
        for b, p in zip(r.bots, r.places):
            if b != bot:
                diffs.setdefault(b, []).append(p - mine)

    def line(opponent, values) -> GauntletLine:
        return GauntletLine(opponent, len(values), sum(d > 0 for d in values), sum(d < 0 for d in values),
                            sum(d == 0 for d in values), math.fsum(values) / len(values) if values else None)

    return [line(b, v) for b, v in diffs.items()] + [line(None, [d for v in diffs.values() for d in v])]


# --------------------------------------------------------------------------------- text


def _num(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _score(x: float | None) -> str:
    return "–" if x is None else f"{x:g}" if float(x).is_integer() else f"{x:.2f}"


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> str:
    """Aligned columns (two spaces apart) under a rule, as the rating table has them."""
    right = right if right is not None else [i > 0 for i in range(len(headers))]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right)).rstrip()

    return "\n".join([line(headers), "  ".join("─" * w for w in widths), *(line(r) for r in rows)]) + "\n"


def format_table(st: LeagueStandings) -> str:
    """The league table: points, wins, mean place with its 95 % interval, score, faults; and,
    when a bot was absent, the matches it was absent from (of its forfeits; not rated)."""
    absent = any(s.absent for s in st.table)
    rows = []
    for s in st.table:
        interval = f"{s.place_low:.2f}–{s.place_high:.2f}" if s.place_low is not None else "–"
        rows.append([str(s.rank), s.bot, str(s.matches), f"{s.points:g}", _num(s.points_per_match), str(s.wins),
                     _num(s.mean_place), interval, _num(s.mean_score), str(s.faults), str(s.forfeits)]
                    + ([str(s.absent) if s.absent else ""] if absent else []))
    table = text_table(["rank", "bot", "matches", "points", "per match", "wins", "mean place", "95% interval",
                        "mean score", "faults", "forfeits"] + (["absent"] if absent else []), rows,
                       [True, False] + [True] * (10 if absent else 9))
    if absent:
        table += "absent: seats forfeited by a bot that never connected during the match; they are not rated\n"
    return table


def format_seats(st: LeagueStandings) -> str:
    """Mean place by seat: each bot's, then every bot's together (positional luck)."""
    headers = ["bot"] + [f"seat {s}" for s in range(st.seats)]
    rows = [[s.bot] + [f"{_num(m)} ({n})" if n else "–" for m, n in zip(s.seat_mean_place, s.seat_matches)]
            for s in st.table]
    rows.append(["every bot"] + [f"{_num(s.mean_place)} ({s.matches})" if s.matches else "–" for s in st.by_seat])
    rows.append(["wins"] + [str(s.wins) for s in st.by_seat])
    rows.append(["mean score"] + [_num(s.mean_score) for s in st.by_seat])
    return text_table(headers, rows, [False] + [True] * st.seats)


def format_head_to_head(st: LeagueStandings) -> str:
    """For each pair: times the row bot placed above – below – level with the column bot."""
    bots = [s.bot for s in st.table]
    rows = []
    for a in bots:
        cells = [a]
        for b in bots:
            if a == b:
                cells.append("·")
            else:
                h = st.pair(a, b)
                cells.append(f"{h.above}-{h.below}-{h.tied}" if h.meetings else "–")
        rows.append(cells)
    return text_table(["above-below-level"] + bots, rows, [False] + [True] * len(bots))


def format_duplicate(st: LeagueStandings, max_sets: int | None = 20) -> str:
    """Per bot over the complete sets, then each set's bots: total score, mean place, set rank."""
    out = [text_table(["bot", "complete sets", "set wins", "mean set rank", "total score"],
                      [[d.bot, str(d.sets), str(d.set_wins), _num(d.mean_set_rank), _score(d.total_score)]
                       for d in st.duplicate], [False, True, True, True, True])]
    shown = st.sets if not max_sets else st.sets[:max_sets]
    rows = []
    for ds in shown:
        cells = []
        for b, total, mean, rank in zip(ds.bots, ds.total_score, ds.mean_place, ds.rank):
            cells.append(f"{b} {_score(total)}/{_num(mean)}" + (f" #{rank}" if rank is not None else ""))
        rows.append([str(ds.set), f"{ds.finished}/{ds.matches}", "  ".join(cells)])
    out.append(text_table(["set", "played", "bot total score/mean place #set rank"], rows, [True, True, False]))
    if len(shown) < len(st.sets):
        out[-1] += f"… {len(st.sets) - len(shown)} more sets (--sets 0 shows every set)\n"
    return "\n".join(out)


def format_gauntlet(lines: Sequence[GauntletLine], bot: str) -> str:
    """The gauntlet bot's result against each opponent, then against the field."""
    rows = [[ln.opponent or "every opponent", str(ln.matches), str(ln.above), str(ln.below), str(ln.tied),
             "–" if ln.mean_place_difference is None else f"{ln.mean_place_difference:+.2f}"] for ln in lines]
    return text_table(["opponent", "matches", f"{bot} above", f"{bot} below", "level", "mean place difference"],
                      rows, [False] + [True] * 5)
