"""Decision latency kept compactly: a log-scale histogram per seat of each recorded match.

The referee measures every answered decision (from the decision's send to its answer's arrival,
:attr:`MatchOutcome.latencies`). A match's record keeps, per seat, how many answers fell in each
bin (``result_details["latency"]``: one ``{bin: count}`` per seat, bins as strings, JSON), so a
bot's p50 and p99 over any number of matches is the merge of a few dozen numbers per match,
never a list of every decision.

Bins: bin ``b`` holds latencies in ``(BASE · 2^((b-1)/4), BASE · 2^(b/4)]`` seconds, with
``BASE`` = 10 µs (bin 0 holds everything up to 10 µs): four bins per doubling, so a quantile read
from the histogram (the upper edge of the bin it falls in) is at most 19 % above the true one.
Defaults, forfeits and late answers are not latencies (a late answer is a fault, counted apart).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

BASE = 1e-5  # seconds: the upper edge of bin 0
PER_DOUBLING = 4


def bin_of(seconds: float) -> int:
    if seconds <= BASE:
        return 0
    return math.ceil(PER_DOUBLING * math.log2(seconds / BASE) - 1e-9)


def upper_edge(b: int) -> float:
    """The largest latency (seconds) bin ``b`` holds."""
    return BASE * 2 ** (b / PER_DOUBLING)


def histogram(seconds: Iterable[float]) -> dict[str, int]:
    """The sparse histogram of some latencies, as it is stored (string keys, sorted)."""
    counts = Counter(bin_of(s) for s in seconds)
    return {str(b): counts[b] for b in sorted(counts)}


def merge(histograms: Iterable[Mapping[str, int] | None]) -> Counter:
    """Several stored histograms added up (``None`` and malformed entries are skipped)."""
    total: Counter = Counter()
    for h in histograms:
        if not isinstance(h, Mapping):
            continue
        for b, n in h.items():
            try:
                total[int(b)] += int(n)
            except (TypeError, ValueError):
                continue
    return total


def quantile(counts: Mapping[int, int], q: float) -> float | None:
    """The ``q`` quantile (0 < q ≤ 1) in seconds, as the upper edge of its bin; None if empty."""
    n = sum(counts.values())
    if n <= 0:
        return None
    rank = max(1, math.ceil(q * n))
    seen = 0
    for b in sorted(counts):
        seen += counts[b]
        if seen >= rank:
            return upper_edge(b)
    return upper_edge(max(counts))
