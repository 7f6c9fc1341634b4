"""Operator mistakes end as one line and a non-zero exit, never a traceback.

Through the real CLI: in-process (the ``cli`` fixture) where only the output matters, as a
subprocess where signals, tracebacks or a full disk do. A bot command that cannot run, an
unwritable --log-dir, numbers that are not finite, a port above 65535, an empty --db, damaged
and truncated ledgers, a full disk while recording, Ctrl-C in the first second of a league, and
bots whose streams are still open when a league ends. And `serve`'s admin token: from
CARDARENA_ADMIN_TOKEN or --admin-token-file; on the command line it works, with a warning.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from cardarena.ratings import Ledger, LedgerError
from cardarena.server.league import LeagueError, LeagueSpec, check_spec

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"
CLI = [sys.executable, "-m", "cardarena.server.cli"]
RANDOM = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"
GAME = "sixth-card"


def one_line(code, err, expected, *words):
    """Exit code ``expected``, and stderr one line "cardarena: …" holding every word."""
    assert code == expected, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    for w in words:
        assert w in lines[0], err


def run(*args, cwd: Path, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout)


def league_args(*extra: str) -> list[str]:
    return ["league", "run", "--game", GAME, "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}", *extra]


# ----------------------------------------------------------------------------- bot commands
@pytest.fixture
def not_executable(tmp_path) -> Path:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return script


@pytest.mark.parametrize("command,words", [
    ("/no/such/bot", ["bot c: no program '/no/such/bot': no such file"]),
    ("no-such-program-anywhere --fast", ["bot c: no program 'no-such-program-anywhere' on the PATH"]),
    ("NOT_EXECUTABLE", ["is not executable"]),
    ("python 'my bot.py", ["bot c: cannot split the command", "no closing quotation"]),
    ("FOLDER", ["is a folder, not a program"]),
])
@pytest.mark.parametrize("command_line", ["league", "play"])
def test_a_bot_command_that_cannot_run_is_one_line_before_anything_starts(cli, db, not_executable, command,
                                                                          words, command_line):
    command = command.replace("NOT_EXECUTABLE", str(not_executable)).replace("FOLDER", str(not_executable.parent))
    argv = league_args() if command_line == "league" else ["play", "--game", GAME, "--bot", f"a={RANDOM}",
                                                           "--bot", f"b={RANDOM}"]
    code, _, err = cli(*argv, "--bot", f"c={command}")
    one_line(code, err, 2, *words)
    assert not os.path.exists(db) or Ledger(db).leagues() == [], "nothing is scheduled (the file may not even be made)"


def test_resume_refuses_a_recorded_command_that_cannot_run(cli, db, tmp_path):
    from cardarena.server.league import league_plans, league_settings
    from cardarena.server.referee import TimeControl
    spec = check_spec(LeagueSpec(GAME, ["a", "b"], seats=2, commands={"a": RANDOM, "b": "./gone-bot"},
                                 workdir=str(tmp_path)))
    ledger = Ledger(db)
    for b in spec.bots:
        ledger.add_bot(b)
    league_id = ledger.create_league(GAME, spec.options, league_settings(spec, TimeControl()), league_plans(spec))
    code, _, err = cli("league", "resume", str(league_id))
    one_line(code, err, 1, "starts bot b with './gone-bot', which cannot run", "give --bot b=COMMAND")


def test_an_unwritable_log_dir_is_one_line(cli, db, tmp_path):
    """A --log-dir below a regular file cannot be made (as root, a permission is no obstacle): a
    bad argument, refused before the ledger is opened."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for argv in (league_args(), ["play", "--game", GAME, "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}"]):
        code, _, err = cli(*argv, "--log-dir", str(blocker / "logs"))
        one_line(code, err, 2, "cannot make the log folder", "a-file/logs")
    assert "://" in db or not os.path.exists(db), "the ledger is not even made"


# ----------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("extra,hint", [
    (["--option", "end_score=1e999"], "end_score: inf is not a finite number"),
    (["--option", "end_score=NaN"], "end_score: nan is not a finite number"),
    (["--option", "end_score=-Infinity"], "end_score: -inf is not a finite number"),
    (["--move-time", "nan"], "--move-time"),
    (["--move-time", "inf"], "--move-time"),
    (["--time-bank", "inf"], "--time-bank"),
    (["--grace", "nan"], "--grace"),
    (["--start-timeout", "nan"], "--start-timeout"),
    (["--max-reconnects", "-1"], "--max-reconnects"),
])
def test_numbers_that_are_not_finite_are_refused(cli, db, extra, hint):
    code, _, err = cli(*league_args(*extra))
    one_line(code, err, 2, hint)


def test_play_refuses_an_infinite_move_time_and_option(cli, db):
    base = ["play", "--game", GAME, "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}"]
    code, _, err = cli(*base, "--move-time", "inf")
    one_line(code, err, 2, "--move-time", "finite")
    code, _, err = cli(*base, "--option", "end_score=1e999")
    one_line(code, err, 2, "not a finite number")


def test_a_league_spec_with_an_infinite_option_is_refused_in_one_line():
    """The library path too: a LeagueError, not an OverflowError out of the game's option check."""
    for options in ({"end_score": float("inf")}, {"end_score": float("nan")}):
        with pytest.raises(LeagueError, match="not a finite number"):
            check_spec(LeagueSpec(GAME, ["a", "b"], options=options))
    with pytest.raises(LeagueError, match="finite"):
        check_spec(LeagueSpec(GAME, ["a", "b"], move_seconds=float("nan")))


@pytest.mark.parametrize("argv,hint", [
    (["serve", "--address", "127.0.0.1:70000"], "the port must be a number from 0 to 65535"),
    (["serve", "--address", "127.0.0.1:port"], "the port must be a number from 0 to 65535"),
    (["serve", "--address", "50051"], "is not HOST:PORT"),
    (["bot", "list", "--server", "127.0.0.1:65536"], "the port must be a number from 0 to 65535"),
])
def test_an_address_out_of_range_is_refused(cli, db, argv, hint):
    code, _, err = cli(*argv)
    one_line(code, err, 2, hint)


@pytest.mark.parametrize("argv", [["ratings"], ["league", "list"], ["bot", "add", "x"], ["ledger", "check"],
                                  league_args()])
def test_an_empty_db_is_refused(cli, db, argv):
    code, _, err = cli(*argv, "--db", "")
    one_line(code, err, 2, "--db", "is empty")


# ----------------------------------------------------------------------------- damaged ledgers
def real_ledger(path: Path, matches: int = 40) -> Path:
    """A ledger file with bots, recorded matches and ratings, checkpointed into the file itself
    (SQLite: these tests damage the file's bytes)."""
    ledger = Ledger(str(path))
    for b in ("a", "b", "c"):
        ledger.add_bot(b)
    for i in range(matches):
        bots = ["a", "b", "c"][i % 3:] + ["a", "b", "c"][:i % 3]
        mid = ledger.create_match(GAME, i, {}, bots)
        ledger.claim_match(mid)
        ledger.record_match(mid, scores=[1.0, 2.0, 3.0], places=[1, 2, 3], faults=[0, 0, 0],
                            forfeited=[False] * 3, steps=[{0: 1, 1: 0, 2: 2}] * 20,
                            events=[{"step": k, "seats": None, "data": {"type": "x", "n": k}} for k in range(50)])
    ledger.close()
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0
    return path


def test_a_file_that_is_not_a_ledger_is_one_line(cli, tmp_path):
    """SQLite: a --db file that holds something else."""
    junk = tmp_path / "notes.db"
    junk.write_text("these are my notes, not a ledger\n" * 200)
    for argv in (["ratings"], ["ledger", "check"], ["league", "list"]):
        code, _, err = cli(*argv, "--db", str(junk))
        one_line(code, err, 1, "notes.db is damaged or not a cardarena ledger", "file is not a database")


def test_a_truncated_ledger_is_one_line(cli, tmp_path):
    path = real_ledger(tmp_path / "cut.db")
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2 // 4096 * 4096])
    for argv in (["ratings"], ["ledger", "check"]):
        code, _, err = cli(*argv, "--db", str(path))
        one_line(code, err, 1, "cut.db is damaged or not a cardarena ledger", "malformed")


def test_ledger_check_finds_a_damaged_page(cli, tmp_path):
    """Garbage over pages in the middle of a real ledger: `ledger check` says the file is damaged
    (SQLite's own check), exit 1, one line on stderr, the damage on stdout."""
    path = real_ledger(tmp_path / "hurt.db")
    data = bytearray(path.read_bytes())
    assert len(data) > 12 * 4096
    data[4 * 4096:8 * 4096] = b"\x5a" * (4 * 4096)
    path.write_bytes(bytes(data))
    code, out, err = cli("ledger", "check", "--db", str(path))
    assert code == 1 and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    assert "damaged" in lines[0] or "the ledger has" in lines[0], err
    assert "damaged" in err + out


# ----------------------------------------------------------------------------- a full disk
@pytest.fixture
def small_disk(tmp_path):
    """A 400 KB tmpfs; skipped where this process may not mount one, except in CI (which runs as
    root and must run this test)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    skip = pytest.fail if os.environ.get("CI") else pytest.skip
    tool = shutil.which("mount")
    if tool is None or os.geteuid() != 0:
        skip("mounting a tmpfs needs root and mount(8)")
    r = subprocess.run([tool, "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)], capture_output=True, text=True)
    if r.returncode != 0:
        skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_stops_the_league_in_one_line_and_resume_finishes_it(small_disk, tmp_path):
    """60 short matches cannot be recorded in 400 KB: the league stops with one line naming the
    full ledger and the resume command, the ledger stays consistent (ledger check), and once
    there is room `league resume` plays the rest; every match is recorded once. SQLite: the
    ledger is a file on that small disk."""
    db = small_disk / "league.db"
    r = run(*league_args("--rounds", "30", "--option", "rounds=1", "--db", str(db),
                         "--log-dir", str(tmp_path / "logs")), cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("cardarena: the ledger ") and "is full" in last, r.stderr
    assert "league 1 stopped at" in last and "cardarena league resume 1" in last
    assert [x for x in r.stderr.splitlines() if x.startswith("cardarena:")] == [last]
    check = run("ledger", "check", "--db", str(db), cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    finished = Ledger(str(db)).league(1).counts["finished"]
    assert finished < 60

    subprocess.run(["mount", "-o", "remount,size=16m", str(small_disk)], check=True)
    r = run("league", "resume", "1", "--db", str(db), "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "league 1 finished: 60 matches." in r.stdout
    check = run("ledger", "check", "--db", str(db), cwd=tmp_path)
    assert check.returncode == 0 and "60 finished" in check.stdout, check.stdout


def _interrupted(proc: subprocess.Popen, until) -> str:
    """SIGINT to ``proc`` once it has said its first line and ``until()`` returned; its stderr,
    after it has exited with 130."""
    try:
        first = proc.stderr.readline()
        until()
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    err = first + rest
    assert proc.returncode == 130, err
    return err


# ----------------------------------------------------------------------------- Ctrl-C at the start
@pytest.mark.parametrize("delay", [0.0, 0.5])
def test_ctrl_c_in_the_first_second_of_a_league(tmp_path, ledger_url, delay):
    """SIGINT to `league run` right after it starts (once it has printed its first line, then
    0–1 s later): one line, exit 130, no traceback, the ledger consistent, and if the league was
    scheduled already, `league resume` finishes it."""
    db = ledger_url()
    proc = subprocess.Popen([*CLI, *league_args("--bot", f"c={RANDOM}", "--db", db, "--log-dir",
                                                str(tmp_path / "logs"))],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = _interrupted(proc, lambda: time.sleep(delay))
    assert "Traceback" not in err and "Error" not in err, err
    said = [x for x in err.splitlines() if x.startswith("cardarena:")]
    assert len(said) == 1 and said[0].startswith("cardarena: interrupted"), err
    check = run("ledger", "check", "--db", db, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    leagues = Ledger(db).leagues()
    if leagues:
        assert "cardarena league resume 1" in said[0]
        r = run("league", "resume", "1", "--db", db, "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
        assert r.returncode == 0 and "league 1 finished: 6 matches." in r.stdout, r.stderr


def test_a_league_stopped_mid_way_says_as_many_matches_done_as_the_ledger_holds(tmp_path, ledger_url):
    """SIGINT once a few matches are recorded: the matches its line says are done are the ones
    the ledger holds finished, records written while it stopped included (the progress bar's
    count once missed one of them)."""
    db = ledger_url()
    proc = subprocess.Popen([*CLI, *league_args("--rounds", "100", "--option", "rounds=1", "--db", db, "--log-dir",
                                                str(tmp_path / "logs"))],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    def three_recorded():  # after "league: …", the ledger is made, the league soon in it
        ledger, deadline = Ledger(db), time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if ledger.league(1).counts["finished"] >= 3:
                    break
            except LedgerError:  # not in the ledger yet
                pass
            time.sleep(0.2)
        ledger.close()

    err = _interrupted(proc, three_recorded)
    said = [x for x in err.splitlines() if x.startswith("cardarena:")]
    assert len(said) == 1 and "league 1 stopped at " in said[0], err
    counts = Ledger(db).league(1).counts
    assert f"stopped at {counts['finished'] + counts['failed']}/200 matches" in said[0], (said[0], counts)
    assert counts["finished"] >= 3


def test_ctrl_c_while_the_cli_is_still_importing():
    """A SIGINT that lands while `cardarena` is still being imported is answered by main() as one
    line and exit 130, not as a KeyboardInterrupt traceback out of an import."""
    code = ("import os, signal, sys\n"
            "sys.argv = ['cardarena', 'games']\n"
            "from cardarena.server import cli\n"
            "os.kill(os.getpid(), signal.SIGINT)\n"  # as if it had come during the import
            "cli.main()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    one_line(r.returncode, r.stderr, 130, "interrupted")
    assert r.stdout == ""


# ----------------------------------------------------------------------------- the end of a league
def test_streams_still_open_when_a_league_ends_close_cleanly(tmp_path, ledger_url):
    """At the end every bot's stream is ended by the referee after its last message: SDK bots
    read their match_end and leave by themselves; a bot that lingers after its stream ended is
    stopped. Nothing of it is noise in the output."""
    logs = tmp_path / "logs"
    r = run(*league_args("--bot", f"ends=python {BOTS / 'reports_end.py'}", "--bot",
                         f"stays=python {BOTS / 'lingers.py'}", "--seats", "2", "--option", "rounds=1",
                         "--db", ledger_url(), "--log-dir", str(logs)),
            cwd=tmp_path, env={"PYTHONPATH": str(BOTS)})
    assert r.returncode == 0, r.stderr
    assert "league 1 finished: 12 matches." in r.stdout
    for word in ("Traceback", "Error", "error", "exception", "Exception"):
        assert word not in r.stderr, r.stderr
    (league_log,) = logs.iterdir()
    ends = (league_log / "ends.log").read_text()
    assert ends.count("match_end ") == 6 and ends.rstrip().endswith("the referee ended the stream"), ends
    for log in league_log.iterdir():
        assert "Traceback" not in log.read_text(), log


def test_a_bot_that_never_reads_is_cut_at_the_end_of_a_league_without_noise(tmp_path, ledger_url):
    """A bot that never reads, seated in a 6-match league through the CLI: it costs only its own
    seats, and the end of the league (its stream possibly stuck in a write) makes no noise."""
    r = run(*league_args("--bot", f"deaf=python {BOTS / 'non_reader.py'}", "--seats", "3", "--rounds", "2",
                         "--move-time", "0.05", "--grace", "0.5", "--db", ledger_url()),
            cwd=tmp_path, env={"PYTHONPATH": str(BOTS)})
    assert r.returncode == 0, r.stderr
    assert "league 1 finished: 6 matches." in r.stdout
    for word in ("Traceback", "ExecuteBatchError", "Exception"):
        assert word not in r.stderr, r.stderr


def test_a_game_option_that_is_not_finite_is_a_game_option_error():
    """The engines' own option check (Option.coerce) refuses inf and nan, not only the CLI."""
    from cardarena.server.games import GameError, get

    for value in (float("inf"), float("nan"), 1e999):
        with pytest.raises(GameError, match="is not a whole number"):
            get(GAME).parse_options({"end_score": value})


# ----------------------------------------------------------------------------- serve's admin token
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_and_ask(tmp_path: Path, db: str, *serve_args: str, token: str,
                  env: dict | None = None) -> tuple[str, str]:
    """Start `serve` on the ledger ``db`` (without the web pages), ask `bot list --server` with
    ``token``; (the answer's exit code and stderr as text, serve's stderr)."""
    address = f"127.0.0.1:{free_port()}"
    environ = {k: v for k, v in os.environ.items() if k != "CARDARENA_ADMIN_TOKEN"}
    server = subprocess.Popen([*CLI, "serve", "--address", address, "--db", db, "--no-web", *serve_args], env={**environ, **(env or {})}, cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        head = []
        while not any("listening on" in x for x in head):
            line = server.stderr.readline()
            assert line, "".join(head)
            head.append(line)
        asked = subprocess.run([*CLI, "bot", "list", "--server", address], cwd=tmp_path, capture_output=True,
                               text=True, env={**environ, "CARDARENA_ADMIN_TOKEN": token}, timeout=60)
    finally:
        server.terminate()
        out, rest = server.communicate(timeout=30)
    return f"{asked.returncode} {asked.stderr}", "".join(head) + rest + out


def test_serve_takes_the_admin_token_from_a_file_or_the_environment(tmp_path, ledger_url):
    secret = uuid.uuid4().hex
    (tmp_path / "admin.token").write_text(secret + "\n")
    file = str(tmp_path / "admin.token")
    answer, said = serve_and_ask(tmp_path, ledger_url(), "--admin-token-file", file, token=secret)
    assert answer == "0 ", answer
    assert "warning" not in said and secret not in said, said
    answer, _ = serve_and_ask(tmp_path, ledger_url(), "--admin-token-file", file, token="wrong")
    assert answer.startswith("1 ") and "admin token required" in answer
    answer, said = serve_and_ask(tmp_path, ledger_url(), token=secret, env={"CARDARENA_ADMIN_TOKEN": secret})
    assert answer == "0 " and "warning" not in said and secret not in said, said


def test_serve_warns_about_an_admin_token_on_the_command_line(tmp_path, ledger_url):
    secret = uuid.uuid4().hex
    answer, said = serve_and_ask(tmp_path, ledger_url(), "--admin-token", secret, token=secret)
    assert answer == "0 ", answer
    assert "cardarena: warning: --admin-token puts the token on the command line" in said, said
    assert "CARDARENA_ADMIN_TOKEN or --admin-token-file" in said


def test_serve_refuses_a_missing_or_empty_token_file(cli, db, tmp_path):
    code, _, err = cli("serve", "--admin-token-file", str(tmp_path / "nope"))
    one_line(code, err, 2, "cannot read the admin token file", "No such file")
    (tmp_path / "empty").write_text("\n")
    code, _, err = cli("serve", "--admin-token-file", str(tmp_path / "empty"))
    one_line(code, err, 2, "is empty")
    code, _, err = cli("serve", "--admin-token-file", str(tmp_path / "empty"), "--admin-token", "x")
    one_line(code, err, 2, "not both")


@pytest.mark.any_ledger
def test_serve_on_a_port_in_use_says_so_in_one_line_before_anything_else(tmp_path, ledger_url):
    """grpc's own failure to bind comes with a log line of its own on stderr; the CLI finds the
    port taken first, before it opens the ledger or makes and shows an admin token."""
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        r = subprocess.run([*CLI, "serve", "--address", address, "--no-web", "--db", ledger_url()],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env={k: v for k, v in os.environ.items() if k != "CARDARENA_ADMIN_TOKEN"})
    one_line(r.returncode, r.stderr, 1, f"cannot listen on {address}", "Address already in use")
    assert r.stdout == ""  # no admin token made for a server that never ran
