"""Dead command bots through the real CLI: a league never stops for one.

`league run` and `league resume` start the bots themselves; a bot whose program exits before
connecting, or that never connects within --start-timeout, or that dies during the league, is
absent: its seats forfeit (the fault table's "never connects" row) and the league plays to its
end, the summary naming each absent bot and its log. `play` (one match, for bot authors) still
stops with one line when a bot cannot start, but hands every bot its match_end before it stops
them, and SIGTERM to `play` stops its bots.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from leaguekit import CLI, GAME, ROOT, cli, example

from cardarena.ratings import Ledger
from cardarena.server.league import LeagueSpec, check_spec, league_plans, league_settings
from cardarena.server.referee import TimeControl

BOTS = ROOT / "tests" / "bots"
EXITS = f"python {BOTS / 'exit_before_connect.py'}"       # exits with code 3 at once
SLEEPS = "python -c 'import time; time.sleep(300)'"         # runs, never connects
REPORTS = f"python {BOTS / 'reports_end.py'}"               # logs every match_end it reads
RANDOM = example("random_bot.py")


def bot_args(**commands: str) -> list[str]:
    return [a for name, command in commands.items() for a in ("--bot", f"{name}={command}")]


def seats_of(ledger: Ledger, league_id: int, bot: str) -> list[tuple[bool, int]]:
    """(forfeited, place) of every seat ``bot`` held in the league's matches."""
    return [(r.forfeited[s], r.places[s]) for r in ledger.league_results(league_id)
            for s, b in enumerate(r.bots) if b == bot]


def test_a_bot_that_exits_or_never_connects_is_absent_and_the_league_plays_on(tmp_path, ledger_url):
    """The fault table's "never connects": every seat of such a bot forfeits, the league ends,
    and the summary names each absent bot with the path of its log. The exited bot is not waited
    for: with --start-timeout 600 the league still ends (the sleeper costs its 3 s)."""
    db = ledger_url()
    r = cli("league", "run", "--game", GAME, *bot_args(a=RANDOM, b=RANDOM, gone=EXITS),
            "--seats", "2", "--start-timeout", "600", "--db", str(db), "--log-dir", str(tmp_path / "logs"),
            cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "league 1 finished: 6 matches." in r.stdout
    line = next(x for x in r.stdout.splitlines() if x.startswith("absent: bot gone"))
    assert "its program exited with code 3" in line and "4 seats forfeited" in line
    log = Path(line.split("its log: ")[1].rstrip(")"))
    assert log.name == "gone.log" and log.is_file()
    ledger = Ledger(str(db))
    assert seats_of(ledger, 1, "gone") == [(True, 2)] * 4
    assert not any(f for f, _ in seats_of(ledger, 1, "a") + seats_of(ledger, 1, "b"))

    r = cli("league", "run", "--game", GAME, *bot_args(a=RANDOM, b=RANDOM, quiet=SLEEPS),
            "--seats", "2", "--start-timeout", "8", "--db", str(db), "--log-dir", str(tmp_path / "logs"),
            cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "league 2 finished: 6 matches." in r.stdout
    assert "absent: bot quiet not connected after 8 s (--start-timeout); 4 seats forfeited (its log: " in r.stdout
    assert seats_of(Ledger(str(db)), 2, "quiet") == [(True, 2)] * 4
    r = cli("ledger", "check", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 0, r.stdout


def test_a_bot_that_dies_during_the_league_forfeits_from_then_on(tmp_path, ledger_url):
    """crash_mid_match.py plays five decisions, then os._exit(1): its later seats forfeit at once
    (it is marked absent once its program is gone) and the league ends."""
    db = ledger_url()
    r = cli("league", "run", "--game", GAME, *bot_args(a=RANDOM, b=RANDOM, crash=f"python {BOTS / 'crash_mid_match.py'}"),
            "--seats", "2", "-j", "1", "--grace", "2", "--db", str(db), "--log-dir", str(tmp_path / "logs"),
            cwd=tmp_path, env={"PYTHONPATH": str(BOTS)}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "league 1 finished: 6 matches." in r.stdout
    assert "absent: bot crash left during the league: its program exited with code 1" in r.stdout
    seats = seats_of(Ledger(str(db)), 1, "crash")
    assert seats[-1] == (True, 2) and all(f for f, _ in seats[1:])


def test_resume_with_a_dead_bot_plays_the_league_to_its_end(tmp_path, ledger_url):
    """`league resume` starts the recorded commands; one that exits before connecting is absent."""
    spec = check_spec(LeagueSpec(GAME, ["a", "b", "gone"], seats=2, seed=1,
                                 commands={"a": RANDOM, "b": RANDOM, "gone": EXITS}, workdir=str(tmp_path)))
    db = ledger_url()
    ledger = Ledger(str(db))
    for b in spec.bots:
        ledger.add_bot(b)
    league_id = ledger.create_league(GAME, spec.options, league_settings(spec, TimeControl(move_seconds=5)),
                                     league_plans(spec))
    r = cli("league", "resume", str(league_id), "--start-timeout", "600", "--db", str(db),
            "--log-dir", str(tmp_path / "logs"), cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"league {league_id} finished: 6 matches." in r.stdout
    assert "absent: bot gone never connected: its program exited with code 3; 4 seats forfeited" in r.stdout
    assert seats_of(Ledger(str(db)), league_id, "gone") == [(True, 2)] * 4


def test_play_hands_every_bot_its_match_end_before_stopping_it(tmp_path):
    """Each bot reads its match_end and leaves by itself (the referee ends its stream): its log
    says so, and it was not stopped by SIGTERM."""
    r = cli("play", "--game", GAME, *bot_args(p=REPORTS, q=REPORTS), "--seed", "3",
            "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (run,) = (tmp_path / "logs").iterdir()  # each run of play logs into a folder of its own
    for name in ("p", "q"):
        log = (run / f"{name}.log").read_text()
        assert "match_end play finished places" in log, log
        assert "the referee ended the stream" in log and "stopped by SIGTERM" not in log, log


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigterm_to_play_stops_its_bots(tmp_path):
    """Bots that never answer, a 60 s move time: the match is under way when SIGTERM comes; the
    CLI stops both bot processes (each in its own session, so nothing else would) and exits 143
    with one line."""
    never = f"python {BOTS / 'never_answers.py'}"
    proc = subprocess.Popen([*CLI, "play", "--game", GAME, *bot_args(n1=never, n2=never), "--move-time", "60",
                             "--log-dir", str(tmp_path / "logs")], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(BOTS)})
    try:
        deadline = time.monotonic() + 60
        while len(bots := _children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(bots) == 2, "the two bot programs never started"
        for line in proc.stdout:  # the deal is printed once both bots are connected
            if "is dealt" in line:
                break
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert err.strip() == "cardarena: stopped by SIGTERM; its bots are stopped", err
    assert not [b for b in bots if _running(b)], "a bot program outlived the CLI"
