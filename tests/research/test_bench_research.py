"""bench/research.py's core with tiny numbers: it prints a row of figures per
game in both tables and each game's ratios against the targets, its loops count one decision per
seat choosing (a sealed step of n seats is n decisions in the engine, PettingZoo and OpenSpiel
alike) and play the same matches, a figure is the median of its repeats, and a missing package
is a "not installed" row, not a traceback. No timings here: the bench prints its figures."""
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
    research.main(["--quick", "--seconds", "0.01", "--sample", "10", "--repeats", "2", "--floor"])
    out = capsys.readouterr().out
    assert "the median of 2" in out
    for game_id in research.GAMES:
        rows = re.findall(rf"^{game_id} +((?:{FIGURE} +){{7}}{FIGURE})$", out, re.M)
        assert len(rows) == 2, f"{game_id}: a row of 8 figures by CPU and by wall time\n{out}"
        ratios = re.findall(rf"^{game_id} +((?:{FIGURE} +){{4}}{FIGURE})$", out, re.M)
        assert ratios, f"{game_id}: its ratios\n{out}"
        verdicts = re.findall(rf"^{game_id} +(?:{FIGURE} (?:met|BELOW) +){{2}}{FIGURE} (?:met|BELOW)$", out, re.M)
        assert len(verdicts) == 1, f"{game_id}: its ratios against the targets\n{out}"
        floor = re.findall(rf"^{game_id} +((?:{FIGURE} +){{5}}{FIGURE})$", out, re.M)
        assert len(floor) == 1, f"{game_id}: --floor's ratios, with and without the tensor\n{out}"
    assert re.search(r"^target +≥ 0\.50 +≥ 0\.50 +≥ 0\.40$", out, re.M), out
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


def test_without_the_tensor_every_codec_encodes_nothing_and_then_its_own_again():
    from cardarena.research import spaces
    from cardarena.server.games import new_game

    codec = spaces.codec("scout", 3)
    view = new_game("scout", 3, 1).view(0)
    tensor = codec.observe(view)
    with research.no_tensor():
        assert not spaces.codec("scout", 3).observe(view).any() and not any(codec.tensor_list(view))
    assert tensor.any() and codec.observe(view).tobytes() == tensor.tobytes()


def test_a_figure_is_the_median_of_its_repeats():
    assert research.median([(1.0, 8.0), (3.0, 4.0), (2.0, 9.0)]) == (2.0, 8.0)
    assert research.median([(1.0, 2.0), research.NOT_INSTALLED]) == research.NOT_INSTALLED
    calls = iter([(5.0, 1.0), (1.0, 1.0), (4.0, 1.0), (2.0, 1.0), (3.0, 1.0)])
    assert research.median_of(lambda: next(calls), 5) == (3.0, 1.0)


def test_the_openspiel_loops_play_the_match_of_each_seed():
    """Match s of the OpenSpiel columns is dealt seed s, the engine's match of seed s, as in the
    engine and PettingZoo columns (not a deal sampled by the chance node's probabilities)."""
    game = research.ours_in_openspiel("three-thirteen", 3, {"rounds": 1})
    states = []
    new_state = game.new_initial_state
    game.new_initial_state = lambda: states.append(new_state()) or states[-1]
    try:
        for seed in (0, 1, 7):
            research.openspiel_match(game, with_tensor=True)(seed)
    finally:
        del game.new_initial_state
    assert [s.history()[0] for s in states] == [0, 1, 7] and all(s.is_terminal() for s in states)
