"""The CLI as a newcomer meets it: a read command on a ledger that is not
there says so and makes nothing; every table names the ledger it read; `match list` has a
header and says when it cut the list; `play` keeps each run's bot logs in a new folder and
prints the result in place order; `league run --server` takes every schedule and time option
and ends with the same standings and rating table as a local league; the Sixth Card protocol
names its row labels as the labels read; the package metadata builds without warnings."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from cardarena.ratings import Ledger

ROOT = Path(__file__).resolve().parents[1]
RANDOM = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"
CLI = [sys.executable, "-m", "cardarena.server.cli"]
GAME = "sixth-card"


def recorded(path: Path, matches: int) -> Path:
    """A ledger with three bots and ``matches`` recorded matches of Sixth Card."""
    ledger = Ledger(str(path))
    for b in ("a", "b", "c"):
        ledger.add_bot(b)
    for i in range(matches):
        mid = ledger.create_match(GAME, i, {}, ["a", "b", "c"])
        ledger.claim_match(mid)
        ledger.record_match(mid, scores=[1.0, 2.0, 3.0], places=[1, 2, 3], faults=[0, 0, 0],
                            forfeited=[False] * 3, steps=[], events=[])
    ledger.close()
    return path


READ_COMMANDS = [["ratings"], ["ratings", "recompute"], ["match", "list"], ["match", "show", "1"],
                 ["match", "export", "1"], ["match", "verify", "1"], ["bot", "list"], ["league", "list"],
                 ["league", "show", "1"], ["ledger", "check"], ["league", "resume", "1"]]


@pytest.mark.parametrize("argv", READ_COMMANDS, ids=" ".join)
def test_a_read_command_on_a_ledger_that_is_not_there_says_so_and_makes_none(cli, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CARDARENA_DB", raising=False)
    code, out, err = cli(*argv)  # the default, ./cardarena.db
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith("cardarena: no ") and f"no ledger at '{tmp_path / 'cardarena.db'}'" in lines[0]
    if argv[-1] == "1":  # what was asked for is named too
        assert lines[0].startswith(f"cardarena: no {argv[0]} 1: no ledger at"), lines[0]
    assert out == "" and not (tmp_path / "cardarena.db").exists(), "nothing is made"
    code, _, err = cli(*argv, "--db", f"sqlite:///{tmp_path / 'url.db'}")
    assert code == 1 and "no ledger at" in err and not (tmp_path / "url.db").exists()


def test_every_table_names_the_ledger_it_read(cli, tmp_path):
    """The first line, on stderr (the rows on stdout stay for scripts), names the ledger, once
    the ledger has been read (a failure is still one line)."""
    path = recorded(tmp_path / "named.db", 2)
    for argv in (["ratings"], ["ratings", "--format", "markdown"], ["bot", "list"], ["match", "list"],
                 ["league", "list"]):
        code, out, err = cli(*argv, "--db", str(path))
        assert code == 0 and err.splitlines()[0].startswith(f"ledger {path}"), (argv, err)
    code, out, err = cli("ratings", "--game", GAME, "--db", str(path))
    assert err.splitlines()[0] == f"ledger {path}: ratings of {GAME}"
    assert out.splitlines()[0].split()[:2] == ["rank", "bot"]
    code, out, err = cli("ratings", "--format", "json", "--db", str(path))
    assert code == 0 and err == "" and out.startswith("["), "a machine format has no caption"


def test_match_list_has_a_header_and_says_when_it_cut_the_list(cli, tmp_path):
    path = recorded(tmp_path / "five.db", 5)
    code, out, err = cli("match", "list", "--limit", "3", "--db", str(path))
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines()] == ["5", "4", "3"]
    assert f"ledger {path}: the latest 3 of 5 matches shown; --limit N shows more" in err
    assert "id\tgame\tstatus\tseats (bot #place)" in err
    code, out, err = cli("match", "list", "--db", str(path))
    assert code == 0 and len(out.splitlines()) == 5 and f"ledger {path}: 5 matches" in err and "--limit" not in err
    code, _, err = cli("match", "list", "--limit", "0", "--db", str(path))
    assert code == 2 and "--limit" in err and "greater than or equal to 1" in err


def test_play_keeps_each_runs_bot_logs_in_a_new_folder_and_prints_the_result_in_place_order(cli, tmp_path,
                                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    folders = []
    for _ in range(2):
        code, out, err = cli("play", "--game", GAME, "--bot", f"r1={RANDOM}", "--bot", f"r2={RANDOM}",
                             "--bot", f"r3={RANDOM}", "--seed", "3", "--log-dir", str(tmp_path / "logs"))
        assert code == 0, err
        said = next(line for line in out.splitlines() if "bot logs in" in line)
        folder = Path(said.split("bot logs in ", 1)[1])
        assert folder.parent == tmp_path / "logs" and folder.name.startswith("play-")
        assert sorted(p.name for p in folder.iterdir()) == ["r1.log", "r2.log", "r3.log"]
        folders.append(folder)
        result = out.split("result:\n", 1)[1].splitlines()
        places = [int(line.split("place ", 1)[1].split(":")[0]) for line in result if "place " in line]
        assert len(places) == 3 and places == sorted(places) and places[0] == 1, result
    assert folders[0] != folders[1], "a second run writes over nothing of the first"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_league_run_on_a_server_takes_every_option_and_ends_as_a_local_league(tmp_path):
    """`league run --server`: --matches, --duplicate and the time options reach the server's
    league (its `league show` says so); the end is the standings and the rating table."""
    address = f"127.0.0.1:{free_port()}"
    db = tmp_path / "served.db"
    env = {**os.environ, "CARDARENA_ADMIN_TOKEN": "admin-secret-for-tests"}
    server = subprocess.Popen([*CLI, "serve", "--address", address, "--db", str(db), "--no-web"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "listening on" not in server.stderr.readline():
            assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
        bots = [a for k in (1, 2, 3) for a in ("--bot", f"r{k}={RANDOM}")]
        runs = {"balanced": ["--matches", "4", "--time-bank", "1.5", "--max-faults", "2", "--grace", "4",
                             "--max-reconnects", "3", "--move-time", "3"],
                "duplicate": ["--duplicate", "--max-faults", "0"]}
        for kind, options in runs.items():
            r = subprocess.run([*CLI, "league", "run", "--server", address, "--game", GAME, "--seats", "3", *bots,
                                *options, "--log-dir", str(tmp_path / "logs")], env=env, cwd=tmp_path,
                               capture_output=True, text=True, timeout=240)
            assert r.returncode == 0, r.stderr
            assert f"on {address}" in r.stderr and "ETA" in r.stderr, "the progress bar"
            assert "standings (points" in r.stdout and f"ratings for {GAME}" in r.stdout, r.stdout
            assert all(f"r{k}" in r.stdout.split("standings", 1)[1] for k in (1, 2, 3))
        shown = subprocess.run([*CLI, "league", "show", "1", "--db", str(db)], capture_output=True, text=True,
                               timeout=60).stdout
        assert "balanced schedule of 4 matches" in shown and "bank 1.5 s" in shown, shown
        assert "forfeit after 2 faults" in shown and "away at most 4 s per match and 3 reconnects" in shown
        assert "3 s per decision" in shown
        shown = subprocess.run([*CLI, "league", "show", "2", "--db", str(db)], capture_output=True, text=True,
                               timeout=60).stdout
        assert "duplicate" in shown and "no forfeit for faults" in shown, shown
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_the_sixth_card_protocol_names_row_labels_as_they_read():
    """The row choice's comment says `take row N` (and `put … in row N`), the labels' own words."""
    proto = (ROOT / "proto" / "cardarena" / "v1" / "sixth_card.proto").read_text(encoding="utf-8")
    comment = proto.split("int32 row = 2;")[0].rsplit("oneof kind", 1)[1]
    assert '"take row 1"–"take row 4"' in comment and '"put 9♥ in row 3"' in comment
    engine = (ROOT / "server" / "games" / "sixth_card.py").read_text(encoding="utf-8")
    assert 'f"take row {value + 1}"' in engine and 'in row {value + 1}"' in engine


def test_the_package_metadata_is_what_setuptools_asks_for():
    """`make demo` installs without setuptools' warnings: the licence an SPDX expression, and
    every folder the package ships listed as a package, so nothing is "ignored". A folder git
    ignores is a build's output (the compiled research codecs), not shipped."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "MIT"
    tool = project["tool"]["setuptools"]
    listed = set(tool["packages"])
    folders = [sub for f in tool["package-dir"].values() for sub in (ROOT / f).rglob("*")
               if sub.is_dir() and sub.name != "__pycache__"]
    ignored = subprocess.run(["git", "check-ignore", "--stdin"], input="\n".join(map(str, folders)), cwd=ROOT,
                             capture_output=True, text=True).stdout.split("\n")
    for name, folder in tool["package-dir"].items():
        for sub in sorted((ROOT / folder).rglob("*")):
            if sub.is_dir() and sub.name != "__pycache__" and str(sub) not in ignored \
                    and any(f.is_file() for f in sub.iterdir()):
                dotted = name + "." + ".".join(sub.relative_to(ROOT / folder).parts)
                owner = next((n for n, f in tool["package-dir"].items() if (ROOT / f) == sub), dotted)
                assert owner in listed, f"{sub.relative_to(ROOT)} ships but {owner} is not in packages"
