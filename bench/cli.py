"""CLI start-up benchmark: ``cardarena --help`` (and a command's, ``league run --help``) and
``cardarena ratings`` as a user runs them, a new process each time, on a 100,000-match ledger
(targets: under 200 ms and 300 ms).

    .venv/bin/python bench/cli.py                      # builds (once) and caches the ledger in /tmp
    .venv/bin/python bench/cli.py --db big.db --runs 21 --top 15
    .venv/bin/python bench/cli.py --command "python -m cardarena.server.cli"   # another CLI, to compare
    .venv/bin/python bench/cli.py --only help          # the commands whose title has this word
    .venv/bin/python bench/cli.py --compare "python /tmp/old/run.py"   # and another CLI, in the same rounds

Printed, never asserted: the median and worst wall time and the median CPU time (user +
system, steadier on a shared machine) of ``--runs`` runs of each command, run in rounds of
every command (of both CLIs with ``--compare``) so that they meet the same load, after one
warm-up round (which also writes the bytecode caches a user's install has, whatever
PYTHONDONTWRITEBYTECODE says), the load average (the machine may be shared), and for
``ratings`` the ``-X importtime`` top list: the modules whose import costs most (cumulative,
top-level imports only) and the import time by top-level package (self times summed).

Without ``--db`` the ledger is ``--matches`` finished 3–5 seat matches among ``--bots`` bots,
written in bulk with bench/ledger.py's ``write_finished`` and rated by ``Ledger.recompute``,
kept in /tmp/cardarena-bench-cli-MATCHES-BOTS/ for the next run.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "cardarena.server.cli"]


def build_ledger(matches: int, bots: int) -> Path:
    """The cached benchmark ledger (made on first use: a minute or two for 100,000 matches)."""
    folder = Path(f"/tmp/cardarena-bench-cli-{matches}-{bots}")
    path = folder / "ledger.db"
    if path.exists():
        return path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ledger import write_finished  # bench/ledger.py's bulk writer

    from cardarena.ratings import Ledger
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / "building.db"
    partial.unlink(missing_ok=True)
    print(f"building a ledger of {matches:,} matches among {bots} bots in {folder} …", flush=True)
    led = Ledger(str(partial))
    ids = [led.add_bot(f"bot{i:03d}")[0].id for i in range(bots)]
    write_finished(led, ids, matches, random.Random(2))
    led.recompute()
    led.close()
    partial.rename(path)
    return path


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one new process; exits on a failure. On a loaded
    machine the CPU time is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise SystemExit(f"{shlex.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def import_top(argv: list[str], env: dict, top: int) -> None:
    """``-X importtime`` of one run: the costliest top-level imports, and the time per package."""
    r = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    rows = []
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative, name = line.split(":", 1)[1].split("|")
        rows.append((int(self_us), int(cumulative), name))
    print(f"  imports, top-level, by cumulative time (of {sum(s for s, _, _ in rows) / 1000:.0f} ms in all):")
    for _, cumulative, name in sorted((r for r in rows if not r[2].startswith("  ")), key=lambda r: -r[1])[:top]:
        print(f"    {cumulative / 1000:7.1f} ms  {name.strip()}")
    package = collections.Counter()
    for self_us, _, name in rows:
        package[name.strip().split(".")[0]] += self_us
    print("  imports by top-level package (self times summed):")
    for name, us in package.most_common(top):
        print(f"    {us / 1000:7.1f} ms  {name}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", help="the ledger `ratings` reads (default: the cached benchmark ledger)")
    p.add_argument("--matches", type=int, default=100_000, help="matches of the benchmark ledger")
    p.add_argument("--bots", type=int, default=40, help="bots of the benchmark ledger")
    p.add_argument("--runs", type=int, default=11, help="new processes per command")
    p.add_argument("--top", type=int, default=12, help="lines of each import-time list")
    p.add_argument("--command", help="the CLI to run (default: this interpreter's `-m cardarena.server.cli`)")
    p.add_argument("--only", help="only the commands whose title has this word (help, ratings)")
    p.add_argument("--compare", help="another CLI, run in the same rounds (e.g. an older checkout's)")
    args = p.parse_args()
    db = args.db or str(build_ledger(args.matches, args.bots))
    cli = shlex.split(args.command) if args.command else CLI
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands = {"cardarena --help": (["--help"], 0.200),
                "cardarena league run --help": (["league", "run", "--help"], 0.200),
                "cardarena ratings --game sixth-card": (["ratings", "--game", "sixth-card", "--db", db], 0.300),
                "cardarena ratings (every game)": (["ratings", "--db", db], 0.300)}
    clis = {"": cli, **({"--compare: ": shlex.split(args.compare)} if args.compare else {})}
    chosen = {title: c for title, c in commands.items() if not args.only or args.only in title}
    print(f"{' vs '.join(shlex.join(c) for c in clis.values())}; ledger {db}; {args.runs} runs each, "
          "in rounds of every command (so that all of them meet the same load)")
    load = os.getloadavg()[0]
    samples = collections.defaultdict(list)
    for k in range(args.runs + 1):  # round 0 warms up (and writes the bytecode caches)
        for name, c in clis.items():
            for title, (argv, _) in chosen.items():
                figures = timed(c + argv, env)
                if k:
                    samples[name, title].append(figures)
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    for (name, title), figures in samples.items():
        wall, cpu = zip(*figures)
        print(f"{name}{title}: median {statistics.median(wall) * 1000:.0f} ms, worst {max(wall) * 1000:.0f} ms, "
              f"CPU median {statistics.median(cpu) * 1000:.0f} ms (target {chosen[title][1] * 1000:.0f} ms)")
    if "-m" in cli and not args.only:  # a Python command line
        print("`cardarena ratings --game sixth-card`, one run:")
        import_top(cli + commands["cardarena ratings --game sixth-card"][0], env, args.top)


if __name__ == "__main__":
    main()
