#!/usr/bin/env python3
"""Research layers' speed: decisions per second of every game through the raw engine, the codec,
PettingZoo and OpenSpiel, next to OpenSpiel's C++ card games and RLCard's Python ones.

    .venv/bin/python bench/research.py                  # every game at 4 seats, a few minutes
    .venv/bin/python bench/research.py --quick          # about 20 s: short budgets, short matches
    .venv/bin/python bench/research.py --game sixth-card --players 6 --seconds 5
    .venv/bin/python bench/research.py --rlcard-python /tmp/rv/bin/python   # RLCard from another venv

Every figure is decisions per second (one seat choosing one action: a sealed step of 4 seats is
4 decisions, as it is 4 PettingZoo steps and one ``apply_actions`` of 4 ids), uniformly random
legal actions, whole matches with seeds 0, 1, 2, … until ``--seconds`` have passed (at least
one match), one core, one process. Per game:

- engine: ``legal_actions`` + ``apply`` (``to_act`` drives); engine+view: the same with
  ``view(seat)`` built at every decision, which every environment pays;
- observe, mask: the codec alone, µs per ``observe(view)`` and per ``mask(actions_json)`` call,
  over the views and legal actions of random play;
- PZ raw, PZ env: PettingZoo's loop (``agent_iter``, ``last``, ``action_space(agent).sample
  (action_mask)``, ``step``; the loop in cardarena.research.pettingzoo's docstring) through
  ``raw_env`` (no wrappers) and through ``env`` (PettingZoo's classic-game wrappers);
- OpenSpiel, OS+tensor: our registered game via pyspiel (``apply_action``, ``apply_actions`` at
  a simultaneous node, chance outcomes sampled by their probabilities; chance steps are not
  counted), and the same with ``state.observation_tensor(seat)`` read for every seat to act at
  every decision (hearts, which has none: ``information_state_tensor``). A line gives what
  listing and sampling our deal's chance node costs (one outcome a seed, 10,000 by default):
  every OpenSpiel match pays it, a short one noticeably.

Reference rows, the same loops in the same run: OpenSpiel's C++ ``hearts`` (4 seats) and
``gin_rummy`` (2), and RLCard's Python ``uno`` and ``gin-rummy`` (2 seats each; ``env.step``
with a random legal action — RLCard builds its observation at every step, so its figure
compares with the "+tensor" and "PZ" columns). A package that is missing prints "not
installed" in its row.

The machine may be shared, so each figure is measured in CPU time (``time.process_time``, the
steadier on a loaded machine; the first table and the ratios) and in wall time (the second
table), with the load average before and after; the ratios (e.g. PZ env / engine+view: what the
PettingZoo layer costs over the view it must build) say something even when the absolute
figures move. Options are the games' defaults, except with ``--quick`` (``QUICK_OPTIONS``:
shorter matches for a smoke run).
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from cardarena.server.games import games, new_game

GAMES = ("sixth-card", "unsorted", "scouting", "scout", "three-thirteen")
#: --quick only: shorter matches, so that a smoke run stays near 20 s (Three Thirteen's 11 rounds
#: of random play are some 4,800 decisions at 4 seats)
QUICK_OPTIONS: dict[str, dict[str, Any]] = {"sixth-card": {"rounds": 1}, "three-thirteen": {"rounds": 2}}
#: the reference games: (row title, package, game name, seats)
OPENSPIEL_REFERENCES = (("OpenSpiel C++ hearts", "hearts", 4), ("OpenSpiel C++ gin_rummy", "gin_rummy", 2))
RLCARD_REFERENCES = (("RLCard Python uno", "uno", 2), ("RLCard Python gin-rummy", "gin-rummy", 2))
NOT_INSTALLED = "not installed"
#: the packages a figure may need that the server does not: the research extra, and RLCard
OPTIONAL = frozenset({"numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel", "rlcard"})


class Timer:
    """Wall and CPU seconds since it was made."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def per_second(play: Callable[[int], int], seconds: float) -> tuple[float, float]:
    """Decisions per second (CPU, wall) of ``play(seed)`` (one whole match, returns its
    decisions) over matches with seeds 0, 1, 2, … until ``seconds`` of wall time have passed."""
    decisions, seed, t = 0, 0, Timer()
    while True:
        decisions += play(seed)
        seed += 1
        wall, cpu = t.elapsed()
        if wall >= seconds:
            return decisions / cpu, decisions / wall


# ----- the raw engine ---------------------------------------------------------------------------

def random_match(game_id: str, players: int, options: Mapping, seed: int,
                 at_decision: Callable[[Any, int, list], None] | None = None) -> int:
    """A match of the engine with seed ``seed``, every seat to act picking a uniformly random
    legal action (``at_decision(game, seat, actions)`` called first); returns its decisions."""
    rng = random.Random(seed)
    game = new_game(game_id, players, seed, options)
    decisions = 0
    while not game.is_over():
        chosen = {}
        for seat in game.to_act():
            actions = game.legal_actions(seat)
            if at_decision is not None:
                at_decision(game, seat, actions)
            chosen[seat] = actions[rng.randrange(len(actions))]
        decisions += len(chosen)
        game.apply(chosen)
    return decisions


def engine_match(game_id: str, players: int, options: Mapping, with_view: bool) -> Callable[[int], int]:
    """:func:`random_match` of a seed, with ``view(seat)`` built at every decision or not."""
    def view(game, seat: int, actions: list) -> None:
        game.view(seat)

    return lambda seed: random_match(game_id, players, options, seed, view if with_view else None)


def decisions_of_play(game_id: str, players: int, options: Mapping, count: int) -> list[tuple[dict, list[dict]]]:
    """``count`` decisions of random matches, one in four taken so that the sample spans whole
    matches (Three Thirteen's later rounds, their longer hands): (the seat's view, its legal
    actions' JSON)."""
    sample: list[tuple[dict, list[dict]]] = []
    rng = random.Random(count)

    def keep(game, seat: int, actions: list) -> None:
        if len(sample) < count and rng.random() < 0.25:
            sample.append((game.view(seat), [game.action_json(a) for a in actions]))

    seed = 0
    while len(sample) < count:
        random_match(game_id, players, options, seed, keep)
        seed += 1
    return sample


def codec_us(game_id: str, players: int, options: Mapping, count: int) -> tuple[float, float]:
    """CPU µs per ``observe(view)`` and per ``mask(actions_json)`` over ``count`` decisions of
    random play (each call timed over the whole sample, not one by one)."""
    from cardarena.research.spaces import codec

    c = codec(game_id, players, options)
    sample = decisions_of_play(game_id, players, options, count)
    figures = []
    for call in (lambda v, a: c.observe(v), lambda v, a: c.mask(a)):
        t = time.process_time()
        for view, actions in sample:
            call(view, actions)
        figures.append(1e6 * (time.process_time() - t) / len(sample))
    return figures[0], figures[1]


# ----- PettingZoo -------------------------------------------------------------------------------

def pettingzoo_match(game_id: str, players: int, options: Mapping, wrapped: bool) -> Callable[[int], int]:
    """A random match through PettingZoo's loop: ``raw_env`` (``wrapped=False``) or ``env``."""
    from cardarena.research import pettingzoo as pz

    e = (pz.env if wrapped else pz.raw_env)(game_id, players=players, **options)

    def play(seed: int) -> int:
        e.reset(seed=seed)
        for k, agent in enumerate(e.possible_agents):
            e.action_space(agent).seed(seed * players + k)
        decisions = 0
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            if terminated or truncated:
                action = None
            else:
                action = e.action_space(agent).sample(obs["action_mask"])
                decisions += 1
            e.step(action)
        return decisions
    return play


# ----- OpenSpiel --------------------------------------------------------------------------------

def openspiel_match(game, with_tensor: bool) -> Callable[[int], int]:
    """A random match of an OpenSpiel game (ours or a C++ one): chance outcomes by their
    probabilities, every player to act a uniformly random legal id; with ``with_tensor`` the
    observation tensor of every player to act is read at every decision."""
    import pyspiel

    simultaneous = pyspiel.PlayerId.SIMULTANEOUS
    tensor = tensor_of(game)

    def play(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            player = state.current_player()
            seats = range(game.num_players()) if player == simultaneous else (player,)
            chosen = []
            for seat in seats:
                if with_tensor:
                    tensor(state, seat)
                legal = state.legal_actions(seat)
                chosen.append(legal[rng.randrange(len(legal))])
            decisions += len(chosen)
            if player == simultaneous:
                state.apply_actions(chosen)
            else:
                state.apply_action(chosen[0])
        return decisions
    return play


def tensor_of(game) -> Callable:
    """How a learner reads the game's tensor: the observation tensor, or the information-state
    tensor where the game has no observation tensor (OpenSpiel's hearts)."""
    import pyspiel

    if game.get_type().provides_observation_tensor:
        return pyspiel.State.observation_tensor
    return pyspiel.State.information_state_tensor


def deal_ms(game_id: str, players: int, options: Mapping, times: int = 10) -> tuple[float, int]:
    """CPU ms to list and sample the chance outcomes of a new state's deal, which every match in
    the OpenSpiel columns pays, and how many there are (one a seed, 10,000 by default)."""
    game = ours_in_openspiel(game_id, players, options)
    rng, t = random.Random(0), time.process_time()
    for _ in range(times):
        outcomes, probs = zip(*game.new_initial_state().chance_outcomes())
        rng.choices(outcomes, probs)
    return 1000 * (time.process_time() - t) / times, game.max_chance_outcomes()


def ours_in_openspiel(game_id: str, players: int, options: Mapping):
    """Our registered game (importing cardarena.research.openspiel registers it)."""
    from cardarena.research import openspiel

    return openspiel.load(game_id, players, options)


def openspiel_reference(name: str):
    import pyspiel

    return pyspiel.load_game(name)


# ----- RLCard -----------------------------------------------------------------------------------

def rlcard_figures(name: str, seconds: float) -> tuple[float, float]:
    """RLCard's ``env.step`` with a uniformly random legal action: decisions per second (CPU,
    wall), whole games until ``seconds`` have passed. Self-contained (its imports inside), so
    ``--rlcard-python`` runs its source in another interpreter."""
    import random
    import time

    import rlcard

    env = rlcard.make(name, config={"seed": 0})
    rng = random.Random(0)
    decisions, wall, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        state, player = env.reset()
        while not env.is_over():
            state, player = env.step(rng.choice(list(state["legal_actions"])))
            decisions += 1
        w, c = time.perf_counter() - wall, time.process_time() - cpu
        if w >= seconds:
            return decisions / c, decisions / w


def rlcard_elsewhere(python: str, name: str, seconds: float) -> tuple[float, float]:
    """:func:`rlcard_figures` run by another interpreter (a venv that has rlcard)."""
    script = f"{inspect.getsource(rlcard_figures)}\nimport json\nprint(json.dumps(rlcard_figures({name!r}, {seconds!r})))"
    r = subprocess.run([python, "-c", script], capture_output=True, text=True)
    if "ModuleNotFoundError: No module named 'rlcard'" in r.stderr:
        raise ImportError(r.stderr, name="rlcard")
    if r.returncode:
        raise RuntimeError(f"{python}: exit {r.returncode}: {r.stderr.strip()}")
    return tuple(json.loads(r.stdout))


# ----- the table --------------------------------------------------------------------------------

COLUMNS = ("engine", "engine+view", "observe µs", "mask µs", "PZ raw", "PZ env", "OpenSpiel", "OS+tensor")
RATIOS = (("PZ env / engine+view", "PZ env", "engine+view"), ("PZ raw / engine+view", "PZ raw", "engine+view"),
          ("OpenSpiel / engine", "OpenSpiel", "engine"), ("OS+tensor / engine+view", "OS+tensor", "engine+view"),
          ("PZ env / OS+tensor", "PZ env", "OS+tensor"))


def attempt(measure: Callable[[], Any]) -> Any:
    """The figures of ``measure()``, or :data:`NOT_INSTALLED` when an optional package it needs
    (:data:`OPTIONAL`) is missing; any other error is raised."""
    try:
        return measure()
    except ImportError as e:
        if (e.name or "").split(".")[0] not in OPTIONAL:
            raise
        return NOT_INSTALLED


def game_row(game_id: str, players: int, options: Mapping, seconds: float, sample: int) -> dict[str, Any]:
    """Every column of one game: (CPU, wall) decisions per second, or (µs, µs) for the codec."""
    row: dict[str, Any] = {}
    for column, with_view in (("engine", False), ("engine+view", True)):
        row[column] = per_second(engine_match(game_id, players, options, with_view), seconds)
    codec = attempt(lambda: codec_us(game_id, players, options, sample))
    for column, k in (("observe µs", 0), ("mask µs", 1)):
        row[column] = codec if codec == NOT_INSTALLED else (codec[k], codec[k])
    for column, wrapped in (("PZ raw", False), ("PZ env", True)):
        row[column] = attempt(lambda: per_second(pettingzoo_match(game_id, players, options, wrapped), seconds))
    for column, with_tensor in (("OpenSpiel", False), ("OS+tensor", True)):
        row[column] = attempt(lambda: per_second(
            openspiel_match(ours_in_openspiel(game_id, players, options), with_tensor), seconds))
    return row


def reference_rows(seconds: float, rlcard_python: str | None) -> dict[str, dict[str, Any]]:
    """The reference games' figures: OpenSpiel's through :func:`openspiel_match`, RLCard's."""
    rows: dict[str, dict[str, Any]] = {}
    for title, name, _ in OPENSPIEL_REFERENCES:
        rows[title] = {column: attempt(lambda: per_second(openspiel_match(openspiel_reference(name), with_tensor), seconds))
                       for column, with_tensor in (("OpenSpiel", False), ("OS+tensor", True))}
    for title, name, _ in RLCARD_REFERENCES:
        rows[title] = {"env.step": attempt(lambda: rlcard_elsewhere(rlcard_python, name, seconds) if rlcard_python
                                           else rlcard_figures(name, seconds))}
    return rows


def cell(value: Any, which: int, width: int) -> str:
    if value is None:
        return " " * width
    if value == NOT_INSTALLED:
        return f"{NOT_INSTALLED:>{width}}"
    figure = value[which]
    return f"{figure:>{width},.1f}" if figure < 100 else f"{figure:>{width},.0f}"


def table(rows: Mapping[str, Mapping[str, Any]], columns: tuple[str, ...], which: int, first: int = 16) -> list[str]:
    """Rows of figures, ``which`` 0 for CPU time, 1 for wall time."""
    widths = [max(len(NOT_INSTALLED) + 1, len(c) + 2) for c in columns]
    lines = [f"{'':<{first}}" + "".join(f"{c:>{w}}" for c, w in zip(columns, widths))]
    for title, row in rows.items():
        lines.append((f"{title:<{first}}" + "".join(cell(row.get(c), which, w) for c, w in zip(columns, widths))).rstrip())
    return lines


def ratio_lines(rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The ratios of CPU-time figures per game (``RATIOS``), blank where a figure is missing."""
    widths = [len(t) + 2 for t, _, _ in RATIOS]
    lines = [f"{'':<16}" + "".join(f"{t:>{w}}" for (t, _, _), w in zip(RATIOS, widths))]
    for title, row in rows.items():
        parts = []
        for (_, top, bottom), w in zip(RATIOS, widths):
            a, b = row.get(top), row.get(bottom)
            ok = a not in (None, NOT_INSTALLED) and b not in (None, NOT_INSTALLED)
            parts.append(f"{a[0] / b[0]:>{w}.2f}" if ok else " " * w)
        lines.append(f"{title:<16}" + "".join(parts))
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", choices=GAMES, help="only these games (default: all five)")
    ap.add_argument("--players", type=int, default=4, help="seats of every game (default 4)")
    ap.add_argument("--seconds", type=float, help="time per figure (default 3; --quick 0.3)")
    ap.add_argument("--sample", type=int, help="decisions the codec figures are taken over (default 2000; --quick 300)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 0.3 s a figure, short matches, ~20 s")
    ap.add_argument("--no-references", action="store_true", help="skip the OpenSpiel C++ and RLCard rows")
    ap.add_argument("--rlcard-python", help="an interpreter that has rlcard (default: this one)")
    args = ap.parse_args(argv)
    seconds = args.seconds or (0.3 if args.quick else 3.0)
    sample = args.sample or (300 if args.quick else 2000)
    chosen = args.game or list(GAMES)
    for game_id in chosen:
        cls = games()[game_id]
        if not cls.min_players <= args.players <= cls.max_players:
            ap.error(f"{game_id} is for {cls.min_players}–{cls.max_players} players, not {args.players}")
    options = {g: QUICK_OPTIONS.get(g, {}) if args.quick else {} for g in chosen}
    load = os.getloadavg()
    t = Timer()
    rows = {}
    for game_id in chosen:
        rows[game_id] = game_row(game_id, args.players, options[game_id], seconds, sample)
        print(f"  measured {game_id} ({t.elapsed()[0]:.0f} s)", file=sys.stderr, flush=True)
    references = {} if args.no_references else reference_rows(seconds, args.rlcard_python)
    elapsed = t.elapsed()[0]
    opts = "; ".join(f"{g} {', '.join(f'{k}={v}' for k, v in o.items())}" for g, o in options.items() if o)
    print(f"{args.players} seats, random legal actions, whole matches for {seconds:g} s a figure; "
          f"options: {opts or 'the defaults'}")
    print("decisions/s by CPU time (observe, mask: µs a call):")
    print("\n".join(table(rows, COLUMNS, 0)))
    print("decisions/s by wall time (observe, mask: CPU µs a call, as above):")
    print("\n".join(table(rows, COLUMNS, 1)))
    if references:
        seats = {t: n for t, _, n in OPENSPIEL_REFERENCES + RLCARD_REFERENCES}
        titled = {f"{t} ({seats[t]})": r for t, r in references.items()}
        for which, clock in ((0, "CPU"), (1, "wall")):
            print(f"reference games (seats), the same loops, decisions/s by {clock} time:")
            print("\n".join(table(titled, ("OpenSpiel", "OS+tensor", "env.step"), which, first=30)))
    deal = attempt(lambda: deal_ms(chosen[0], args.players, options[chosen[0]]))
    if deal != NOT_INSTALLED:
        print(f"OpenSpiel columns: the deal is one chance node of {deal[1]:,} outcomes (the seeds); listing "
              f"and sampling it takes {deal[0]:.1f} ms CPU a match ({chosen[0]})")
    print("ratios (CPU time):")
    print("\n".join(ratio_lines(rows)))
    print(f"{elapsed:.0f} s; load average {' '.join(f'{x:.2f}' for x in load)} before, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")


if __name__ == "__main__":
    main()
