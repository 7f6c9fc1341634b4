"""The README's promise, over every command's options: a bad argument is one line and exit 2, a
known failure (no such bot, league or match) one line and exit 1, never a traceback; and a
command that only reads never writes to a file, empty or not.

In-process (the ``cli`` fixture), on a ledger with one bot and one recorded match. Each row is a
command line that must be refused before anything starts: bounds, numbers past what the ledger
holds, unknown names, negative ids.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardarena.ratings import Ledger

pytestmark = pytest.mark.any_ledger  # the subject is the CLI's words: the SQLite pass only

ROOT = Path(__file__).resolve().parents[1]
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
GAME = "sixth-card"
HUGE = "99999999999999999999"  # past a 64-bit integer: the ledger cannot hold it
TWO = ["--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}"]
LEAGUE = ["league", "run", "--game", GAME, *TWO]
PLAY = ["play", "--game", GAME, *TWO]

BAD_ARGUMENTS = [
    # league run
    [*LEAGUE, "--rounds", "-1"], [*LEAGUE, "--rounds", "0"], [*LEAGUE, "--rounds", HUGE],
    [*LEAGUE, "--rounds", "100000000"],  # a round robin past the most one league holds
    [*LEAGUE, "--start-timeout", "0"],
    [*LEAGUE, "--seats", "11"], [*LEAGUE, "--seats", "-1"], [*LEAGUE, "--seats", HUGE],
    [*LEAGUE, "--option", "nosuch=3"], [*LEAGUE, "--option", "end_score=-5"],
    [*LEAGUE, "-j", "0"], [*LEAGUE, "-j", "-3"],
    [*LEAGUE, "--until-separated", "--confidence", "1.5"], [*LEAGUE, "--until-separated", "--confidence", "0"],
    [*LEAGUE, "--confidence", "0.9"],  # without --until-separated
    [*LEAGUE, "--matches", "0"], [*LEAGUE, "--matches", HUGE],
    [*LEAGUE, "--seed", "-1"], [*LEAGUE, "--seed", HUGE],
    [*LEAGUE, "--until-separated", "--top", "0"], [*LEAGUE, "--until-separated", "--max-matches", "0"],
    [*LEAGUE, "--move-time", "-1"], [*LEAGUE, "--max-faults", "-1"], [*LEAGUE, "--lease", "0"],
    [*LEAGUE, "--gauntlet", "nosuch"], ["league", "run", "--game", "nosuchgame", *TWO],
    [*LEAGUE, "--log-dir", "BLOCKED/logs"],
    # league resume, work, show
    ["league", "resume", "-1"], ["league", "resume", HUGE], ["league", "resume", "1", "-j", "0"],
    ["league", "work", "-1"], ["league", "work", "1", "-j", "0"],
    ["league", "show", "-2"], ["league", "show", "0"], ["league", "show", HUGE],
    ["league", "show", "1", "--sets", "-2"], ["league", "show", "1", "--format", "xml"],
    # play
    [*PLAY, "--seat", "-1"], [*PLAY, "--seat", "2"], [*PLAY, "--seed", "-1"], [*PLAY, "--seed", HUGE],
    [*PLAY, "--option", "nosuch=3"], [*PLAY, "--move-time", "0"],
    ["play", "--game", "nosuchgame", *TWO],
    # match
    ["match", "list", "--game", "nosuchgame"], ["match", "list", "--limit", "0"],
    ["match", "list", "--limit", "-5"], ["match", "list", "--limit", HUGE],
    ["match", "list", "--league", "-1"], ["match", "list", "--league", HUGE],
    ["match", "show", "-1"], ["match", "show", "0"], ["match", "show", HUGE], ["match", "show", "1", "--seat", "-1"],
    ["match", "show", "1", "--seat", "9"],
    ["match", "export", "-1"], ["match", "export", HUGE],
    ["match", "verify", "-1"], ["match", "verify", "--league", "-1"], ["match", "verify", "--league", HUGE],
    # ratings
    ["ratings", "--game", "nosuchgame"], ["ratings", "--format", "xml"],
    ["ratings", "--explain", "a", "--last", "0"], ["ratings", "--explain", "a", "--last", "-1"],
    ["ratings", "--explain", "a", "--last", HUGE], ["ratings", "--explain", "a", "--last", "ten"],
    ["ratings", "recompute", "--game", "nosuchgame"],
    # bots
    ["bot", "add", "two words"], ["bot", "add", "a=b"],
    ["bot", "connect", "--max-matches", "-1", "--", "true"], ["bot", "connect", "--max-matches", HUGE, "--", "true"],
    ["bot", "connect", "--max-matches-per-hour", "-1", "--", "true"],
    ["bot", "connect", "--game", "nosuchgame", "--", "true"], ["bot", "connect", "--address", "x:99999", "--", "true"],
    ["bot", "list", "--server", "127.0.0.1:65536"],
    ["bridge", "--token", "x", "--", "nosuchprog"], ["bridge", "--token", "x", "--", "/no/such/prog"],
    ["bot", "connect", "--token-file", "/no/such/file", "--", "true"],
    ["bot", "versions", "me", "--token-file", "/no/such/file"],
    # ledger
    ["ledger", "prune", "--older-than", "-1"], ["ledger", "prune", "--older-than", "nan"],
    ["ledger", "prune", "--older-than", "1", "--kind", "nosuch"],
    # serve, demo, rules
    ["serve", "--address", "127.0.0.1:70000"], ["serve", "--move-time", "-1"], ["serve", "--rate", "-1"],
    ["serve", "--tls-cert", "/no/such/cert", "--tls-key", "/no/such/key"],
    ["serve", "--admin-token-file", "/no/such/file"],
    ["demo", "--rounds", "0"], ["demo", "--rounds", HUGE], ["demo", "--game", "nosuchgame"],
    ["demo", "--web", "--web-address", "127.0.0.1:99999"], [*LEAGUE, "--web-address", "127.0.0.1:99999"],
    ["rules", "nosuchgame"],
    # no such option, no such command
    ["ratings", "--nosuch"], ["nosuch"],
]

KNOWN_FAILURES = [
    ["league", "resume", "99"], ["league", "show", "99"], ["match", "show", "99"], ["match", "export", "99"],
    ["match", "verify", "99"], ["bot", "pause", "nosuch"], ["bot", "resume", "nosuch"],
    ["ratings", "--explain", "nosuch"],
]


def one_line(code: int, err: str, expected: int) -> str:
    assert code == expected, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    return lines[0]


def with_a_match(url: str) -> str:
    """The ledger at ``url`` with bots a and b and one recorded match (id 1)."""
    ledger = Ledger(url)
    ledger.add_bot("a")
    ledger.add_bot("b")
    match = ledger.create_match(GAME, 7, {}, ["a", "b"])
    ledger.claim_match(match)
    ledger.record_match(match, places=[1, 2], scores=[1.0, 0.0], faults=[0, 0], forfeited=[False, False],
                        steps=[], events=[])
    ledger.close()
    return url


def shown(argv: list[str]) -> str:
    return " ".join(a for a in argv if "random_bot" not in a)


@pytest.fixture(scope="module")
def played_file(tmp_path_factory) -> str:
    return with_a_match(str(tmp_path_factory.mktemp("words") / "ledger.db"))


@pytest.fixture
def played(played_file, tmp_path, monkeypatch) -> str:
    """One ledger for the module (no row here changes it: each test checks so), in CARDARENA_DB."""
    monkeypatch.setenv("CARDARENA_DB", played_file)
    monkeypatch.chdir(tmp_path)
    return played_file


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=shown)
def test_a_bad_argument_is_one_line_and_exit_2(cli, played, tmp_path, argv):
    (tmp_path / "BLOCKED").write_text("")  # a file: no folder can be made below it
    before = Ledger(played).counts()
    code, _, err = cli(*[a.replace("BLOCKED", str(tmp_path / "BLOCKED")) for a in argv])
    one_line(code, err, 2)
    assert Ledger(played).counts() == before, "nothing was scheduled or recorded"


@pytest.mark.parametrize("argv", KNOWN_FAILURES, ids=shown)
def test_a_known_failure_is_one_line_and_exit_1(cli, played, argv):
    code, _, err = cli(*argv)
    one_line(code, err, 1)


READERS = [["ratings"], ["ratings", "--explain", "a"], ["match", "list"], ["match", "show", "1"],
           ["match", "export", "1"], ["match", "verify", "1"], ["league", "list"], ["league", "show", "1"],
           ["bot", "list"], ["ledger", "check"]]


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file()}


@pytest.mark.sqlite
@pytest.mark.parametrize("argv", READERS, ids=shown)
def test_a_command_that_reads_writes_nothing(cli, tmp_path, monkeypatch, argv):
    """Not an empty file (no schema is written into it), nor a ledger's file (no byte changes),
    nor a file beside it (SQLite's own -wal and -shm are gone once the command exits)."""
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "empty" / "ledger.db"
    empty.parent.mkdir()
    empty.touch()
    code, _, err = cli(*argv, "--db", str(empty))
    one_line(code, err, 1)
    assert empty.stat().st_size == 0 and os.listdir(empty.parent) == ["ledger.db"]

    full = tmp_path / "full" / "ledger.db"
    full.parent.mkdir()
    with_a_match(str(full))
    before = _files(full.parent)
    subprocess.run([sys.executable, "-m", "cardarena.server.cli", *argv, "--db", str(full)], cwd=tmp_path,
                   capture_output=True, timeout=120)  # a process of its own: its connections closed at exit
    assert _files(full.parent) == before
