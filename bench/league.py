"""League benchmark, SQLite and PostgreSQL side by side: a league's matches/s with 1, 2 and 3
workers on this machine, the real CLI in its own processes.

    .venv/bin/python bench/league.py               # SQLite and a throwaway PostgreSQL; 300 matches, 1, 2, 3 workers
    .venv/bin/python bench/league.py --quick       # 30 matches, 1 and 2 workers: about a minute
    .venv/bin/python bench/league.py --db postgresql://bench@db.example.org/bench --matches 1000 --workers 1,3

``--db`` names the ledgers (bench/_backends.py: ``sqlite``, ``postgresql`` for a throwaway
server of tests/pgserver.py, a file, a URL of your server). For each, and each number of
workers W of ``--workers``, on a fresh, empty ledger:

    cardarena league run --game sixth-card --seats 4 --matches N -j J --db LEDGER \\
        --bot random-1="python examples/python/random_bot.py" … --bot random-4=…
    cardarena league work ID -j J --db LEDGER          # W − 1 of these, started once `league run`
                                                       # says "league ID is in the ledger"

each a subprocess (from the repository's folder, every worker with its own referee, recorder
process and four random bot processes over gRPC, as on other machines), until every one has
exited. Printed per row: the matches finished; the wall time, from starting ``league run`` to
the last worker's exit (interpreters, bots, the summaries included); the play time, from the
first match claimed to the last one recorded (the ledger's ``claimed_at`` and
``finished_at``); matches/s over the play time, and that speed over one worker's; how the
matches fell to the workers, and each worker's median time to record a match (its own
``this run:`` line); and the problems ``Ledger.check()`` finds afterwards (what ``cardarena
ledger check`` runs; none expected). The figures
are printed side by side, one column a backend, with the ratio of each to the first, and the
load average as each league started (on a machine shared with others, more workers may only
share the same cores). Printed, never asserted.

On SQLite several workers on one file are allowed (one machine only), and serialised: every
claim, lease renewal and record is a ``BEGIN IMMEDIATE`` transaction, one writer at a time,
the others queueing on the 30 s busy timeout (docs/ledger.md). On PostgreSQL claims are
``SELECT … FOR UPDATE SKIP LOCKED`` (no worker waits for another), and the records of one game
take turns under the game's advisory lock. The time of ``record_match`` itself, alone, is
bench/ledger.py's.
"""
from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _backends import CLI, ROOT, backends, column, load, parser, side_by_side  # noqa: E402

from cardarena.ratings import Ledger  # noqa: E402
from cardarena.ratings.models import FINISHED, Match  # noqa: E402

GAME = "sixth-card"
BOTS = [f"--bot=random-{i}=python examples/python/random_bot.py" for i in range(1, 5)]
IN_LEDGER = re.compile(r"league (\d+) is in the ledger")
RATE = "{}: matches/s (over the play)"
THIS_RUN = re.compile(r"recording a match: median ([\d.]+) ms")  # of a worker's "this run:" line


def _started(run: subprocess.Popen, stderr: Path, timeout: float = 120.0) -> int:
    """The league id, once ``league run`` says it is in the ledger."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = IN_LEDGER.search(stderr.read_text())
        if found:
            return int(found.group(1))
        if run.poll() is not None:
            raise SystemExit(f"league run exited with {run.returncode}: {stderr.read_text()[-2000:]}")
        time.sleep(0.05)
    raise SystemExit(f"league run did not make its league within {timeout:.0f} s: {stderr.read_text()[-2000:]}")


def league(where: str, workers: int, matches: int, concurrency: int, folder: Path, alone: float | None) -> dict:
    """One league of ``matches`` on a fresh ledger, played by ``workers`` worker processes
    (``alone``: the matches/s of one worker, for the speed-up)."""
    folder.mkdir(parents=True)
    name = f"{workers} worker{'s' if workers > 1 else ''}"
    fig = {f"{name}: {label}": value for label, value in column().items()}
    logs, procs = [], []

    def start(who: str, *args: str) -> subprocess.Popen:
        err = folder / f"{who}.err"
        logs.append(err)
        with open(folder / f"{who}.out", "w") as out, open(err, "w") as errors:
            procs.append(subprocess.Popen([*CLI, "league", *args, "-j", str(concurrency), "--db", where,
                                           "--log-dir", str(folder / who)], cwd=ROOT, stdout=out, stderr=errors))
        return procs[-1]

    t0 = time.perf_counter()
    try:
        run = start(f"w{workers}-run", "run", "--game", GAME, "--seats", "4", "--matches", str(matches), *BOTS)
        league_id = _started(run, logs[0])
        for k in range(2, workers + 1):
            start(f"w{workers}-work{k}", "work", str(league_id))
        codes = [p.wait() for p in procs]
        wall = time.perf_counter() - t0
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait()
    for code, err in zip(codes, logs):
        if code:
            raise SystemExit(f"{err.stem} exited with {code}: {err.read_text()[-2000:]}")

    led = Ledger(where)
    with led.engine.connect() as c:
        finished = (Match.league_id == league_id) & (Match.status == FINISHED)
        played, first, last = c.execute(select(func.count(), func.min(Match.claimed_at), func.max(Match.finished_at))
                                        .where(finished)).one()
        by_pid = {int(w.rsplit(":", 1)[1]): n  # a worker is HOST:PID
                  for w, n in c.execute(select(Match.worker, func.count()).where(finished).group_by(Match.worker))}
    shares = [by_pid.get(p.pid, 0) for p in procs]  # a worker may find nothing left
    problems = len(led.check())
    led.close()
    play = (last - first).total_seconds()
    runs = [THIS_RUN.search(err.read_text()) for err in logs]
    fig |= {f"{name}: matches finished": (played, ""),
            f"{name}: wall, from `league run` to the last exit": (wall, "s"),
            f"{name}: play, from the first claim to the last record": (play, "s"),
            RATE.format(name): (played / play, "/s")}
    if alone:
        fig[f"{name}: speed over 1 worker's"] = (f"{played / play / alone:.2f}×", "")
    return fig | {
            f"{name}: matches per worker (`league run` first)": (" + ".join(map(str, shares)), ""),
            f"{name}: recording a match, p50 per worker (the same order)":
                (" / ".join(f"{r.group(1)} ms" if r else "none" for r in runs), ""),
            f"{name}: ledger check problems": (problems, "")}


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--matches", type=int, help="matches of each league (default 300; --quick 30)")
    p.add_argument("--workers", help="numbers of workers, a comma list (default 1,2,3; --quick 1,2)")
    p.add_argument("-j", "--concurrency", type=int, default=4, help="matches each worker plays at once")
    args = p.parse_args()
    matches = args.matches or (30 if args.quick else 300)
    counts = [int(w) for w in (args.workers or ("1,2" if args.quick else "1,2,3")).split(",")]
    print(f"{load()} at the start", flush=True)
    with backends(args) as found, tempfile.TemporaryDirectory() as folder:
        columns = []
        for b in found:
            fig = {}
            for w in counts:
                print(f"{b.name}: {matches} matches, {w} worker{'s' if w > 1 else ''} …", flush=True)
                alone = fig.get(RATE.format("1 worker"), (None,))[0] if w > 1 else None
                fig |= league(b.new(), w, matches, args.concurrency, Path(folder) / f"{b.name}-{w}", alone)
            columns.append(fig)
        side_by_side(f"a Sixth Card league of {matches} matches, 4 seats, -j {args.concurrency} a worker, "
                     f"4 random bots a worker", found, columns)
    if any(b.kind == "sqlite" for b in found):
        print("  SQLite: several workers on one file are allowed (one machine) and their writes serialised "
              "(each claim, renewal and record a BEGIN IMMEDIATE transaction; the others wait on the busy timeout)")
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
