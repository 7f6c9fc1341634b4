"""A kept rating line (api.Line, issue 15 point 8): compact for the garbage collector, its charts
drawn once, and the same points, history and drawing as the ledger's line."""
from __future__ import annotations

import gc

from cardarena.server.web import api, charts

POINTS = [(25.0, 8.333), (26.5, 7.9), (24.75, 7.5)]


def test_a_line_gives_its_points_and_history_as_the_ledgers_line():
    line = api.Line(POINTS)
    assert list(line) == POINTS and len(line) == 3 and len(api.Line()) == 0
    assert api.history_json(line) == api.history_json(POINTS)
    assert line.history_text() == api.encoded(api.history_json(POINTS))


def test_the_collector_walks_a_kept_line_in_a_few_steps_whatever_its_points():
    """A full pass of the collector visits what each object refers to: a kept line of 200 points
    must not be 200 of them (20,000 lines as lists of tuples made every full pass ~90 ms)."""
    line = api.Line([(25.0 + i, 8.0) for i in range(200)])
    line.history_text()
    line.drawn(charts.sparkline, "b0: μ − 3σ over its matches")
    assert len(gc.get_referents(line)) <= 4


def test_a_lines_chart_is_drawn_once_per_chart_and_title():
    line = api.Line(POINTS)
    drawn = []

    def draw(history, title):
        drawn.append(title)
        return charts.sparkline(history, title)
    first = line.drawn(draw, "b0")
    assert first == charts.sparkline(api.history_json(POINTS), "b0")
    assert line.drawn(draw, "b0") is first and drawn == ["b0"]
    assert line.drawn(charts.history_chart, "b0") == charts.history_chart(api.history_json(POINTS), "b0")
    line.drawn(draw, "b1")
    assert drawn == ["b0", "b1"]
