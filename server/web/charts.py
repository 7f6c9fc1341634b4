"""Rating-history charts as inline SVG, drawn on the server (no chart library, no CDN, no script).

A history is a bot's rating after each of its rated matches of one game, oldest first, as
``{"mu", "sigma", "conservative"}`` (:func:`cardarena.server.web.api.history_json`).

``history_chart`` is the bot page's chart: the band μ ± σ shaded, μ as a line, μ − 3σ (the
number the leaderboard is sorted by) dashed, the rating axis labelled at its ends and the
x axis counting the bot's matches. ``sparkline`` is the leaderboard's: μ − 3σ alone, one small
line per bot. Both scale to their own points and return markup ready for a template; a history
of no match draws an empty frame with a title saying so.
"""
from __future__ import annotations

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


def history_chart(history: Sequence[dict], title: str, width: int = 640, height: int = 180) -> Markup:
    """μ, μ ± σ and μ − 3σ after each match (module docstring)."""
    label = escape(title)
    head = (f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{label}</title>'
            f'<rect class="frame" x="0.5" y="0.5" width="{width - 1}" height="{height - 1}"/>')
    if not history:
        return Markup(head + f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no rated match yet</text></svg>')
    mus = [h["mu"] for h in history]
    lows, highs = [h["mu"] - h["sigma"] for h in history], [h["mu"] + h["sigma"] for h in history]
    cons = [h["conservative"] for h in history]
    lo, hi = min(min(lows), min(cons)), max(highs)
    left, pad = 44, 12
    x = _scale(0, max(len(history) - 1, 1), width - left, pad, False)
    y = _scale(lo, hi, height, pad, True)
    xs = _written(left + x(i) for i in range(len(history)))
    band = _path(xs + xs[::-1], [y(v) for v in highs] + [y(v) for v in lows[::-1]])
    return Markup(
        head
        + f'<polygon class="band" points="{band}"><title>μ ± σ</title></polygon>'
        + f'<polyline class="mu" points="{_path(xs, [y(v) for v in mus])}"><title>μ</title></polyline>'
        + f'<polyline class="conservative" points="{_path(xs, [y(v) for v in cons])}"><title>μ − 3σ</title></polyline>'
        + f'<text class="axis" x="4" y="{y(hi) + 4:.1f}">{hi:.1f}</text>'
        + f'<text class="axis" x="4" y="{y(lo) + 4:.1f}">{lo:.1f}</text>'
        + f'<text class="axis" x="{width - 4}" y="{height - 2}" text-anchor="end">{len(history)} matches</text>'
        + "</svg>")


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
