"""Rating-history charts as inline SVG, drawn on the server (no chart library, no CDN, no script).

A history is a bot's rating after each of its rated matches of one game, oldest first, as
``{"mu", "sigma", "conservative"}`` (:func:`cardarena.server.web.api.history_json`).

``history_chart`` is the bot page's chart: the band μ ± σ shaded, μ as a line, μ − 3σ (the
number the leaderboard is sorted by) dashed, against the bot's rated matches, with both axes
labelled and ticked (round numbers, the rating's gridlines) and a legend. ``sparkline`` is the
leaderboard's: μ − 3σ alone, one small line per bot. Both scale to their own points and return
markup ready for a template; a history of no match draws an empty frame with a title saying so.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from markupsafe import Markup, escape


def _scale(lo: float, hi: float, size: float, pad: float, flip: bool):
    span = hi - lo or 1.0
    if flip:
        return lambda v: pad + (hi - v) / span * (size - 2 * pad)
    return lambda v: pad + (v - lo) / span * (size - 2 * pad)


def _path(xs: Sequence[str], ys: Iterable[float]) -> str:
    """The points ``x,y`` of a line: ``xs`` already written (:func:`_written`: a chart's lines
    share them, and writing the numbers is most of a chart's time), ``ys`` numbers."""
    return " ".join(map("%s,%.1f".__mod__, zip(xs, ys)))


def _written(xs: Iterable[float]) -> list[str]:
    return [f"{x:.1f}" for x in xs]


def _step(span: float, most: int, whole: bool = False) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten; whole numbers: no 2.5, at least 1) that
    cuts ``span`` in at most ``most`` parts."""
    raw = span / most
    power = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10):
        step = round(m * power, 12)
        if step >= raw:
            break
    return max(1, round(step)) if whole else step


def _decimals(step: float) -> int:
    """The decimals that write every multiple of ``step`` exactly (0.5: 1, 0.25: 2, 5: 0)."""
    d = max(0, -math.floor(math.log10(step)))
    while round(step, d) != step and d < 12:
        d += 1
    return d


def _number(v: float, decimals: int) -> str:
    """A tick's label: a minus sign, never a hyphen or a −0."""
    text = f"{v:.{decimals}f}"
    return "0" if float(text) == 0 else text.replace("-", "−")


def rating_ticks(lo: float, hi: float, most: int = 5) -> tuple[list[float], int]:
    """Round ticks covering ``lo`` … ``hi`` (the first at or below ``lo``, the last at or above
    ``hi``), at most ``most`` + 1 of them, and the decimals their labels take."""
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    step = _step(hi - lo, most)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)], _decimals(step)


def match_ticks(first: int, last: int, most: int = 8) -> list[int]:
    """Round match numbers between ``first`` and ``last`` (both included if round), at most
    ``most`` + 1 of them; one match: its number."""
    if last <= first:
        return [first]
    step = int(_step(last - first, most, whole=True))
    return list(range(-(-first // step) * step, last + 1, step))


def history_chart(history: Sequence[dict], title: str, first: int = 1, every: int = 1,
                  width: int = 640, height: int = 230) -> Markup:
    """μ, μ ± σ and μ − 3σ after each rated match (module docstring). Point ``i`` of the history
    is the bot's rating after its rated match ``first + i * every`` (a line thinned by the ledger
    keeps every ``every``-th match: ``api.line_span``)."""
    label = escape(title)
    head = (f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{label}</title>'
            f'<rect class="frame" x="0.5" y="0.5" width="{width - 1}" height="{height - 1}"/>')
    if not history:
        return Markup(head + f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no rated match yet</text></svg>')
    mus = [h["mu"] for h in history]
    lows, highs = [h["mu"] - h["sigma"] for h in history], [h["mu"] + h["sigma"] for h in history]
    cons = [h["conservative"] for h in history]
    y_ticks, decimals = rating_ticks(min(min(lows), min(cons)), max(highs))
    last = first + (len(history) - 1) * every
    x_ticks = match_ticks(first, last)
    left, right, top, bottom = 58, width - 14, 28, height - 40  # the plot's edges
    x_lo, x_hi = (first, last) if last > first else (first - 1, first + 1)
    x = _scale(x_lo, x_hi, right - left, 6, False)
    y = _scale(y_ticks[0], y_ticks[-1], bottom - top, 0, True)
    xs = _written(left + x(first + i * every) for i in range(len(history)))
    band = _path(xs + xs[::-1], [top + y(v) for v in highs] + [top + y(v) for v in lows[::-1]])
    parts = [head]
    # the rating axis: gridlines and labels at round numbers, its name turned along it
    parts.append('<g class="axis rating">')
    for v in y_ticks:
        at = top + y(v)
        parts.append(f'<line class="grid" x1="{left}" y1="{at:.1f}" x2="{right}" y2="{at:.1f}"/>'
                     f'<text class="tick" x="{left - 6}" y="{at + 4:.1f}" text-anchor="end">'
                     f'{_number(v, decimals)}</text>')
    parts.append(f'<text class="label" transform="translate(14 {(top + bottom) / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle">rating</text></g>')
    # the match axis: the bot's rated matches, oldest first
    parts.append(f'<g class="axis matches"><line class="line" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
    for m in x_ticks:
        at = left + x(m)
        parts.append(f'<line class="mark" x1="{at:.1f}" y1="{bottom}" x2="{at:.1f}" y2="{bottom + 4}"/>'
                     f'<text class="tick" x="{at:.1f}" y="{bottom + 16}" text-anchor="middle">{m}</text>')
    parts.append(f'<text class="label" x="{(left + right) / 2:.1f}" y="{height - 6}" text-anchor="middle">'
                 'rated matches, oldest first</text></g>')
    parts.append(f'<polygon class="band" points="{band}"><title>μ ± σ</title></polygon>'
                 f'<polyline class="mu" points="{_path(xs, [top + y(v) for v in mus])}"><title>μ</title></polyline>'
                 f'<polyline class="conservative" points="{_path(xs, [top + y(v) for v in cons])}">'
                 f'<title>μ − 3σ</title></polyline>'
                 f'<circle class="mu now" cx="{xs[-1]}" cy="{top + y(mus[-1]):.1f}" r="3"><title>μ now: '
                 f'{mus[-1]:.2f}</title></circle>')
    # the legend, above the plot
    key = max(left, right - 190)
    parts.append(f'<g class="legend" transform="translate({key} 10)">'
                 '<line class="mu" x1="0" y1="5" x2="18" y2="5"/><text x="23" y="9">μ</text>'
                 '<rect class="band" x="50" y="0" width="18" height="10"/><text x="73" y="9">μ ± σ</text>'
                 '<line class="conservative" x1="130" y1="5" x2="148" y2="5"/><text x="153" y="9">μ − 3σ</text>'
                 '</g></svg>')
    return Markup("".join(parts))


def sparkline(history: Sequence[dict], title: str, width: int = 120, height: int = 24) -> Markup:
    """μ − 3σ after each match, in a line the height of a table row."""
    label = escape(title)
    head = (f'<svg class="sparkline" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{label}</title>')
    values = [h["conservative"] for h in history]
    if len(values) < 2:
        return Markup(head + "</svg>")
    x = _scale(0, len(values) - 1, width, 2, False)
    y = _scale(min(values), max(values), height, 2, True)
    return Markup(head + f'<polyline points="{_path(_written(map(x, range(len(values)))), map(y, values))}"/></svg>')
