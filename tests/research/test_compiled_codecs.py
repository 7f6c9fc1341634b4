"""The codecs compiled with mypyc (server/research/compile_codecs.py, run by ``make research``):
the build is the one in use, only while it is current, and it gives exactly what the Python
codecs give: the same tensors (bit for bit, in each of their forms) and action ids over every
seat's view at every step of real matches of every game, seat counts and Sixth Card's two decks
included. The Python side runs in a child process with ``CARDARENA_CODECS=python``."""
from __future__ import annotations

import hashlib
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardarena.research import compiled, spaces
from cardarena.server.games import new_game

HERE = Path(__file__).resolve().parent
#: (game, seats, options, seeds): every game; Sixth Card with two decks (6 seats) too
CASES = [("sixth-card", 4, {"rounds": 2}, 3), ("sixth-card", 6, {"rounds": 1}, 2),
         ("unsorted", 3, {"max_deals": 2}, 3), ("unsorted", 5, {"max_deals": 1}, 2),
         ("scouting", 4, {}, 2), ("scouting", 3, {}, 1), ("scout", 5, {}, 2), ("scout", 3, {}, 1),
         ("three-thirteen", 4, {"rounds": 4}, 2), ("three-thirteen", 5, {"rounds": 3}, 1)]


def _need_build() -> None:
    if not compiled.compiled():
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the compiled codecs: make research did not build them ({compiled.why()}; "
                        "python server/research/compile_codecs.py says why)")
        pytest.skip(f"{compiled.why()} (python server/research/compile_codecs.py)")


def figures(game_id: str, players: int, options: dict, seeds: int) -> list[tuple]:
    """Every seat's view at every step of ``seeds`` random matches (random legal actions), each as
    (its tensor's bytes by observe, by tensor_list, the ids of the seat's legal actions by their
    JSON and by engine_ids, the mask's bytes); views read in order, as environments read them."""
    codec = spaces.codec(game_id, players, options)
    out = []
    for seed in range(seeds):
        game = new_game(game_id, players, seed, options)
        rng = random.Random(seed)
        while True:
            acting = game.to_act() if not game.is_over() else ()
            for seat in range(players):
                view = game.view(seat)
                row: tuple = (codec.observe(view).tobytes(), np.array(codec.tensor_list(view), np.float32).tobytes())
                if seat in acting:
                    actions = game.legal_actions(seat)
                    json = [game.action_json(a) for a in actions]
                    row += (codec.ids(json), codec.engine_ids(game, actions), codec.mask(json).tobytes())
                out.append(row)
            if not acting:
                break
            game.apply({s: rng.choice(game.legal_actions(s)) for s in acting})
    return out


def _python_figures(cases: list) -> list:
    """:func:`figures` of each case by the Python codecs, in a child process."""
    code = (f"import pickle, sys; sys.path.insert(0, {str(HERE)!r}); import test_compiled_codecs as t; "
            f"sys.stdout.buffer.write(pickle.dumps([t.figures(*c) for c in {cases!r}]))")
    env = dict(os.environ, **{compiled.ENV: "python"})
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr.decode()
    return pickle.loads(r.stdout)


def test_the_compiled_codecs_are_current_and_in_use():
    """After ``make research`` the codecs are the build (every module of it, classes included),
    made from the sources as they are; CARDARENA_CODECS=python, or a source edited since the build,
    runs them as Python, with one line saying why."""
    _need_build()
    assert spaces.__name__ == compiled.PACKAGE + ".spaces"
    for game_id in ("sixth-card", "unsorted", "scouting", "scout", "three-thirteen"):
        assert type(spaces.codec(game_id, 4)).__module__.startswith(compiled.PACKAGE + "."), game_id
    from cardarena.research import codec_sixth_card, pettingzoo
    assert codec_sixth_card.SixthCardCodec is type(pettingzoo.raw_env("sixth-card", 4).codec)
    probe = ("from cardarena.research import compiled, spaces; "
             "print(compiled.compiled(), spaces.__name__, compiled.why())")
    r = subprocess.run([sys.executable, "-c", probe], env=dict(os.environ, **{compiled.ENV: "python"}),
                       capture_output=True, text=True, check=True)
    assert r.stdout.startswith("False cardarena.research.spaces the codecs run as Python: CARDARENA_CODECS=python")


def test_a_build_of_other_sources_is_not_taken(monkeypatch):
    """The build carries the hash of the sources it was made from; any other hash (a source
    edited since) and the codecs run as Python."""
    _need_build()
    assert compiled._decide()[0]
    monkeypatch.setattr(compiled, "source_hash", lambda: hashlib.sha256(b"an edited source").hexdigest())
    taken, why = compiled._decide()
    assert not taken and "compiled build is of other sources" in why


def test_the_compiled_codecs_give_the_python_codecs_tensors_and_ids_bit_for_bit():
    _need_build()
    python = _python_figures(CASES)
    for case, slow in zip(CASES, python):
        fast = figures(*case)
        assert len(fast) == len(slow) > 50, case
        tensors = 0
        for i, (a, b) in enumerate(zip(fast, slow)):
            assert a == b, f"{case}: view {i} differs"
            tensors += any(a[0])
        assert tensors == len(fast), f"{case}: an all-zero tensor"
