"""bench/research.py's core with tiny numbers: it prints a row of figures per
game in both tables, its loops count one decision per seat choosing (a sealed step of n seats is
n decisions in the engine, PettingZoo and OpenSpiel alike), and a missing package is a "not
installed" row, not a traceback. No timings here: the bench prints its figures."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "bench_research", Path(__file__).resolve().parents[2] / "bench" / "research.py")
research = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(research)

FIGURE = r"[\d,.]+"


def test_a_quick_run_prints_a_row_of_figures_per_game_in_both_tables(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "rlcard", None)  # RLCard's rows: "not installed", whatever the venv has
    research.main(["--quick", "--seconds", "0.01", "--sample", "10"])
    out = capsys.readouterr().out
    for game_id in research.GAMES:
        rows = re.findall(rf"^{game_id} +((?:{FIGURE} +){{7}}{FIGURE})$", out, re.M)
        assert len(rows) == 2, f"{game_id}: a row of 8 figures by CPU and by wall time\n{out}"
        ratios = re.findall(rf"^{game_id} +((?:{FIGURE} +){{4}}{FIGURE})$", out, re.M)
        assert ratios, f"{game_id}: its ratios\n{out}"
    for title, _, seats in research.OPENSPIEL_REFERENCES:
        assert len(re.findall(rf"^{re.escape(title)} \({seats}\) +{FIGURE} +{FIGURE}$", out, re.M)) == 2, out
    for title, _, seats in research.RLCARD_REFERENCES:
        assert len(re.findall(rf"^{re.escape(title)} \({seats}\) +not installed$", out, re.M)) == 2, out
    assert "Traceback" not in out and "load average" in out


def test_every_loop_counts_a_decision_per_seat_in_sixth_cards_sealed_steps():
    """One round of Sixth Card at 4 seats: 10 sealed card choices of 4 seats (C4) are 40
    decisions, plus a row choice now and then; every loop counts the same way."""
    options = {"rounds": 1}
    counts = {
        "engine": research.engine_match("sixth-card", 4, options, with_view=True)(3),
        "PZ env": research.pettingzoo_match("sixth-card", 4, options, wrapped=True)(3),
        "OpenSpiel": research.openspiel_match(research.ours_in_openspiel("sixth-card", 4, options), True)(3),
    }
    for loop, n in counts.items():
        assert 40 <= n < 80, f"{loop}: {n} decisions in one round"
