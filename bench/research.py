#!/usr/bin/env python3
"""Research layers' speed: decisions per second of every game through the raw engine, the codec,
PettingZoo and OpenSpiel, next to OpenSpiel's C++ card games and RLCard's Python ones.

    .venv/bin/python bench/research.py                  # every game at 4 seats, some 6 minutes
    .venv/bin/python bench/research.py --floor          # and the loops with tensors that cost nothing, 8 min
    .venv/bin/python bench/research.py --quick          # about 1 minute: short budgets, short matches
    .venv/bin/python bench/research.py --game sixth-card --players 6 --seconds 5 --repeats 5
    .venv/bin/python bench/research.py --rlcard-python /tmp/rv/bin/python   # RLCard from another venv

Every figure is decisions per second (one seat choosing one action: a sealed step of 4 seats is
4 decisions, as it is 4 PettingZoo steps and one ``apply_actions`` of 4 ids), uniformly random
legal actions, whole matches with seeds 0, 1, 2, … (every loop plays the same matches, as far
as it gets) until ``--seconds`` have passed (at least one match), one core, one process. Per
game:

- engine: ``legal_actions`` + ``apply`` (``to_act`` drives); engine+view: the same with
  ``view(seat)`` built at every decision, which every environment pays;
- observe, mask: the codec alone, µs per ``observe(view)`` and per ``mask(actions_json)`` call,
  over the views and legal actions of random play; the codecs compiled with mypyc where ``make
  research`` built them (a line says which ran; ``CARDARENA_CODECS=python`` runs them as Python);
- PZ raw, PZ env: PettingZoo's loop (``agent_iter``, ``last``, ``action_space(agent).sample
  (action_mask)``, ``step``; the loop in cardarena.research.pettingzoo's docstring) through
  ``raw_env`` (no wrappers) and through ``env`` (PettingZoo's classic-game wrappers);
- OpenSpiel, OS+tensor: our registered game via pyspiel (``apply_action``, ``apply_actions`` at
  a simultaneous node; the deal, a chance node of one outcome a seed, dealt as the match's seed,
  so that the matches are the engine columns' ones; chance steps are not counted), and the same
  with ``state.observation_tensor(seat)`` read for every seat to act at every decision (hearts,
  which has none: ``information_state_tensor``). A line gives what listing and sampling our
  deal's chance node by its probabilities costs (10,000 seeds by default): a match that samples
  its deal pays it, a short one noticeably.

Reference rows, the same loops in the same run: OpenSpiel's C++ ``hearts`` (4 seats) and
``gin_rummy`` (2), and RLCard's Python ``uno`` and ``gin-rummy`` (2 seats each; ``env.step``
with a random legal action — RLCard builds its observation at every step, so its figure
compares with the "+tensor" and "PZ" columns). A package that is missing prints "not
installed" in its row.

``--floor`` measures the PZ raw, PZ env and OS+tensor loops again with every codec encoding
nothing (all-zero tensors, the views still built): what the PettingZoo and OpenSpiel APIs cost
besides encoding the view, the ratio a faster encoder could at best reach.

Fairness: every loop plays one untimed match first (imports, caches), then is timed from seed 0;
each figure is the median of ``--repeats`` measurements, taken in turns (every column of a game
once, then again), so a burst of load on the shared machine moves one sample of several columns
rather than one column. The machine may be shared, so each figure is measured in CPU time
(``time.process_time``, the steadier on a loaded machine; the first table and the ratios) and in
wall time (the second table), with the load average before and after. The ratios (e.g. PZ env /
engine+view: what the PettingZoo layer costs over the view it must build) say something even
when the absolute figures move; the targets are printed against them (``TARGETS``). Options are
the games' defaults, except with ``--quick`` (``QUICK_OPTIONS``: shorter matches for a smoke run).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
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
#: the seed of the untimed match each loop plays before it is timed (the timed ones start at 0)
WARM_UP_SEED = 9_999
#: the speed targets: (title, column, over column, at least), each a ratio of CPU-time figures
TARGETS = (("PZ env / engine+view", "PZ env", "engine+view", 0.5),
           ("PZ raw / engine+view", "PZ raw", "engine+view", 0.5),
           ("OS+tensor / engine+view", "OS+tensor", "engine+view", 0.4))
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
    decisions) over matches with seeds 0, 1, 2, … until ``seconds`` of wall time have passed,
    after one untimed match (:data:`WARM_UP_SEED`: imports, caches, the codec's ids)."""
    play(WARM_UP_SEED)
    decisions, seed, t = 0, 0, Timer()
    while True:
        decisions += play(seed)
        seed += 1
        wall, cpu = t.elapsed()
        if wall >= seconds:
            return decisions / cpu, decisions / wall


def median_of(measure: Callable[[], Any], repeats: int) -> Any:
    """The median (CPU, wall) of ``repeats`` calls of ``measure`` (each a (CPU, wall) pair), or
    what it returned if not figures (:data:`NOT_INSTALLED`)."""
    samples = [measure() for _ in range(repeats)]
    return median(samples)


def median(samples: list) -> Any:
    if any(s == NOT_INSTALLED for s in samples):
        return NOT_INSTALLED
    return tuple(statistics.median(s[k] for s in samples) for k in range(len(samples[0])))


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
    for k, agent in enumerate(e.possible_agents):  # once: a new numpy generator a match costs 30 µs
        e.action_space(agent).seed(k)

    def play(seed: int) -> int:
        e.reset(seed=seed)
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
    """A random match of an OpenSpiel game (ours or a C++ one): every player to act a uniformly
    random legal id; with ``with_tensor`` the observation tensor of every player to act is read at
    every decision. Chance outcomes by their probabilities, but for our games' deal, a chance node
    of one outcome a seed: match ``seed`` is dealt seed ``seed``, the engine's match of that seed
    (every column plays the same matches; what listing and sampling the deal costs is measured
    on its own, :func:`deal_ms`)."""
    import pyspiel

    simultaneous = pyspiel.PlayerId.SIMULTANEOUS
    tensor = tensor_of(game)
    ours = game.get_type().short_name.startswith("cardarena_")

    def play(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                if ours and not state.history():
                    state.apply_action(seed % game.max_chance_outcomes())
                else:
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
    """How a learner reads the game's tensor, ``state.observation_tensor(seat)``, or the
    information-state tensor where the game has no observation tensor (OpenSpiel's hearts)."""
    if game.get_type().provides_observation_tensor:
        return lambda state, seat: state.observation_tensor(seat)
    return lambda state, seat: state.information_state_tensor(seat)


def deal_ms(game_id: str, players: int, options: Mapping, times: int = 10) -> tuple[float, int]:
    """CPU ms to list and sample the chance outcomes of a new state's deal by their
    probabilities, which a match that samples its deal pays (the OpenSpiel columns deal the
    match's seed instead), and how many there are (one a seed, 10,000 by default)."""
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
    state, player = env.reset()  # an untimed game first, as every loop here plays one
    while not env.is_over():
        state, player = env.step(rng.choice(list(state["legal_actions"])))
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


#: --floor: the columns measured again with a codec that encodes nothing (FLOOR[column])
FLOOR = {"PZ raw": "PZ raw, no tensor", "PZ env": "PZ env, no tensor", "OS+tensor": "OS, no tensor"}


@contextlib.contextmanager
def no_tensor():
    """Every game's codec encodes nothing while this lasts (all-zero tensors, made as usual):
    what the PettingZoo and OpenSpiel loops cost besides encoding the view they still build."""
    from cardarena.research import spaces

    classes = set()
    for module in set(spaces.CODEC_MODULES.values()):
        codec = importlib.import_module(f"cardarena.research.{module}").CODEC
        classes.update(codec.values() if isinstance(codec, dict) else [codec])
    saved = {cls: cls.__dict__.get("encode") for cls in classes}  # None: inherited
    for cls in classes:
        cls.encode = lambda self, view: ([], [], [])
    try:
        yield
    finally:
        for cls, encode in saved.items():
            if encode is None:
                del cls.encode
            else:
                cls.encode = encode


def game_row(game_id: str, players: int, options: Mapping, seconds: float, sample: int,
             repeats: int = 1, floor: bool = False) -> dict[str, Any]:
    """Every column of one game: (CPU, wall) decisions per second, or (µs, µs) for the codec;
    each the median of ``repeats`` measurements taken in turns (every column once, then again).
    With ``floor``, :data:`FLOOR`'s columns too, measured under :func:`no_tensor`."""
    loops: dict[str, Callable[[], Any]] = {}
    for column, with_view in (("engine", False), ("engine+view", True)):
        loops[column] = lambda w=with_view: per_second(engine_match(game_id, players, options, w), seconds)
    loops["codec"] = lambda: attempt(lambda: codec_us(game_id, players, options, sample))
    for column, wrapped in (("PZ raw", False), ("PZ env", True)):
        loops[column] = lambda w=wrapped: attempt(
            lambda: per_second(pettingzoo_match(game_id, players, options, w), seconds))
    for column, with_tensor in (("OpenSpiel", False), ("OS+tensor", True)):
        loops[column] = lambda w=with_tensor: attempt(lambda: per_second(
            openspiel_match(ours_in_openspiel(game_id, players, options), w), seconds))
    if floor:
        for column, bare in FLOOR.items():
            loops[bare] = lambda c=column: _without_tensor(loops[c])
    samples: dict[str, list] = {column: [] for column in loops}
    for _ in range(repeats):
        for column, measure in loops.items():
            samples[column].append(measure())
    row = {column: median(s) for column, s in samples.items()}
    codec = row.pop("codec")
    for column, k in (("observe µs", 0), ("mask µs", 1)):
        row[column] = codec if codec == NOT_INSTALLED else (codec[k], codec[k])
    return {column: row[column] for column in COLUMNS + tuple(FLOOR.values()) if column in row}


def _without_tensor(measure: Callable[[], Any]) -> Any:
    def bare():
        with no_tensor():
            return measure()
    return attempt(bare)


def reference_rows(seconds: float, rlcard_python: str | None, repeats: int = 1) -> dict[str, dict[str, Any]]:
    """The reference games' figures (medians of ``repeats``): OpenSpiel's through
    :func:`openspiel_match`, RLCard's."""
    rows: dict[str, dict[str, Any]] = {}
    for title, name, _ in OPENSPIEL_REFERENCES:
        rows[title] = {column: median_of(lambda: attempt(lambda: per_second(
            openspiel_match(openspiel_reference(name), with_tensor), seconds)), repeats)
            for column, with_tensor in (("OpenSpiel", False), ("OS+tensor", True))}
    for title, name, _ in RLCARD_REFERENCES:
        rows[title] = {"env.step": median_of(lambda: attempt(
            lambda: rlcard_elsewhere(rlcard_python, name, seconds) if rlcard_python
            else rlcard_figures(name, seconds)), repeats)}
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


def ratio(row: Mapping[str, Any], top: str, bottom: str) -> float | None:
    """``row[top] / row[bottom]`` by CPU time, ``None`` where a figure is missing."""
    a, b = row.get(top), row.get(bottom)
    if a in (None, NOT_INSTALLED) or b in (None, NOT_INSTALLED):
        return None
    return a[0] / b[0]


def ratio_lines(rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The ratios of CPU-time figures per game (``RATIOS``), blank where a figure is missing."""
    widths = [len(t) + 2 for t, _, _ in RATIOS]
    lines = [f"{'':<16}" + "".join(f"{t:>{w}}" for (t, _, _), w in zip(RATIOS, widths))]
    for title, row in rows.items():
        parts = []
        for (_, top, bottom), w in zip(RATIOS, widths):
            r = ratio(row, top, bottom)
            parts.append(" " * w if r is None else f"{r:>{w}.2f}")
        lines.append(f"{title:<16}" + "".join(parts))
    return lines


def target_lines(rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Each game's ratios against :data:`TARGETS`: the ratio, the target, met or below; and a
    warning where the bare engine measured slower than engine+view (which does more: noise)."""
    widths = [len(t) + 2 for t, _, _, _ in TARGETS]
    lines = [f"{'':<16}" + "".join(f"{t:>{w}}" for (t, _, _, _), w in zip(TARGETS, widths))]
    lines.append(f"{'target':<16}" + "".join(f"{'≥ ' + format(least, '.2f'):>{w}}"
                                              for (_, _, _, least), w in zip(TARGETS, widths)))
    for title, row in rows.items():
        parts = []
        for (_, top, bottom, least), w in zip(TARGETS, widths):
            r = ratio(row, top, bottom)
            parts.append(" " * w if r is None else f"{f'{r:.2f} ' + ('met' if r >= least else 'BELOW'):>{w}}")
        lines.append((f"{title:<16}" + "".join(parts)).rstrip())
    for title, row in rows.items():
        r = ratio(row, "engine", "engine+view")
        if r is not None and r < 1:
            lines.append(f"note: {title}: the engine measured slower than engine+view ({r:.2f}×), which "
                         f"does more work: the machine's load moved (raise --repeats or --seconds)")
    return lines


def floor_lines(rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """--floor: each loop's ratio to engine+view with its tensor and without (:data:`FLOOR`)."""
    titles = [f"{c} / e+v" for c in FLOOR] + [f"{b} / e+v" for b in FLOOR.values()]
    widths = [len(t) + 2 for t in titles]
    lines = [f"{'':<16}" + "".join(f"{t:>{w}}" for t, w in zip(titles, widths))]
    for title, row in rows.items():
        rs = [ratio(row, c, "engine+view") for c in (*FLOOR, *FLOOR.values())]
        lines.append((f"{title:<16}" + "".join(" " * w if r is None else f"{r:>{w}.2f}"
                                               for r, w in zip(rs, widths))).rstrip())
    return lines


def codecs_line() -> str:
    """Whether the codecs ran compiled (``make research``) or as Python, and why."""
    from cardarena.research import compiled

    return compiled.why()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", choices=GAMES, help="only these games (default: all five)")
    ap.add_argument("--players", type=int, default=4, help="seats of every game (default 4)")
    ap.add_argument("--seconds", type=float, help="time per figure (default 3; --quick 0.3)")
    ap.add_argument("--sample", type=int, help="decisions the codec figures are taken over (default 2000; --quick 300)")
    ap.add_argument("--repeats", type=int, default=3, help="measurements a figure is the median of (default 3)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 0.3 s a figure, short matches, ~1 min")
    ap.add_argument("--no-references", action="store_true", help="skip the OpenSpiel C++ and RLCard rows")
    ap.add_argument("--rlcard-python", help="an interpreter that has rlcard (default: this one)")
    ap.add_argument("--ray", action="store_true", help="also in-process matches/s without Ray and on a local Ray "
                                                       "with 1 and 2 workers (bench/research_ray.py)")
    ap.add_argument("--floor", action="store_true",
                    help="also measure the PettingZoo and OpenSpiel loops with codecs that encode nothing")
    args = ap.parse_args(argv)
    seconds = args.seconds or (0.3 if args.quick else 3.0)
    sample = args.sample or (300 if args.quick else 2000)
    chosen = args.game or list(GAMES)
    if args.repeats < 1:
        ap.error(f"--repeats must be at least 1, not {args.repeats}")
    for game_id in chosen:
        cls = games()[game_id]
        if not cls.min_players <= args.players <= cls.max_players:
            ap.error(f"{game_id} is for {cls.min_players}–{cls.max_players} players, not {args.players}")
    options = {g: QUICK_OPTIONS.get(g, {}) if args.quick else {} for g in chosen}
    load = os.getloadavg()
    t = Timer()
    rows = {}
    for game_id in chosen:
        rows[game_id] = game_row(game_id, args.players, options[game_id], seconds, sample, args.repeats,
                                 args.floor)
        print(f"  measured {game_id} ({t.elapsed()[0]:.0f} s)", file=sys.stderr, flush=True)
    references = {} if args.no_references else reference_rows(seconds, args.rlcard_python, args.repeats)
    elapsed = t.elapsed()[0]
    opts = "; ".join(f"{g} {', '.join(f'{k}={v}' for k, v in o.items())}" for g, o in options.items() if o)
    print(f"{args.players} seats, random legal actions, whole matches for {seconds:g} s a figure, "
          f"the median of {args.repeats}; options: {opts or 'the defaults'}")
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
    print(codecs_line())
    deal = attempt(lambda: deal_ms(chosen[0], args.players, options[chosen[0]]))
    if deal != NOT_INSTALLED:
        print(f"OpenSpiel columns: the deal is one chance node of {deal[1]:,} outcomes (the seeds), dealt as "
              f"the match's seed; listing and sampling it by its probabilities takes {deal[0]:.1f} ms CPU "
              f"a match ({chosen[0]}), not counted above")
    print("ratios (CPU time):")
    print("\n".join(ratio_lines(rows)))
    print("targets (CPU time, this run):")
    print("\n".join(target_lines(rows)))
    if args.floor:
        print("without the tensor (codecs encoding nothing; the views still built), over engine+view, CPU time:")
        print("\n".join(floor_lines(rows)))
    if args.ray:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import research_ray
        print(f"matches on Ray ({chosen[0]}, {args.players} seats, the heuristic against random bots):")
        research_ray.measure(chosen[0], args.players, 60 if args.quick else 600, args.repeats)
    print(f"{elapsed:.0f} s; load average {' '.join(f'{x:.2f}' for x in load)} before, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")


if __name__ == "__main__":
    main()
